"""Pure parsing of Seeweb's ``GET /ecs/v2/plans`` answer (no I/O).

The answer (field names and types from Seeweb's ``ecsapi`` SDK models and its test payloads)::

    {"status": "ok", "plans": [{"id": 21, "name": "ECS1GPU", "cpu": "8", "ram": "32768", "disk": "500",
      "gpu": "1", "gpu_label": "RTX 6000", "hourly_price": 0.29, "montly_price": 209.0, "windows": false,
      "host_type": "ECSGPU", "available": true,
      "available_regions": [{"id": 3, "location": "it-fr2", "description": "Frosinone"}]}]}

``cpu``, ``ram`` (**MiB**), ``disk`` (GB) and ``gpu`` (a count) are strings; ``hourly_price`` is per plan-hour.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["REGIONS", "Plan", "RegionInfo", "parse_plan", "plan_items"]


@dataclass(frozen=True)
class RegionInfo:
    """A Seeweb region: its location code, the city the API describes it with, country and city-centre
    coordinates."""

    code: str
    city: str
    country: str
    lat: float
    lon: float


# Location codes and descriptions: the API's available_regions (ecsapi SDK test payloads); countries from the
# cities; city-centre coordinates.
REGIONS: dict[str, RegionInfo] = {r.code: r for r in (
    RegionInfo("it-fr2", "Frosinone", "IT", 41.64, 13.34),
    RegionInfo("it-mi2", "Milano", "IT", 45.46, 9.19),
    RegionInfo("ch-lug1", "Lugano", "CH", 46.00, 8.95),
    RegionInfo("bg-sof1", "Sofia", "BG", 42.70, 23.32),
)}


@dataclass(frozen=True)
class Plan:
    """One plan. ``memory_gib`` is ``ram`` MiB / 1024; ``gpu_count`` 0 for CPU plans."""

    name: str
    vcpus: float
    memory_gib: float
    disk_gb: float | None
    gpu_count: int
    gpu_label: str
    hourly_price: Decimal
    windows: bool
    available: bool | None
    regions: tuple[str, ...]


def _number(value: Any, field: str) -> float:
    if isinstance(value, bool) or value is None or value == "":
        raise ValueError(f"{field} missing")
    number = float(str(value))
    if number < 0 or number != number:
        raise ValueError(f"{field} must be a number >= 0, not {value!r}")
    return number


def parse_plan(item: Mapping[str, Any]) -> Plan:
    """One plan of the answer.

    Raises:
        KeyError, TypeError, ValueError: a field is missing or malformed (a price that is not a number, a GPU count
            that is not whole, a plan without regions).
    """
    name = str(item["name"] or "").strip()
    if not name:
        raise ValueError("name is empty")
    gpus = _number(item.get("gpu") or 0, "gpu")
    if gpus != int(gpus):
        raise ValueError(f"gpu must be a whole count, not {item.get('gpu')!r}")
    price = item["hourly_price"]
    if isinstance(price, bool):
        raise ValueError(f"hourly_price is not a number: {price!r}")
    try:
        amount = Decimal(str(price))
    except InvalidOperation:
        raise ValueError(f"hourly_price is not a number: {price!r}") from None
    if not amount.is_finite():
        raise ValueError(f"hourly_price is not finite: {price!r}")
    regions = tuple(str(r["location"]).strip() for r in item.get("available_regions") or [] if r.get("location"))
    disk = item.get("disk")
    available = item.get("available")
    return Plan(name=name, vcpus=_number(item["cpu"], "cpu"), memory_gib=_number(item["ram"], "ram") / 1024,
                disk_gb=_number(disk, "disk") if disk not in (None, "") else None, gpu_count=int(gpus),
                gpu_label=str(item.get("gpu_label") or "").strip(), hourly_price=amount,
                windows=bool(item.get("windows")), available=available if isinstance(available, bool) else None,
                regions=regions)


def plan_items(body: Any) -> list[Any]:
    """The ``plans`` list of an answer.

    Raises:
        ValueError: the answer is not ``{"status": "ok", "plans": [...]}``.
    """
    if not isinstance(body, Mapping) or not isinstance(body.get("plans"), list):
        raise ValueError("expected an object with a 'plans' list")
    if body.get("status") not in (None, "ok"):
        raise ValueError(f"status is {body.get('status')!r}, not 'ok'")
    return list(body["plans"])
