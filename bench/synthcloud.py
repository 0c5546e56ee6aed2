"""Benchmark providers that replay the synthetic catalogs of bench/generate.py through gpuhub's normal path.

One :class:`gpuhub.Provider` per synthetic provider (aws, azure, gcp, lambda: the names the offers carry). They
walk the synthetic bench API (``GET /v1/catalog?page=N``, products + price rows, see generate.write_gpuhub) through
``ctx.get_json`` (replay transport, retry policy), resolve GPUs with ``ctx.gpu`` and regions with ``ctx.region``,
and build validated :class:`gpuhub.Offer` objects, as a real plugin does.

Register them instead of the installed plugins (same names)::

    registry = gpuhub.Registry(entry_points=[], extra_plugins=[("bench_synth", synthcloud)])
    engine = gpuhub.kit.testing.make_engine(registry)
    gpuhub.search(gpu="H100", fixtures_dir="/tmp/gpuhub-bench-data/100k/gpuhub", mode="replay", engine=engine)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import gpuhub
from gpuhub import Provider, ProviderContext
from gpuhub.errors import ProviderError

if TYPE_CHECKING:  # the models are imported when the providers fetch: a search served from the store needs none
    from gpuhub import Instance, Offer

MAX_PAGES = 1000


class _Synth(Provider):
    kind = "other"
    base_url = "https://api.bench.invalid"

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        from gpuhub import Instance

        page: int | None = 1
        seen: set[int] = set()
        while page is not None:
            if page in seen or len(seen) >= MAX_PAGES:
                raise ProviderError(f"pagination loop or page cap at page {page}")
            seen.add(page)
            data = ctx.get_json(f"{ctx.base_url()}/v1/catalog", params={"page": page})
            instances: dict[str, Instance] = {}
            for pid, p in data.get("products", {}).items():
                with ctx.guard("product"):
                    instances[pid] = Instance(
                        provider=self.name, instance_type=p["instance_type"],
                        gpu=ctx.gpu(p["gpu"], p.get("gpu_memory_gib")), gpu_count=p["gpu_count"],
                        vcpus=p["vcpus"], memory_gib=p["memory_gib"], cpu_arch=p.get("cpu_arch", "x86_64"))
            for row in data.get("prices", []):
                with ctx.guard("price"):
                    yield self._offer(ctx, instances, row)
            page = data.get("next_page")

    def _offer(self, ctx: ProviderContext, instances: dict[str, Instance], row: list[Any]) -> Offer:
        from gpuhub import Offer, Price

        pid, region, zone, purchase, amount, currency = row
        price = Price(amount=Decimal(amount), currency=currency, purchase=purchase)
        return Offer(instance=instances[pid], region=ctx.region(region, zone), price=price, source=ctx.source)


def _provider(name: str) -> Provider:
    cls = type(f"Synth_{name}", (_Synth,), {"name": name, "display_name": f"bench {name}"})
    return cls()  # type: ignore[no-any-return]


PROVIDERS = ("aws", "azure", "gcp", "lambda")


@gpuhub.hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    for name in PROVIDERS:
        register(_provider(name))
