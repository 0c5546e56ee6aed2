"""Pure parsing of Mithril's API v2 answers (no I/O).

Shapes (SkyPilot's ``fetch_mithril.py``, which reads the same endpoints):

* ``GET /v2/instance-types``: a list of ``{"fid": "it_...", "name": "h100-80gb.sxm.8x", "gpu_type": "H100",
  "num_gpus": 8, "gpu_memory_gb": 80, "num_cpus": 168, "ram_gb": 1814}``;
* ``GET /v2/pricing/current?instance_type=<fid>``: ``{"minimum_price_cents": 800}`` - the lowest price per
  instance-hour the spot auction accepts now, in US cents;
* ``GET /v2/spot/availability``: a list of ``{"instance_type": "<fid>", "region": "us-central2-a",
  "last_instance_price": "$8.00"}`` - the regions with spot capacity and the last price an instance paid there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["Availability", "InstanceType", "minimum_price_usd", "parse_availability", "parse_instance_type",
           "usd_text"]


@dataclass(frozen=True)
class InstanceType:
    """One Mithril instance type. ``gpu_memory_gb`` is per GPU as stated; ``ram_gb`` is host RAM."""

    fid: str
    name: str
    gpu_type: str
    num_gpus: int
    gpu_memory_gb: float | None
    num_cpus: float | None
    ram_gb: float | None


@dataclass(frozen=True)
class Availability:
    """A region with spot capacity for an instance type; ``last_price`` in USD per instance-hour, None when absent."""

    fid: str
    region: str
    last_price: Decimal | None


def _whole(value: Any, field: str) -> int:
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{field} missing")
    number = float(value)
    if number != int(number) or number < 0:
        raise ValueError(f"{field} must be a whole number >= 0, not {value!r}")
    return int(number)


def _size(value: Any) -> float | None:
    if value is None or value == "":
        return None
    number = float(value)
    if not number > 0:
        raise ValueError(f"bad size {value!r}")
    return number


def parse_instance_type(item: Mapping[str, Any]) -> InstanceType:
    """One ``/v2/instance-types`` item.

    Raises:
        KeyError, TypeError, ValueError: a field is missing or malformed.
    """
    fid, name = str(item["fid"] or "").strip(), str(item["name"] or "").strip()
    if not fid or not name:
        raise ValueError("fid or name is empty")
    return InstanceType(fid=fid, name=name, gpu_type=str(item.get("gpu_type") or "").strip(),
                        num_gpus=_whole(item.get("num_gpus") or 0, "num_gpus"),
                        gpu_memory_gb=_size(item.get("gpu_memory_gb")), num_cpus=_size(item.get("num_cpus")),
                        ram_gb=_size(item.get("ram_gb")))


_USD = re.compile(r"^\s*\$?\s*(\d+(?:\.\d+)?)\s*$")


def usd_text(text: Any) -> Decimal:
    """A dollar amount written as text (``"$8.00"``, ``"8"``), exact.

    Raises:
        ValueError: not a dollar amount.
    """
    match = _USD.match(str(text))
    if match is None:
        raise ValueError(f"not a dollar amount: {text!r}")
    return Decimal(match.group(1))


def minimum_price_usd(body: Any) -> Decimal:
    """``minimum_price_cents`` of a ``/v2/pricing/current`` answer, in USD.

    Raises:
        KeyError, TypeError, ValueError: the field is missing or not a number of cents.
    """
    if not isinstance(body, Mapping):
        raise TypeError("pricing answer is not an object")
    cents = body["minimum_price_cents"]
    if isinstance(cents, bool):
        raise ValueError(f"minimum_price_cents is not a number: {cents!r}")
    try:
        return Decimal(str(cents)) / 100
    except InvalidOperation:
        raise ValueError(f"minimum_price_cents is not a number: {cents!r}") from None


def parse_availability(item: Mapping[str, Any]) -> Availability:
    """One ``/v2/spot/availability`` record.

    Raises:
        KeyError, TypeError, ValueError: a field is missing or malformed.
    """
    fid, region = str(item["instance_type"] or "").strip(), str(item["region"] or "").strip()
    if not fid or not region:
        raise ValueError("instance_type or region is empty")
    last = item.get("last_instance_price")
    return Availability(fid=fid, region=region, last_price=usd_text(last) if last not in (None, "") else None)
