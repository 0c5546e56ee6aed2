"""A fake provider for the core's tests: a small paginated JSON API that prices per GPU-hour.

Its recording is ``fixtures/fakecloud/`` (hand-built, ``kind: reconstructed``). The API::

    GET https://api.fakecloud.example/v1/offers?page=N
    -> {"offers": [{"instance_type", "gpu", "gpu_count", "vcpus", "memory_gib", "regions": [...],
                    "pricing": {"unit": "per_gpu_hour", "currency": "USD", "on_demand": "0.45", "spot": "0.20"}}],
        "next_page": N+1 | null}
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path

import gpuhub
from gpuhub import Credential, Instance, Offer, Price, Provider, ProviderContext
from gpuhub.errors import ProviderError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "fakecloud"
MAX_PAGES = 50


class FakeCloud(Provider):
    name = "fakecloud"
    display_name = "Fake Cloud"
    kind = "specialist"
    base_url = "https://api.fakecloud.example"
    credentials = (Credential(("FAKECLOUD_TOKEN",), "a FakeCloud API token"),)

    def fixtures_dir(self) -> Path:
        return FIXTURES

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        headers = {}
        token = ctx.require_secret("FAKECLOUD_TOKEN")
        if token is not None:
            headers["Authorization"] = f"Bearer {token.get_secret_value()}"
        page: int | None = 1
        seen: set[int] = set()
        while page is not None:
            if page in seen or len(seen) >= MAX_PAGES:
                raise ProviderError(f"pagination loop or page cap at page {page}")
            seen.add(page)
            data = ctx.get_json(f"{ctx.base_url()}/v1/offers", params={"page": page}, headers=headers)
            for item in data.get("offers", []):
                with ctx.guard("offer"):
                    yield from self._offers(ctx, item)
            following = data.get("next_page")
            if not data.get("offers") and following is not None and following not in seen:
                # An empty page that says more follow is a broken walk, not a page of data.
                ctx.partial("empty pages half-way through the walk", detail=f"page {page} was empty "
                            f"but pointed to page {following}")
            page = following

    def _offers(self, ctx: ProviderContext, item: dict) -> list[Offer]:  # type: ignore[type-arg]
        count = float(item["gpu_count"])
        gpu = ctx.gpu(item["gpu"])
        inst = Instance(provider=self.name, instance_type=item["instance_type"], gpu=gpu, gpu_count=count,
                        fractional=count < 1, vcpus=item["vcpus"], memory_gib=item["memory_gib"])
        pricing = item["pricing"]
        per_gpu = pricing.get("unit") == "per_gpu_hour"
        out = []
        for purchase in ("on_demand", "spot"):
            if purchase not in pricing:
                continue
            amount = Decimal(str(pricing[purchase]))
            if amount == 0:
                ctx.skip("zero price (placeholder)")
                continue
            if per_gpu:  # the API prices per GPU: the offer is per instance (known fault C08)
                amount *= Decimal(str(count))
            price = Price(amount=amount, currency=pricing["currency"], purchase=purchase)
            for region in item["regions"]:
                out.append(Offer(instance=inst, region=ctx.region(region), price=price,
                                 available=item.get("available"), source=ctx.source))
        return out


@gpuhub.hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    register(FakeCloud())


PLUGIN = ("fakecloud", __import__(__name__))
