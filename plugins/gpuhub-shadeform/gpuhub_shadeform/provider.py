"""The Shadeform provider: an aggregator reselling about 18 clouds' GPU machines through one API.

Request: ``GET {base_url}/v1/instances/types`` with the ``X-API-KEY`` header. Answer (Shadeform's API reference,
"instances/types"): ``{"instance_types": [...]}``, one entry per cloud and Shade instance type:

* ``cloud`` (the cloud that runs the machine: ``lambdalabs``, ``hyperstack``, ``massedcompute`` ...), becomes the
  offer's **seller** (through :func:`gpuhub.plugin.seller_name`: ``lambdalabs`` -> ``lambda``); the source is
  ``shadeform``; ``cloud_instance_type`` (the seller's own name) becomes ``seller_instance_type`` where given;
* ``shade_instance_type`` (``H100x8-NVLINK``): the instance type is ``<cloud>_<shade_instance_type>``;
* ``configuration``: ``num_gpus``, ``gpu_type``, ``vram_per_gpu_in_gb`` (checked against the GPU table: C37),
  ``vcpus``, ``memory_in_gb``, ``storage_in_gb`` (the machine's disk, the offer's ``storage_gib``, with
  :data:`STORAGE_SOURCE` as its ``network_source``), ``interconnect`` (inside the machine: NVLink/SXM/PCIe; the API
  names no network bandwidth or inter-node fabric, so those stay unknown);
* ``hourly_price``: US **cents** per instance-hour (on-demand);
* ``availability``: ``[{"region", "available"}]``: one offer per region, ``available`` as Shadeform says (unknown
  when replaying a reconstructed recording, which holds no capacity snapshot).

Regions are Shadeform's city-style codes (``dallas-usa-1``): the country comes from the middle word
(:data:`COUNTRY_WORDS`), the continent from the country.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any, ClassVar

from gpuhub.plugin import (
    Credential,
    Instance,
    Offer,
    Price,
    Provider,
    ProviderContext,
    ProviderError,
    ProviderKind,
    Region,
    checked_gpu,
    decimal_amount,
    json_headers,
    located_region,
    seller_name,
)

STORAGE_SOURCE = "Shadeform instances/types: configuration.storage_in_gb (the machine's disk; no network fields)"
"""Where an offer's storage figure comes from (Shadeform's API has no network bandwidth or fabric)."""

__all__ = ["COUNTRY_WORDS", "TYPES_PATH", "ShadeformProvider", "region_of"]

TYPES_PATH = "/v1/instances/types"
COUNTRY_WORDS = {"usa": "US", "canada": "CA", "finland": "FI", "france": "FR", "poland": "PL", "sweden": "SE",
                 "norway": "NO", "germany": "DE", "india": "IN", "iceland": "IS", "singapore": "SG", "japan": "JP",
                 "uk": "GB", "netherlands": "NL", "israel": "IL", "australia": "AU"}
"""The country words of Shadeform's region codes (``<city>-<country>-<n>``) -> ISO 3166 alpha-2."""


def region_of(code: str) -> Region:
    """Shadeform's ``dallas-usa-1`` as a region: country US (North America), city ``dallas``; a code of another
    pattern keeps no location."""
    parts = code.split("-")
    country = COUNTRY_WORDS.get(parts[-2].lower()) if len(parts) >= 3 else None
    return located_region("shadeform", code, country=country, city=parts[0] if country else None)


class ShadeformProvider(Provider):
    """Shadeform (GPU aggregator): on-demand instance types of the clouds it resells, each offer naming its seller,
    USD. Live with ``SHADEFORM_API_KEY``."""

    name: ClassVar[str] = "shadeform"
    display_name: ClassVar[str] = "Shadeform"
    kind: ClassVar[ProviderKind] = "other"
    resells: ClassVar[bool] = True
    price_change_period_s: ClassVar[float] = 3600.0
    """How often prices change, seconds: resold prices and availability change by the hour."""
    base_url: ClassVar[str] = "https://api.shadeform.ai"
    credentials: ClassVar[tuple[Credential, ...]] = (
        Credential(("SHADEFORM_API_KEY",), "a Shadeform API key (platform settings, API), sent as X-API-KEY"),)

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Yield one on-demand offer per instance type and region.

        Raises:
            CredentialsError: no ``SHADEFORM_API_KEY`` (live).
            ProviderError: an error answer, or an answer without an ``instance_types`` list.
        """
        key = ctx.require_secret("SHADEFORM_API_KEY")
        headers = json_headers(key, header="X-API-KEY", scheme=None)
        body = ctx.get_json(f"{ctx.base_url()}{TYPES_PATH}", headers=headers)
        entries = body.get("instance_types") if isinstance(body, dict) else None
        if not isinstance(entries, list):
            raise ProviderError("Shadeform's instances/types answer has no 'instance_types' list")
        capacity_known = ctx.source.kind != "reconstructed"
        if not capacity_known:
            ctx.warn("availability unknown: the recording is reconstructed from published prices, not a capacity "
                     "snapshot")
        for entry in entries:
            with ctx.guard("instance type"):
                yield from self._offers(ctx, entry, capacity_known)

    def _offers(self, ctx: ProviderContext, entry: dict[str, Any], capacity_known: bool) -> list[Offer]:
        config = entry["configuration"]
        count = config["num_gpus"]
        if not count:
            ctx.skip("CPU-only instance type (no GPU)")
            return []
        cents = decimal_amount(entry.get("hourly_price"), "hourly_price")
        if cents is None or cents <= 0:
            ctx.skip("no hourly_price (missing or zero placeholder)")
            return []
        raw = str(config["gpu_type"])
        gpu, problem = checked_gpu(ctx, raw, config.get("vram_per_gpu_in_gb"), count, "GB per GPU")
        if problem:
            ctx.warn(f"{entry['cloud']}_{entry['shade_instance_type']}: vram_per_gpu_in_gb "
                     f"{config.get('vram_per_gpu_in_gb')!r} {problem}")
        instance = Instance(
            provider=self.name, instance_type=f"{entry['cloud']}_{entry['shade_instance_type']}", gpu=gpu,
            gpu_count=count, vcpus=config.get("vcpus"), memory_gib=config.get("memory_in_gb"),
            storage_gib=config.get("storage_in_gb") or None, interconnect=config.get("interconnect") or None,
            network_source=STORAGE_SOURCE if config.get("storage_in_gb") else None,
            seller=seller_name(str(entry["cloud"])), seller_instance_type=entry.get("cloud_instance_type") or None)
        price = Price(amount=cents / Decimal(100), currency="USD", purchase="on_demand")
        places = entry.get("availability") or []
        if not places:
            ctx.skip("no region in availability")
        return [Offer(instance=instance, region=region_of(str(place["region"])), price=price,
                      available=bool(place.get("available")) if capacity_known else None, source=ctx.source)
                for place in places]
