"""The Vast.ai provider: every listing of Vast's offer search is one host's offer.

Request: ``POST {base_url}/api/v0/bundles/`` with a JSON body of filters (:func:`search_body`): rentable and not
rented, cheapest first (``order: [["dph_total", "asc"]]``) and an **explicit** ``limit`` (known fault C33: the
API's default page size silently truncated the answer). No CUDA filter is ever sent (C33: ``cuda_max_good``
without ``compute_cap`` made the API return no H100/H200). An answer holding exactly ``limit`` listings may be
truncated, and the status says so.

Fields of a listing (``{"offers": [...]}``) and what gpuhub makes of them:

* ``gpu_name``, ``num_gpus``, ``gpu_ram`` (MiB per GPU, checked against the GPU table: C32/C37);
* ``cpu_cores_effective`` (the renter's vCPUs) and ``cpu_ram`` (MiB of the whole host) x ``cpu_cores_effective`` /
  ``cpu_cores``: the renter's share of the host's RAM;
* ``dph_base`` (USD per hour without storage) + ``GPUHUB_VAST_DISK_GB`` (default 10) x ``storage_cost`` (USD per
  GB-month) / 720 when the listing prices storage: the on-demand price, the storage part stated in
  ``price.basis``; ``min_bid`` (+ the same storage) the interruptible (``spot``) price;
* ``inet_down`` / ``inet_up`` (Mbps): the host's **measured** internet bandwidth (Vast's own speed test of the
  host, not a guarantee): ``inet_down`` / 1000 is the offer's ``network_gbps``, both figures are named in
  ``network_source``; ``disk_space`` (GB, 10^9 bytes) is the local disk offered, converted to ``storage_gib``;
* ``geolocation`` (``"Quebec, CA"``): region ``ca-quebec``, country ``CA``; ``reliability2`` and
  ``verification`` in the instance note; ``id`` in the instance type (``1x-RTX-4090-123456``), one host each.

A reconstructed recording holds SkyPilot's summaries of listings (the median price of a bucket of listings, known
fault C35), not listings: replayed, every price says ``listing_stat="median"`` and availability is unknown.
"""

from __future__ import annotations

import json
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
)

__all__ = ["DEFAULT_LIMIT", "SEARCH_PATH", "VastProvider", "region_of", "search_body"]

SEARCH_PATH = "/api/v0/bundles/"
DEFAULT_LIMIT = 1000
MAX_LIMIT = 10000
DEFAULT_DISK_GB = 10
HOURS_PER_MONTH = 720
_GB_TO_GIB = 10**9 / 2**30


def search_body(limit: int) -> str:
    """The exact JSON text of the offer search (compact, keys sorted: a recording matches it byte for byte)."""
    body = {"limit": limit, "order": [["dph_total", "asc"]], "rentable": {"eq": True}, "rented": {"eq": False}}
    return json.dumps(body, separators=(",", ":"), sort_keys=True)


def region_of(geolocation: object) -> Region:
    """A listing's place as a region: ``"Quebec, CA"`` -> ``ca-quebec`` (country CA, North America); ``", US"``
    or ``"US"`` -> ``us``; no location -> ``unknown``."""
    text = str(geolocation or "").strip()
    parts = [p.strip() for p in text.split(",")]
    country = parts[-1].upper() if parts and len(parts[-1]) == 2 and parts[-1].isalpha() else None
    place = ", ".join(p for p in (parts[:-1] if country else parts) if p)
    code = "-".join(x for x in (country.lower() if country else "", "".join(place.lower().split())) if x)
    return located_region("vast", code or "unknown", country=country, city=place or None)


class VastProvider(Provider):
    """Vast.ai (GPU marketplace): one offer per host listing, on-demand at its price and interruptible at its
    minimum bid, USD. Live with ``VAST_API_KEY`` (Bearer); the offer search answers without a key too."""

    name: ClassVar[str] = "vast"
    display_name: ClassVar[str] = "Vast.ai"
    kind: ClassVar[ProviderKind] = "specialist"
    price_change_period_s: ClassVar[float] = 3600.0
    """How often prices change, seconds: marketplace listings come and go by the hour."""
    base_url: ClassVar[str] = "https://console.vast.ai"
    credentials: ClassVar[tuple[Credential, ...]] = (
        Credential(("VAST_API_KEY",), "a Vast.ai API key (console, Account, API keys), sent as a Bearer token"),)

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Yield one on-demand and (where the host takes bids) one interruptible offer per listing.

        Raises:
            ProviderError: an error answer, a setting out of range, or an answer without an ``offers`` list.
        """
        limit = _setting_int(ctx, "LIMIT", DEFAULT_LIMIT, 1, MAX_LIMIT)
        disk_gb = _setting_int(ctx, "DISK_GB", DEFAULT_DISK_GB, 0, 100000)
        key = ctx.secret("VAST_API_KEY")
        if key is None and ctx.mode != "replay":
            ctx.warn("VAST_API_KEY is not set: searching Vast.ai's public offers without a key")
        headers = json_headers(key, sends_json=True)
        response = ctx.request("POST", f"{ctx.base_url()}{SEARCH_PATH}", content=search_body(limit), headers=headers)
        try:
            body = response.json()
        except ValueError:
            kind = response.headers.get("content-type", "unknown content type")
            raise ProviderError(f"Vast.ai's offer search did not return JSON ({kind})") from None
        listings = body.get("offers") if isinstance(body, dict) else None
        if not isinstance(listings, list):
            raise ProviderError("Vast.ai's offer search answered without an 'offers' list")
        if len(listings) >= limit:
            ctx.warn(f"possibly truncated: the answer holds exactly the {limit} listings asked for (the cheapest); "
                     "raise GPUHUB_VAST_LIMIT for more")
        summary = ctx.source.kind == "reconstructed"
        for listing in listings:
            with ctx.guard("listing"):
                yield from self._offers(ctx, listing, disk_gb, summary)

    def _offers(self, ctx: ProviderContext, item: dict[str, Any], disk_gb: int, summary: bool) -> list[Offer]:
        count = item["num_gpus"]
        if not isinstance(count, (int, float)) or isinstance(count, bool) or count <= 0:
            ctx.skip("no GPU count")
            return []
        cores, effective = item.get("cpu_cores"), item.get("cpu_cores_effective")
        if not cores or not effective:
            ctx.skip("no CPU core count (cpu_cores null or 0)")
            return []
        raw = str(item["gpu_name"])
        gpu, problem = checked_gpu(ctx, raw, item.get("gpu_ram"), count, "MiB per GPU")
        if problem:
            ctx.warn(f"{raw}: gpu_ram {item.get('gpu_ram')!r} {problem}")
        host_ram = item.get("cpu_ram")
        memory = float(host_ram) * float(effective) / float(cores) / 1024 if host_ram else None
        notes = [f"{k} {item[k]}" for k in ("reliability2", "verification") if item.get(k) is not None]
        instance = Instance(provider=self.name, instance_type=f"{int(count)}x-{'-'.join(raw.split())}-{item['id']}",
                            gpu=gpu, gpu_count=count, vcpus=float(effective), memory_gib=memory,
                            **network_fields(item),
                            note="; ".join(["one Vast.ai host listing", *notes]) if not summary else
                            "a summary of Vast.ai listings (SkyPilot catalog bucket median), not one listing")
        storage = decimal_amount(item.get("storage_cost"), "storage_cost")
        extra = Decimal(0)
        if storage and disk_gb:
            extra = (storage * disk_gb / HOURS_PER_MONTH).quantize(Decimal("0.000001"))
        stat = {"listing_stat": "median"} if summary else {}
        offers = []
        for purchase, field in (("on_demand", "dph_base"), ("spot", "min_bid")):
            amount = decimal_amount(item.get(field), field)
            if amount is None or amount <= 0:
                ctx.skip(f"no {field} (missing or zero placeholder)")
                continue
            basis = f"{field} {amount} USD/h + {disk_gb} GB storage at {storage} USD per GB-month" if extra else None
            price = Price(amount=amount + extra, currency="USD", purchase=purchase, basis=basis, **stat)
            offers.append(Offer(instance=instance, region=region_of(item.get("geolocation")), price=price,
                                available=None if summary else True, available_count=None if summary else 1,
                                source=ctx.source))
        return offers


def _mbps(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None
    return float(value)


def network_fields(item: dict[str, Any]) -> dict[str, Any]:
    """The :class:`gpuhub.plugin.Instance` network and disk fields of one listing: ``network_gbps`` from the
    host's measured ``inet_down`` (Mbps / 1000), ``storage_gib`` from ``disk_space`` (GB, converted to GiB), and a
    ``network_source`` that says both are Vast's per-host figures; empty when the listing has neither."""
    down, up, disk = _mbps(item.get("inet_down")), _mbps(item.get("inet_up")), _mbps(item.get("disk_space"))
    fields: dict[str, Any] = {}
    parts = []
    if down is not None:
        fields["network_gbps"] = round(down / 1000, 6)
        upload = f", upload inet_up {up:g} Mbps" if up is not None else ""
        parts.append(f"network_gbps: the host's measured download bandwidth (inet_down {down:g} Mbps{upload}; "
                     "Vast's speed test of this host, not a guaranteed rate)")
    if disk is not None:
        fields["storage_gib"] = round(disk * _GB_TO_GIB, 1)
        parts.append(f"storage_gib: disk_space {disk:g} GB offered on this host")
    if parts:
        fields["network_source"] = "Vast.ai bundles listing: " + "; ".join(parts)
    return fields


def _setting_int(ctx: ProviderContext, name: str, default: int, low: int, high: int) -> int:
    text = ctx.setting(name)
    if text is None or not text.strip():
        return default
    try:
        value = int(text)
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        raise ProviderError(f"GPUHUB_VAST_{name}={text!r}: expected a whole number from {low} to {high}")
    return value
