"""The shadeform provider: GPU offers of an internal cloud, from its ``GET /v1/offers`` API.

Answer shape: a JSON list of ``{"type", "gpu", "gpus", "vcpus", "ram_gib", "region", "usd_per_hour", "available"}``.
Replays ``recording/`` (bundled) when ``SHADEFORM_TOKEN`` is not set; goes live when it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from gpuhub.plugin import Credential, Instance, Offer, Price, Provider, ProviderContext, RegionFacts, hookimpl


class ShadeformCloud(Provider):
    name = "shadeform"
    kind = "internal"
    base_url = "https://gpus.shadeform.example"
    credentials = (Credential(("SHADEFORM_TOKEN",), "an API token of the shadeform GPU API"),)

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        token = ctx.require_secret("SHADEFORM_TOKEN")  # None when replaying the bundled recording
        headers = {"Authorization": f"Bearer {token.get_secret_value()}"} if token else {}
        items: Any = ctx.get_json(f"{ctx.base_url()}/v1/offers", headers=headers)
        for item in items:
            with ctx.guard("offer"):  # a malformed record is skipped and counted, not raised
                instance = Instance(provider=self.name, instance_type=item["type"], gpu=ctx.gpu(item["gpu"]),
                                    gpu_count=item["gpus"], vcpus=item.get("vcpus"),
                                    memory_gib=item.get("ram_gib"))
                price = Price(amount=Decimal(str(item["usd_per_hour"])), currency="USD",
                              purchase="on_demand")
                yield Offer(instance=instance, region=ctx.region(item["region"]), price=price,
                            available=item.get("available"), source=ctx.source)


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    register(ShadeformCloud())


@hookimpl
def register_regions(register: Callable[[RegionFacts], None]) -> None:
    # Where the regions are: --near, --max-rtt, --continent, --country and carbon ranking use these facts.
    register(RegionFacts(provider="shadeform", region="shadeform-fra", city="Frankfurt", country="DE",
                         continent="Europe", lat=50.11, lon=8.68, carbon_gco2e_per_kwh=276.0,
                         carbon_year="2024", carbon_source="your facilities team's figure"))
    register(RegionFacts(provider="shadeform", region="shadeform-iad", city="Ashburn", country="US",
                         continent="North America", lat=39.04, lon=-77.49))
