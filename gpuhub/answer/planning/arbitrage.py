"""Regional arbitrage made explicit: one instance type's (or one GPU's, at a number of GPUs per instance) price in
every region and provider, and what a move would save a month at the user's usage.

Each place's monthly cost = price per instance-hour × hours a month × instances (to the cent); the saving of a
move = the reference place's monthly cost − this place's. The reference is the place the user names (``from``),
else the dearest place. Over time (where the store has history), each place's min / median / max price in the
window gives the saving at the median as well, so a spread that lasted is told from one that did not.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from gpuhub.answer.planning.commit import money
from gpuhub.errors import QueryError
from gpuhub.model import Offer

__all__ = ["Arbitrage", "Place", "arbitrage"]


@dataclass(frozen=True)
class Place:
    """One provider region's cheapest offer, its cost a month at the usage, the saving of moving here from the
    reference (negative: dearer), and its price over the history window (None: no history)."""

    offer: Offer
    cost: Decimal
    saving: Decimal
    history: Mapping[str, Decimal | None] | None = None
    saving_at_median: Decimal | None = None

    @property
    def label(self) -> str:
        """``provider:region``."""
        return f"{self.offer.provider}:{self.offer.region.code}"


@dataclass
class Arbitrage:
    """Every place cheapest first, the reference place, the usage, and the spread (dearest − cheapest per hour)."""

    what: str
    purchase: str
    currency: str
    hours_per_month: Decimal
    instances: int
    places: list[Place]
    reference: Place
    how: list[str] = field(default_factory=list)

    @property
    def spread(self) -> Decimal:
        """Dearest minus cheapest price per instance-hour."""
        return self.places[-1].offer.price.amount - self.places[0].offer.price.amount

    @property
    def spread_fraction(self) -> float:
        """The spread relative to the cheapest price."""
        return float(self.spread / self.places[0].offer.price.amount)

    @property
    def best_saving(self) -> Decimal:
        """What moving from the reference to the cheapest place saves a month."""
        return self.places[0].saving


def arbitrage(offers: Iterable[Offer], what: str, hours_per_month: Decimal, instances: int, *,
              purchase: str = "on_demand", move_from: str | None = None, currency: str = "USD",
              history: Mapping[tuple[str, str, str], Mapping[str, Decimal | None]] | None = None) -> Arbitrage:
    """The price spread of ``offers`` (one instance type, or one GPU at one size) and each move's saving a month.

    Args:
        offers: the offers compared (filtered to ``purchase`` and ``currency`` here).
        what: the label of what is compared (an instance type, or "8 × H100").
        hours_per_month: hours each instance runs a month.
        instances: instances run.
        purchase: the purchase model compared (on_demand by default).
        move_from: the current place, ``provider:region`` or a region code; default the dearest place.
        history: ``(provider, region, instance_type)`` → ``{"min", "median", "max"}`` prices over a window.

    Raises:
        QueryError: (``instance_type``) no such offer; (``move_from``) the place is not among them.
    """
    pool = [o for o in offers if o.price.purchase == purchase and o.price.currency == currency]
    if not pool:
        raise QueryError("instance_type", f"no {purchase} {currency} offer of {what}")
    best: dict[tuple[str, str], Offer] = {}
    for o in sorted(pool, key=lambda o: (o.price.amount, o.instance_type, o.region.zone or "")):
        best.setdefault((o.provider, o.region.code), o)
    hours = Decimal(hours_per_month)

    def cost(amount: Decimal) -> Decimal:
        return money(amount * hours * instances)

    ordered = sorted(best.values(), key=lambda o: (o.price.amount, o.provider, o.region.code))
    if move_from is not None:
        wanted = move_from.lower()
        ref = next((o for o in ordered if f"{o.provider}:{o.region.code}".lower() == wanted), None) or next(
            (o for o in ordered if o.region.code.lower() == wanted), None)
        if ref is None:
            raise QueryError("from", f"{move_from!r} sells no {purchase} {what}; allowed: "
                             + ", ".join(f"{o.provider}:{o.region.code}" for o in ordered[:12])
                             + (" ..." if len(ordered) > 12 else ""))
    else:
        ref = ordered[-1]
    ref_cost = cost(ref.price.amount)
    ref_hist = history.get((ref.provider, ref.region.code, ref.instance_type)) if history else None
    ref_median = ref_hist.get("median") if ref_hist else None
    places = []
    for o in ordered:
        here = cost(o.price.amount)
        hist = history.get((o.provider, o.region.code, o.instance_type)) if history else None
        median = hist.get("median") if hist else None
        at_median = cost(ref_median) - cost(median) if median is not None and ref_median is not None else None
        places.append(Place(o, here, ref_cost - here, hist, at_median))
    reference = next(p for p in places if p.offer is ref)
    how = [f"cost a month = price/h × {hours:.2f} h × {instances} instance{'s' if instances != 1 else ''}",
           f"saving = {reference.label} {ref_cost} − the place's cost"]
    return Arbitrage(what, purchase, currency, hours, instances, places, reference, how)
