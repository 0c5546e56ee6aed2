"""Attached block storage (a volume beside the instance): the published price per GB-month or GB-hour, by provider and
region.

Source: ``gpuhub/data/disk.csv``, one row per provider and region (``*``: every region of the provider), each with
the storage product it prices (``kind``: EBS gp3, a pod's volume, CoreWeave's distributed file storage, Hyperstack's
Cloud-SSD volume), its unit (GB = 10^9 bytes or GiB = 2^30 bytes, as the provider writes it), its period (``month``
or ``hour``, as published), its date and the page it comes from. A provider or region without a row has no known
price, and an estimate says so instead of guessing (Lambda gives its filesystem rate only as an example that "might
not reflect current pricing": no row).

A job pays for the disk while it runs: ``GiB × (1.073741824 GB per GiB where priced per GB) × price per month ×
hours / 730`` (a month of 730 hours, 8,760 / 12, as Nebius's pricing documentation prices storage: "1 GiB per 730
hours"), or ``... × price per hour × hours`` for an hourly price.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from gpuhub.display import published
from gpuhub.facts._cost import AddedCost, regional
from gpuhub.facts._data import read_csv

__all__ = ["GB_PER_GIB", "HOURS_PER_MONTH", "DiskCost", "DiskPrice", "disk_cost", "disk_price"]

HOURS_PER_MONTH = Decimal(730)
"""Hours in the month a per-month storage price covers (8,760 / 12)."""
GB_PER_GIB = Decimal(2**30) / Decimal(10**9)
"""GB (10^9 bytes) in one GiB (2^30 bytes): 1.073741824."""


@dataclass(frozen=True)
class DiskPrice:
    """Attached storage: ``price`` in ``currency`` per ``unit`` (``GB`` or ``GiB``) and ``period`` (``month`` or
    ``hour``), the product it prices (``kind``), the date of the figure (ISO; empty when the source has none), a short
    label and the full source."""

    provider: str
    region: str
    price: Decimal
    currency: str
    unit: str
    period: str
    kind: str
    date: str
    label: str
    """A short name of the source, for notes."""
    source: str


@dataclass(frozen=True)
class DiskCost(AddedCost):
    """What ``quantity`` GiB attached for ``hours`` hours costs: ``cost`` (exact, in ``currency``) and the
    arithmetic as text."""

    hours: Decimal


@lru_cache(maxsize=1)
def _table() -> dict[tuple[str, str], DiskPrice]:
    return {(r["provider"], r["region"]): DiskPrice(
        r["provider"], r["region"], Decimal(r["price"]), r["currency"], r["unit"], r["period"], r["kind"], r["date"],
        r["label"], r["source"]) for r in read_csv("disk.csv")}


def disk_price(provider: str, region: str) -> DiskPrice | None:
    """The attached-disk price of ``provider`` in ``region`` (a provider-wide row when the region has none), or
    None."""
    return regional(_table(), provider, region)


def disk_cost(provider: str, region: str, gib: float, hours: Decimal) -> DiskCost | None:
    """The cost of ``gib`` GiB (>= 0) of attached storage for ``hours`` hours (the job's billed hours) in
    ``provider``'s ``region``, or None when no price is known."""
    price = disk_price(provider, region)
    if price is None:
        return None
    amount = Decimal(str(gib))
    size = amount * GB_PER_GIB if price.unit == "GB" else amount
    monthly = price.period == "month"
    cost = size * price.price * hours / (HOURS_PER_MONTH if monthly else 1)
    where = "" if price.region == "*" else f" in {price.region}"
    size_text = (f"{format(amount.normalize(), 'f')} GiB = {size:.1f} GB" if price.unit == "GB"
                 else f"{format(amount.normalize(), 'f')} GiB")
    per_month = f" / {HOURS_PER_MONTH} h" if monthly else ""
    note = (f"disk {size_text} × {published(price.price)} {price.currency}/{price.unit}-{price.period} × "
            f"{float(hours):g} h{per_month} = {cost:.2f} {price.currency} ({price.kind}, "
            f"{price.provider}{where}, {price.label}, {price.date or 'undated'})")
    return DiskCost(amount, cost, price.currency, note, hours)
