"""One instance type's purchase options for a job, cheapest first, with break-even hours against on-demand.

For a job of ``hours`` run hours, each purchase model's cheapest offer (over the regions and zones given):

- ``on_demand``: price × billed hours (billing increment, minimum charge: :func:`gpuhub.answer.estimate.estimate`);
- ``spot`` / ``low_priority``: the expected cost, interruptions included (:mod:`gpuhub.answer.cost`);
- ``flex_start``: billed per use like on-demand, in runs of at most its window (7 days on GCP);
- ``capacity_block``, ``calendar`` (a fixed window bought ahead): enough windows to hold the job,
  each at its total price; break-even = window cost / on-demand price per hour (below that many hours of use,
  on-demand is cheaper);
- reserved terms and savings plans: the whole term's commitment (it is owed whatever the use), its job share in
  the notes; break-even = term cost / on-demand price per hour.

Options in other currencies than the on-demand reference are listed after it, never compared.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from gpuhub.answer.cost import expected_interruptions
from gpuhub.answer.estimate import INTERRUPTIBLE, estimate
from gpuhub.display import given
from gpuhub.errors import QueryError
from gpuhub.model import Offer
from gpuhub.purchase import CAPACITY_PURCHASES

__all__ = ["Option", "compare"]


@dataclass(frozen=True)
class Option:
    """One way to buy the job: the offer, what the job costs on it (expected, for interruptible capacity), and the
    hours of use above which it beats on-demand (None: no on-demand reference, or it is not a commitment)."""

    offer: Offer
    cost: Decimal
    currency: str
    break_even_hours: Decimal | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def purchase(self) -> str:
        """The offer's purchase model (``on_demand``, ``spot``, ``reserved_1y``, ...)."""
        return self.offer.price.purchase

    def cost_rounded(self) -> Decimal:
        """The cost to the cent (half up)."""
        return self.cost.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def _g(value: Decimal) -> str:
    """A price as published, without trailing zeros (55.0400000000 -> 55.04)."""
    text = format(value.normalize(), "f")
    return text


def _window(offer: Offer, hours: float, on_demand: Offer | None) -> Option:
    price = offer.price
    res = offer.obtain.reservation if offer.obtain else None
    duration = res.duration_hours if res else float(price.term_hours or 0)
    per_window = (res.total / res.instance_count) if res else price.amount * (price.term_hours or 0)
    windows = max(1, math.ceil(hours / duration - 1e-9))
    cost = per_window * windows
    start = f" from {res.start:%Y-%m-%d %H:%M} UTC" if res and res.start else ""
    notes = [f"{windows} × {duration:g} h block{start} at {per_window:.2f} {price.currency} "
             f"= {cost:.2f} ({price.amount:.4f}/h × {windows * duration:g} h)"]
    if windows * duration > hours:
        notes.append(f"{windows * duration - hours:g} h of the window unused")
    return _against(offer, cost, notes, on_demand)


def _flex(offer: Offer, hours: float) -> Option:
    res = offer.obtain.reservation if offer.obtain else None
    job = estimate(offer, hours)
    notes = [f"{_g(offer.price.amount)} × {float(job.billed_hours):g} h billed for the time used"]
    if res is not None:
        runs = max(1, math.ceil(hours / res.duration_hours - 1e-9))
        notes.append(f"{runs} request{'s' if runs > 1 else ''} of at most {res.duration_hours:g} h"
                     + (f" (checkpoint between runs); {res.note}" if runs > 1 else f"; {res.note}"))
    return Option(offer, job.cost, job.currency, None, notes)


def _term(offer: Offer, hours: float, on_demand: Offer | None) -> Option:
    price = offer.price
    term = price.amount * (price.term_hours or 0)
    notes = [f"{price.term_hours} h term commits {term:.2f} {price.currency} whatever the use; this job's share "
             f"{price.amount:.4f} × {hours:g} h = {price.amount * Decimal(str(hours)):.2f}"]
    return _against(offer, term, notes, on_demand)


def _against(offer: Offer, cost: Decimal, notes: list[str], on_demand: Offer | None) -> Option:
    even = None
    if on_demand is not None and on_demand.price.currency == offer.price.currency:
        even = cost / on_demand.price.amount
        notes.append(f"beats on-demand above {even:.1f} h of use ({cost:.2f} / {_g(on_demand.price.amount)} per h)")
    return Option(offer, cost, offer.price.currency, even, notes)


def _spot(offer: Offer, hours: float, checkpoint_every_h: float, fallback: float) -> Option:
    risk = offer.obtain.risk if offer.obtain else None
    lost = expected_interruptions(risk, hours, checkpoint_every_h, fallback)
    # estimate() adds the same expected re-run (a known bucket) or the fallback fraction (unknown): once
    job = estimate(offer, hours, interruption_overhead=fallback, checkpoint_every_h=checkpoint_every_h)
    notes = [lost.explanation, f"expected {_g(offer.price.amount)} × {float(job.billed_hours):.3f} h = {job.cost:.2f}"]
    return Option(offer, job.cost, job.currency, None, notes)


def compare(offers: Iterable[Offer], hours: float, *, checkpoint_every_h: float = 1.0,
            fallback_overhead: float = 0.10) -> list[Option]:
    """The cheapest option of each purchase model for a job of ``hours`` run hours, cheapest first.

    Args:
        offers: offers of one instance type (any regions, zones, purchase models).
        hours: run time the job needs, hours (> 0).
        checkpoint_every_h: hours between checkpoints (spot expected cost).
        fallback_overhead: spot run-time fraction when the interruption risk is unknown.

    Raises:
        QueryError: ``hours`` or ``checkpoint_every_h`` not positive, or no offers.
    """
    if not (math.isfinite(hours) and hours > 0):
        raise QueryError("hours", f"must be a positive number of hours, got {given(hours)}")
    if not (math.isfinite(checkpoint_every_h) and checkpoint_every_h > 0):
        raise QueryError("checkpoint_every", f"must be a positive number of hours, got {given(checkpoint_every_h)}")
    offers = list(offers)
    if not offers:
        raise QueryError("instance_type", "no offers to compare")
    on_demand_by_place = {(o.provider, o.region.code): o for o in sorted(
        (o for o in offers if o.price.purchase == "on_demand"), key=lambda o: o.price.amount, reverse=True)}
    options: list[Option] = []
    for offer in offers:
        purchase = offer.price.purchase
        reference = on_demand_by_place.get((offer.provider, offer.region.code))
        if purchase == "on_demand":
            job = estimate(offer, hours)
            options.append(Option(offer, job.cost, job.currency, None,
                                  [f"{_g(offer.price.amount)} × {float(job.billed_hours):g} h billed", *job.notes]))
        elif purchase in INTERRUPTIBLE:
            options.append(_spot(offer, hours, checkpoint_every_h, fallback_overhead))
        elif purchase == "flex_start":  # billed per use like on-demand, in runs of at most the window
            options.append(_flex(offer, hours))
        elif purchase in CAPACITY_PURCHASES:
            options.append(_window(offer, hours, reference))
        elif offer.price.term_hours:
            options.append(_term(offer, hours, reference))
    best: dict[tuple[str, str], Option] = {}
    for option in options:
        key = (option.purchase, option.currency)
        if key not in best or (option.cost, option.offer.region.code) < (best[key].cost, best[key].offer.region.code):
            best[key] = option
    usd_first = sorted(best.values(), key=lambda o: (o.currency != "USD", o.currency, o.cost, o.purchase))
    return usd_first
