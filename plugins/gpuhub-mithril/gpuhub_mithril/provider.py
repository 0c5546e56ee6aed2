"""The Mithril provider: instance types, their current minimum auction price, and the regions with spot capacity.

Mithril sells GPU capacity through a spot auction (and reservations, which the API does not price). Requests::

    GET /v2/instance-types                          the types
    GET /v2/pricing/current?instance_type=<fid>     per type: the minimum price the auction accepts (US cents/h)
    GET /v2/spot/availability                       the regions with capacity, and the last price paid there

An offer is one instance type in one region with capacity, purchase model ``spot``: the region's last instance
price when the answer has one, else the type's minimum price (the auction floor; ``basis`` says which). A price
below 0.05 USD per GPU-hour is a placeholder (the API's floor of one cent per GPU, not a market price): skipped and
counted. One type whose price request fails does not stop the others (known fault C36): it is named as missing.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any, ClassVar

import httpx

from gpuhub.plugin import (
    Credential,
    CredentialsError,
    Instance,
    Offer,
    Price,
    Provider,
    ProviderContext,
    ProviderError,
    ProviderKind,
    json_headers,
)
from gpuhub_mithril.parse import (
    Availability,
    InstanceType,
    minimum_price_usd,
    parse_availability,
    parse_instance_type,
)

__all__ = ["PLACEHOLDER_PER_GPU_HOUR", "Mithril", "disk_fields"]

KEY_HELP = "create an API key in Mithril's console and export it, e.g. `export MITHRIL_API_KEY=...`"
PLACEHOLDER_PER_GPU_HOUR = Decimal("0.05")
"""Below this many USD per GPU-hour a price is a placeholder (Mithril answers 1 cent per GPU for some types)."""
_MEMORY_TOLERANCE = 0.15
DISK_SOURCE = ("Mithril pricing page https://mithril.ai/pricing (transcription of 2026-09-20, api-evangelist/mithril "
               "plans/mithril-plans-pricing.yml): '{plan}'; the page names no network bandwidth or fabric")
"""Where an instance type's local disk comes from; the page's plan is filled in."""
_PAGE_DISKS: dict[str, tuple[int, float, float, int, str]] = {
    "h100-80gb.sxm.8x": (8, 168, 1814, 12500, "H100 SXM5 (8 GPUs, 168 vCPUs, 1,814 GB RAM, 12,500 GB disk)"),
    "h200.8x": (8, 168, 1600, 12500, "H200 SXM5 (8 GPUs, 168 vCPUs, 1,600 GB RAM, 12,500 GB disk)"),
}
"""Instance type -> (GPUs, vCPUs, RAM GB, disk GB, the page's plan as printed) for the plans of Mithril's pricing page
whose API names are known (the 1-GPU plans' names are not, so they are left out)."""


def disk_fields(item: InstanceType) -> dict[str, Any]:
    """The :class:`gpuhub.plugin.Instance` local-disk fields of an instance type (``storage_gib``: the pricing
    page's disk, GB converted to GiB, with its ``network_source``) when the page lists the type with the same GPUs,
    vCPUs and RAM; empty otherwise (the instance-types API gives no disk)."""
    known = _PAGE_DISKS.get(item.name)
    if known is None or (item.num_gpus, item.num_cpus, item.ram_gb) != known[:3]:
        return {}
    return {"storage_gib": round(known[3] * 10**9 / 2**30, 1), "network_source": DISK_SOURCE.format(plan=known[4])}


class Mithril(Provider):
    """Mithril (GPU specialist, formerly ML Foundry): spot auction prices in USD per instance-hour.

    Live: the three v2 endpoints with ``Authorization: Bearer $MITHRIL_API_KEY``.
    """

    name: ClassVar[str] = "mithril"
    display_name: ClassVar[str] = "Mithril"
    kind: ClassVar[ProviderKind] = "specialist"
    base_url: ClassVar[str] = "https://api.mithril.ai"
    credentials: ClassVar[tuple[Credential, ...]] = (
        Credential(("MITHRIL_API_KEY",), "a Mithril API key, sent as a Bearer token"),)
    price_change_period_s: ClassVar[float] = 3600.0  # an auction: prices move by the hour

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Yield one spot offer per instance type and region with capacity.

        Raises:
            CredentialsError: no ``MITHRIL_API_KEY`` (live), or Mithril rejected it.
            ProviderError: the type list or the availability list cannot be had or has an unexpected shape.
        """
        key = ctx.require_secret("MITHRIL_API_KEY")
        headers = json_headers(key)
        root = ctx.base_url()
        types_body, answered = ctx.get_dated_json(f"{root}/v2/instance-types", headers=headers)
        types = self._types(ctx, _list(types_body, "/v2/instance-types"))
        availability = self._availability(ctx, _list(ctx.get_json(f"{root}/v2/spot/availability", headers=headers),
                                                     "/v2/spot/availability"))
        capacity_known = ctx.source.kind != "reconstructed"
        if not capacity_known:
            ctx.warn("availability unknown: the recording is reconstructed from published prices, not a capacity "
                     "snapshot")
        no_capacity: list[str] = []
        for item in types:
            regions = availability.get(item.fid, [])
            if item.num_gpus == 0 or not item.gpu_type:
                ctx.skip("CPU-only instance type (no GPU)")
                continue
            if not regions:
                no_capacity.append(item.name)  # a fact about capacity, not a bad record
                continue
            try:
                minimum = minimum_price_usd(ctx.get_json(f"{root}/v2/pricing/current", headers=headers,
                                                         params={"instance_type": item.fid}))
            except CredentialsError:
                raise
            except (ProviderError, KeyError, TypeError, ValueError) as exc:  # one type, not the catalog (C36)
                ctx.partial("instance types whose price could not be read", detail=f"{item.name}: {exc}")
                continue
            offers: list[Offer] = []
            with ctx.guard("instance type"):
                offers = self._offers(ctx, item, minimum, regions, answered, capacity_known)
            yield from offers
        if no_capacity:
            ctx.warn(f"{len(no_capacity)} instance type(s) with no spot capacity in any region, so not offered: "
                     f"{', '.join(sorted(no_capacity))}")

    def error_from_response(self, response: httpx.Response) -> ProviderError | None:
        """A rejected key (401/403) names ``MITHRIL_API_KEY``; other errors keep gpuhub's generic message."""
        if response.status_code in (401, 403):
            return CredentialsError(f"Mithril rejected the API key (HTTP {response.status_code}); {KEY_HELP}",
                                    code=str(response.status_code), status=response.status_code)
        return None

    def _types(self, ctx: ProviderContext, items: list[Any]) -> list[InstanceType]:
        out = []
        for item in items:
            with ctx.guard("instance type"):
                if not isinstance(item, Mapping):
                    raise TypeError(f"instance type is a {type(item).__name__}, not an object")
                out.append(parse_instance_type(item))
        return out

    def _availability(self, ctx: ProviderContext, items: list[Any]) -> dict[str, list[Availability]]:
        out: dict[str, list[Availability]] = defaultdict(list)
        for item in items:
            with ctx.guard("spot availability record"):
                if not isinstance(item, Mapping):
                    raise TypeError(f"record is a {type(item).__name__}, not an object")
                record = parse_availability(item)
                out[record.fid].append(record)
        return out

    def _offers(self, ctx: ProviderContext, item: InstanceType, minimum: Decimal, regions: list[Availability],
                answered: dt.date | None, capacity_known: bool) -> list[Offer]:
        gpu = ctx.gpu(item.gpu_type, item.gpu_memory_gb)
        if item.gpu_memory_gb is not None and gpu.known and gpu.memory_gib is not None and \
                abs(float(gpu.memory_gib) - item.gpu_memory_gb) > _MEMORY_TOLERANCE * float(gpu.memory_gib):
            ctx.warn(f"{item.name}: gpu_memory_gb {item.gpu_memory_gb:g} contradicts the GPU table's {gpu.name} "
                     f"({gpu.memory_gib} GiB); the table's figure is used")
        instance = Instance(provider=self.name, instance_type=item.name, gpu=gpu, gpu_count=item.num_gpus,
                            fractional=False, vcpus=item.num_cpus, memory_gib=item.ram_gb, **disk_fields(item),
                            note="Mithril spot auction: you bid a limit price and pay the market price")
        offers = []
        for record in regions:
            amount, basis = (record.last_price, "last instance price in this region") if record.last_price \
                else (minimum, "minimum price the spot auction accepts now (floor; pricing/current)")
            if amount <= 0 or amount / item.num_gpus < PLACEHOLDER_PER_GPU_HOUR:
                ctx.skip(f"placeholder price (below {PLACEHOLDER_PER_GPU_HOUR} USD per GPU-hour)")
                continue
            price = Price(amount=amount, currency="USD", purchase="spot", basis=basis, data_date=answered)
            offers.append(Offer(instance=instance, region=ctx.region(record.region), price=price,
                                available=True if capacity_known else None,
                                source=ctx.source))
        return offers


def _list(body: Any, path: str) -> list[Any]:
    if not isinstance(body, list):
        raise ProviderError(f"unexpected {path} answer: expected a list, got {type(body).__name__}")
    return body
