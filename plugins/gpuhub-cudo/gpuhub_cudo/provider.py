"""The Cudo Compute provider: machine types priced per component, offered in a fixed set of sizes.

``GET {base}/vms/machine-types-2`` (public, no credentials) answers ``{"machineTypes": [...]}``: per machine type and
data centre (``machineType``, ``dataCenterId``, ``gpuModel``) the hourly price of one GPU (``gpuPriceHr.value``), one
vCPU (``vcpuPriceHr.value``) and one GiB of RAM (``memoryGibPriceHr.value``), in USD, and the free capacity
(``maxGpuFree``, ``maxVcpuFree``, ``maxMemoryGibFree``). A VM's price is GPUs x GPU price + vCPUs x vCPU price +
GiB x RAM price (storage and IPv4 extra, not included). Source of the shape: gpuhunt's ``providers/cudo.py`` and
SkyPilot's ``fetch_cudo.py``. gpuhub offers the :data:`SIZES` SkyPilot's catalog lists, so the two agree.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any, ClassVar

from gpuhub.plugin import (
    Instance,
    Offer,
    Price,
    Provider,
    ProviderContext,
    ProviderError,
    ProviderKind,
    decimal_amount,
    placeholder_price,
)

__all__ = ["SIZES", "Cudo"]

SIZES = ((1, 2, 4), (1, 4, 8), (2, 8, 16), (2, 16, 32), (4, 32, 64), (8, 64, 128), (8, 96, 192), (4, 48, 96),
         (2, 24, 48), (1, 12, 24), (4, 96, 192), (2, 48, 96), (1, 24, 48))
"""(GPUs, vCPUs, GiB of RAM) of the sizes offered per machine type: SkyPilot's Cudo catalog sizes."""
REGIONS = ("ca-montreal-3", "no-kristiansand-1", "se-stockholm-1", "us-carlsbad-1", "us-newyork-1")
"""Cudo data-centre ids gpuhub knows the location of; others are still offered (with no location facts)."""


def _price(block: object, what: str) -> Decimal:
    if not isinstance(block, Mapping):
        raise TypeError(f"{what} is not an object")
    amount = decimal_amount(block.get("value"), what)
    if amount is None or amount < 0:
        raise ValueError(f"{what} is missing or negative")
    return amount


class Cudo(Provider):
    """Cudo Compute (GPU specialist marketplace of data centres): on-demand prices per component."""

    name: ClassVar[str] = "cudo"
    display_name: ClassVar[str] = "Cudo Compute"
    kind: ClassVar[ProviderKind] = "specialist"
    price_change_period_s: ClassVar[float] = 86400.0  # a marketplace of data centres: prices move daily
    base_url: ClassVar[str] = "https://rest.compute.cudo.org/v1"

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Yield one on-demand offer per machine type, data centre and size.

        Raises:
            ProviderError: the answer has no ``machineTypes`` list (never taken for an empty catalog).
        """
        body, answered = ctx.get_dated_json(f"{ctx.base_url()}/vms/machine-types-2",
                                            headers={"Accept": "application/json"})
        types = body.get("machineTypes") if isinstance(body, Mapping) else None
        if not isinstance(types, list):
            raise ProviderError("unexpected /vms/machine-types-2 answer: no 'machineTypes' list")
        if ctx.source.kind == "reconstructed":
            ctx.warn("availability unknown: the recording is reconstructed from a price catalog; its vCPU price "
                     "holds vCPU + 2 GiB of RAM (the catalog's sizes all have 2 GiB per vCPU)")
        for item in types:
            offers: list[Offer] = []
            with ctx.guard("machine type"):
                offers = self._offers(ctx, item, answered)
            yield from offers

    def _offers(self, ctx: ProviderContext, item: Mapping[str, Any], answered: dt.date | None) -> list[Offer]:
        model = item.get("gpuModel")
        if not model or not item.get("gpuModelId"):
            ctx.skip("CPU-only machine type (no GPU)")
            return []
        gpu_price = _price(item["gpuPriceHr"], "gpuPriceHr")
        vcpu_price = _price(item["vcpuPriceHr"], "vcpuPriceHr")
        memory_price = _price(item["memoryGibPriceHr"], "memoryGibPriceHr")
        if placeholder_price(gpu_price):
            ctx.skip("placeholder GPU price (zero or negative)")
            return []
        region = str(item["dataCenterId"])
        if region.lower() != region or " " in region:
            ctx.skip("data-centre name that is not a Cudo data-centre id")
            return []
        gpu = ctx.gpu(str(model))
        free = item.get("maxGpuFree")
        offers = []
        for gpus, vcpus, memory in SIZES:
            instance = Instance(provider=self.name, instance_type=f"{item['machineType']}_{gpus}x{vcpus}v{memory}gb",
                                gpu=gpu, gpu_count=gpus, vcpus=vcpus, memory_gib=memory)
            amount = gpus * gpu_price + vcpus * vcpu_price + memory * memory_price
            offers.append(Offer(instance=instance, region=ctx.region(region),
                                price=Price(amount=amount, currency="USD", purchase="on_demand", data_date=answered,
                                            basis="GPUs x gpuPriceHr + vCPUs x vcpuPriceHr + GiB x memoryGibPriceHr "
                                                  "(storage and IPv4 not included)"),
                                available=(gpus <= int(free)) if isinstance(free, int) else None,
                                source=ctx.source))
        return offers
