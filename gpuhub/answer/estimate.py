"""Job cost: what a job of N hours costs on an offer, with billing increments, minimum charges, spot
interruptions and reserved-term break-even; and the price spread of one instance type across regions.

Rules:
- Billed time = max(minimum charge, run time rounded up to the billing increment). Providers that do not publish
  an increment are billed per second here, and the estimate says so.
- Spot and low priority: with a published interruption risk on the offer (AWS Spot Instance Advisor bucket), run
  time grows by the expected re-run of lost work (:mod:`gpuhub.answer.cost`: bucket upper bound per month ×
  hours × (half the checkpoint interval + restart)); otherwise by ``interruption_overhead`` (a fraction, default
  0.10), and the notes say which.
- Reserved and savings-plan terms are paid for the whole term (``price per hour × term hours``) whatever the
  use; the job's share is ``price × hours``. Break-even against on-demand = term cost / on-demand price per hour:
  below that many hours of use in the term, on-demand is cheaper.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from gpuhub.display import given
from gpuhub.errors import QueryError
from gpuhub.facts._cost import AddedCost
from gpuhub.model import Offer

__all__ = ["JobCost", "PriceSpread", "estimate", "price_spread"]

INTERRUPTIBLE = ("spot", "low_priority")


@dataclass(frozen=True)
class JobCost:
    """The estimated cost of one job on one offer (money in ``currency``, exact)."""

    offer: Offer
    hours: float
    billed_seconds: Decimal
    billed_hours: Decimal
    cost: Decimal
    currency: str
    term_cost: Decimal | None = None
    break_even_hours: Decimal | None = None
    notes: list[str] = field(default_factory=list)
    egress_cost: Decimal | None = None
    """What moving the job's data out costs (``egress_gb`` given and a price known); included in ``cost``."""
    disk_cost: Decimal | None = None
    """What the attached disk costs for the billed hours (``disk_gib`` given and a price known); included in
    ``cost``."""

    def cost_rounded(self) -> Decimal:
        """The cost to the cent (half up)."""
        return self.cost.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def estimate(offer: Offer, hours: float, *, interruption_overhead: float = 0.10,
             on_demand: Offer | None = None, checkpoint_every_h: float | None = None,
             egress_gb: float | None = None, disk_gib: float | None = None) -> JobCost:
    """Estimate a job of ``hours`` hours of run time on ``offer``.

    Args:
        offer: the offer to run on.
        hours: run time the job needs, hours (> 0).
        interruption_overhead: for spot/low priority whose interruption risk is unknown, extra run time as a
            fraction (0.10 = 10 % redone). With a known risk (``offer.obtain.risk``) the expected re-run of
            :func:`gpuhub.answer.cost.expected_interruptions` is used instead, and the notes show the arithmetic.
        checkpoint_every_h: hours between checkpoints for that expected re-run (default 1).
        on_demand: the on-demand offer for the same instance type and region, for a reserved term's break-even.
        egress_gb: data the job moves out to the internet, GB: its cost (:mod:`gpuhub.facts.egress`, with its
            source in the notes) is added to ``cost`` when the provider's price is known, else a note says so.
        disk_gib: attached block storage the job keeps for its billed hours, GiB: its cost
            (:mod:`gpuhub.facts.disk`, per GB-month × hours / 730, with its source in the notes) is added to
            ``cost`` when the provider's price is known, else a note says so.

    Raises:
        QueryError: ``hours`` not positive and finite, ``interruption_overhead`` not in [0, 10], or ``egress_gb``
            or ``disk_gib`` negative or not finite.
    """
    for name, value, unit in (("egress_gb", egress_gb, "GB"), ("disk_gib", disk_gib, "GiB")):
        if value is not None and not (isinstance(value, (int, float)) and not isinstance(value, bool)
                                      and math.isfinite(value) and 0 <= value <= 1e12):
            raise QueryError(name, f"must be a number of {unit}, 0 or more, got {given(value)}")
    if not (isinstance(hours, (int, float)) and math.isfinite(hours) and hours > 0):
        raise QueryError("hours", f"must be a positive number of hours, got {given(hours)}")
    if not (0 <= interruption_overhead <= 10):
        raise QueryError("interruption_overhead",
                         f"must be a fraction from 0 to 10, got {given(interruption_overhead)}")
    price = offer.price
    notes: list[str] = []
    run_s = Decimal(str(hours)) * 3600
    risk = offer.obtain.risk if offer.obtain is not None else None
    if price.purchase in INTERRUPTIBLE and risk is not None and risk.max_pct is not None:
        from gpuhub.answer.cost import expected_interruptions

        lost = expected_interruptions(risk, float(hours), checkpoint_every_h or 1.0)
        run_s += Decimal(str(lost.extra_hours)) * 3600
        notes.append(f"{price.purchase} expected cost: {lost.explanation}")
    elif price.purchase in INTERRUPTIBLE:
        run_s *= 1 + Decimal(str(interruption_overhead))
        notes.append(f"{price.purchase}: +{interruption_overhead:.0%} run time for work redone after reclaims")
    increment = price.billing_increment_s
    if increment is None:
        increment = 1
        notes.append("billing increment not published: assumed per second")
    billed_s = Decimal(math.ceil(run_s / increment)) * increment
    if price.minimum_charge_s and billed_s < price.minimum_charge_s:
        billed_s = Decimal(price.minimum_charge_s)
        notes.append(f"minimum charge of {price.minimum_charge_s} s applies")
    billed_hours = billed_s / 3600
    cost = price.amount * billed_hours
    term_cost = break_even = None
    if price.term_hours:
        term_cost = price.amount * price.term_hours
        notes.append(f"the term commits {term_cost:.2f} {price.currency} over {price.term_hours} h whatever the use")
        if on_demand is not None and on_demand.price.currency == price.currency:
            break_even = term_cost / on_demand.price.amount
            notes.append(f"on-demand is cheaper below {break_even:.0f} h of use in the term "
                         f"({break_even / price.term_hours:.0%} utilization)")
    egress = disk = None
    if egress_gb is not None:
        from gpuhub.facts.egress import egress_cost

        egress = _added(egress_cost(offer.provider, offer.region.code, egress_gb), price.currency, notes,
                        f"no published egress price known for {offer.provider} in this region: {egress_gb:g} GB out "
                        "not priced")
    if disk_gib is not None:
        from gpuhub.facts.disk import disk_cost

        disk = _added(disk_cost(offer.provider, offer.region.code, disk_gib, billed_hours), price.currency, notes,
                      f"no published attached-disk price known for {offer.provider} in this region: "
                      f"{disk_gib:g} GiB of disk not priced")
    cost += (egress or 0) + (disk or 0)
    return JobCost(offer, float(hours), billed_s, billed_hours, cost, price.currency, term_cost, break_even, notes,
                   egress, disk)


def _added(found: AddedCost | None, currency: str, notes: list[str], missing: str) -> Decimal | None:
    """The cost to add for an egress or disk figure (its note appended), or None: no price known (``missing`` is
    the note) or priced in another currency than the offer's (said, not added)."""
    if found is None:
        notes.append(missing)
        return None
    if found.currency != currency:
        notes.append(f"{found.note}; not added: priced in {found.currency}, the offer in {currency}")
        return None
    notes.append(found.note)
    return found.cost


@dataclass(frozen=True)
class PriceSpread:
    """One instance type's price across regions for one purchase model: cheapest first."""

    instance_type: str
    purchase: str
    currency: str
    offers: list[Offer]

    @property
    def cheapest(self) -> Offer:
        """The offer with the lowest price per hour (first of :attr:`offers`)."""
        return self.offers[0]

    @property
    def dearest(self) -> Offer:
        """The offer with the highest price per hour (last of :attr:`offers`)."""
        return self.offers[-1]

    @property
    def spread(self) -> Decimal:
        """Dearest minus cheapest price per hour."""
        return self.dearest.price.amount - self.cheapest.price.amount

    @property
    def spread_fraction(self) -> float:
        """Spread relative to the cheapest price (0.25 = the dearest region costs 25 % more)."""
        return float(self.spread / self.cheapest.price.amount)


def price_spread(offers: Iterable[Offer], instance_type: str, purchase: str = "on_demand",
                 provider: str | None = None) -> PriceSpread:
    """Regional arbitrage: ``instance_type``'s price in every region of the given offers (USD unless the type is
    only sold in another currency; currencies are never mixed).

    Raises:
        QueryError: no offer of that instance type and purchase model.
    """
    matching = [o for o in offers if o.instance_type == instance_type and o.price.purchase == purchase
                and (provider is None or o.provider == provider)]
    if not matching:
        raise QueryError("instance_type", f"no {purchase} offer of {instance_type!r}"
                         + (f" from {provider}" if provider else ""))
    currency = "USD" if any(o.price.currency == "USD" for o in matching) else matching[0].price.currency
    same = sorted((o for o in matching if o.price.currency == currency),
                  key=lambda o: (o.price.amount, o.provider, o.region.code))
    return PriceSpread(instance_type, purchase, currency, same)
