"""Pure parsing of JarvisLabs' ``GET /misc/server_meta`` answer (no I/O).

The answer (field names from the ``jarvislabs`` SDK's ``ServerMetaGPU``/``ServerMetaResponse`` models, and the
SkyPilot fetcher that reads the same endpoint)::

    {"currency": "USD",
     "server_meta": [{"gpu_type": "H100", "region": "india-noida-01", "workload_type": "vm", "num_gpus": 8,
                      "price_per_hour": 2.69, "spot_price": null, "vram": "80", "cpus_per_gpu": 24,
                      "ram_per_gpu": 200, "num_free_devices": 3, "effective_num_free_devices": 3}, ...],
     "cpu_meta": {"combinations": [{"vcpus": 4, "ram_gb": 16, "price_per_hour": 0.0992,
                                    "regions": {"india-noida-01": true}}]}}

Each ``server_meta`` entry is one GPU *pool* (GPU type x region x workload type). ``price_per_hour``,
``spot_price``, ``cpus_per_gpu`` and ``ram_per_gpu`` are **per GPU**; ``num_gpus`` is the pool's ceiling (absent:
1): any count up to it can be launched. ``vram`` is the memory per GPU in GB, as text. ``cpu_meta`` holds CPU-only
VM plans (no GPU: not offers here).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["COUNTS", "REGIONS", "Pool", "RegionInfo", "cpu_plan_count", "parse_pool", "region_info",
           "server_meta_entries"]

COUNTS = (1, 2, 4, 8)
"""GPU counts offered per pool, up to its ceiling (the counts JarvisLabs' own CLI and SkyPilot offer)."""


@dataclass(frozen=True)
class RegionInfo:
    """A JarvisLabs region: the API's id (``india-noida-01``) and the code its CLI shows (``IN2``)."""

    region_id: str
    code: str
    city: str
    country: str
    continent: str
    lat: float | None
    lon: float | None


# Region ids and display codes: the jarvislabs SDK's constants (REGION_DISPLAY_CODES). City from the id;
# city-centre coordinates. europe-01 names no city or country, so it has no coordinates.
REGIONS: dict[str, RegionInfo] = {r.region_id: r for r in (
    RegionInfo("india-chennai-01", "IN1", "Chennai", "IN", "Asia", 13.08, 80.27),
    RegionInfo("india-noida-01", "IN2", "Noida", "IN", "Asia", 28.54, 77.39),
    RegionInfo("europe-01", "EU1", "", "", "Europe", None, None),
)}
_BY_CODE = {r.code.lower(): r for r in REGIONS.values()}


def region_info(raw: str) -> RegionInfo | None:
    """The region for an id (``india-noida-01``) or a display code (``IN2``, any case); None when unknown."""
    text = raw.strip()
    return REGIONS.get(text) or _BY_CODE.get(text.lower())


@dataclass(frozen=True)
class Pool:
    """One GPU pool of ``server_meta``. Per-GPU figures as JarvisLabs publishes them.

    Attributes:
        price_per_gpu_hour: on-demand price per GPU-hour in the answer's currency.
        spot_per_gpu_hour: spot price per GPU-hour (containers only), or None.
        vram_gb: memory per GPU in GB as stated (``vram``), or None when absent.
        ceiling: the most GPUs one instance of this pool can have.
        free_gpus: GPUs free now (``effective_num_free_devices``, else ``num_free_devices``); None when the answer
            does not say (a reconstructed recording).
    """

    gpu_type: str
    region_id: str
    workload: str
    ceiling: int
    price_per_gpu_hour: Decimal
    spot_per_gpu_hour: Decimal | None
    vram_gb: float | None
    cpus_per_gpu: int
    ram_gb_per_gpu: int
    free_gpus: int | None
    free_spot_gpus: int | None


def _money(value: Any, field: str) -> Decimal:
    if isinstance(value, bool) or value is None or value == "":
        raise ValueError(f"{field} missing")
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"{field} is not a number: {value!r}") from None
    if not amount.is_finite():
        raise ValueError(f"{field} is not finite: {value!r}")
    return amount


def _whole(value: Any, field: str) -> int:
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{field} missing")
    number = float(value)
    if number != int(number) or number <= 0:
        raise ValueError(f"{field} must be a positive whole number, not {value!r}")
    return int(number)


def _count(value: Any) -> int | None:
    if value is None or value == "":
        return None
    return max(int(value), 0)


def parse_pool(entry: Mapping[str, Any]) -> Pool:
    """One ``server_meta`` entry as a :class:`Pool`.

    Raises:
        KeyError, TypeError, ValueError: a field is missing or malformed (no GPU type, a price that is not a
            number, a non-positive vCPU or RAM figure).
    """
    gpu_type = str(entry["gpu_type"] or "").strip()
    if not gpu_type:
        raise ValueError("gpu_type is empty")
    vram = entry.get("vram")
    vram_gb: float | None = None
    if vram not in (None, ""):
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(?:GB)?\s*", str(vram), re.I)
        if match is None:
            raise ValueError(f"vram is not a GB figure: {vram!r}")
        vram_gb = float(match.group(1))
    spot = entry.get("spot_price")
    return Pool(gpu_type=gpu_type, region_id=str(entry["region"] or "").strip(),
                workload=str(entry.get("workload_type") or "").strip(),
                ceiling=_whole(entry.get("num_gpus") or 1, "num_gpus"),
                price_per_gpu_hour=_money(entry.get("price_per_hour"), "price_per_hour"),
                spot_per_gpu_hour=_money(spot, "spot_price") if spot not in (None, "") else None,
                vram_gb=vram_gb, cpus_per_gpu=_whole(entry.get("cpus_per_gpu"), "cpus_per_gpu"),
                ram_gb_per_gpu=_whole(entry.get("ram_per_gpu"), "ram_per_gpu"),
                free_gpus=_count(entry["effective_num_free_devices"]) if entry.get("effective_num_free_devices")
                is not None else _count(entry.get("num_free_devices")),
                free_spot_gpus=_count(entry.get("num_free_devices")))


def server_meta_entries(body: Any) -> list[Any]:
    """The ``server_meta`` list of an answer.

    Raises:
        ValueError: the answer is not an object with a ``server_meta`` list.
    """
    if not isinstance(body, Mapping) or not isinstance(body.get("server_meta"), list):
        raise ValueError("expected an object with a 'server_meta' list")
    return list(body["server_meta"])


def cpu_plan_count(body: Mapping[str, Any]) -> int:
    """How many CPU-only VM plans x regions the answer lists (``cpu_meta.combinations``; not GPU offers)."""
    meta = body.get("cpu_meta")
    combos = meta.get("combinations") if isinstance(meta, Mapping) else None
    if not isinstance(combos, list):
        return 0
    return sum(max(len(c.get("regions") or {}), 1) if isinstance(c, Mapping) else 1 for c in combos)
