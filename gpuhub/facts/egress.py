"""Data transfer out to the internet (egress): the published price per GB, by provider and region.

Source: ``gpuhub/data/egress.csv``, one row per provider and region (``*``: every region of the provider), each
with its date and the page it comes from. Only the first paid tier is carried (the tier a job of up to 10 TB a
month pays); a provider or region without a row has no known egress price, and an estimate says so instead of
guessing. A free allowance (AWS: 100 GB a month) is per account and month, shared by every service and region, so
an estimate subtracts it only when told the job has it to itself (``free_allowance=True``).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from gpuhub.display import money
from gpuhub.facts._cost import AddedCost, regional
from gpuhub.facts._data import read_csv

__all__ = ["EgressCost", "EgressPrice", "egress_cost", "egress_price"]


@dataclass(frozen=True)
class EgressPrice:
    """Egress to the internet: ``price_per_gb`` in ``currency`` per GB (first paid tier), the monthly free
    allowance in GB (None: none published), the date of the figure (ISO; empty when the source has none), a short
    label and the full source."""

    provider: str
    region: str
    price_per_gb: Decimal
    currency: str
    free_gb_per_month: Decimal | None
    date: str
    label: str
    """A short name of the source, for notes."""
    source: str


@dataclass(frozen=True)
class EgressCost(AddedCost):
    """What moving ``quantity`` GB out costs: ``cost`` (exact, in ``currency``) and the arithmetic as text."""


@lru_cache(maxsize=1)
def _table() -> dict[tuple[str, str], EgressPrice]:
    rows = read_csv("egress.csv")
    return {(r["provider"], r["region"]): EgressPrice(
        r["provider"], r["region"], Decimal(r["price_per_gb"]), r["currency"],
        Decimal(r["free_gb_per_month"]) if r["free_gb_per_month"] else None, r["date"], r["label"],
        r["source"])
        for r in rows}


def egress_price(provider: str, region: str) -> EgressPrice | None:
    """The egress price of ``provider`` in ``region`` (a provider-wide row when the region has none), or None."""
    return regional(_table(), provider, region)


def egress_cost(provider: str, region: str, gb: float, *, free_allowance: bool = False) -> EgressCost | None:
    """The cost of moving ``gb`` GB (>= 0) out of ``provider``'s ``region`` to the internet, or None when no price
    is known. With ``free_allowance`` the provider's monthly free GB are subtracted first."""
    price = egress_price(provider, region)
    if price is None:
        return None
    amount = Decimal(str(gb))
    billed = amount
    free = ""
    if free_allowance and price.free_gb_per_month:
        billed = max(Decimal(0), amount - price.free_gb_per_month)
        free = f" after the {price.free_gb_per_month:g} GB monthly free allowance"
    elif price.free_gb_per_month:
        free = f" (the account's {price.free_gb_per_month:g} GB monthly free allowance not subtracted)"
    cost = billed * price.price_per_gb
    where = "" if price.region == "*" else f" in {price.region}"
    note = (f"egress {format(amount.normalize(), 'f')} GB{free} × {money(price.price_per_gb)} {price.currency}/GB = "
            f"{cost:.2f} {price.currency} ({price.provider}{where}, {price.label}, {price.date or 'undated'})")
    return EgressCost(amount, cost, price.currency, note)

