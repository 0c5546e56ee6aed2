"""Commitment planning: the cheapest mix of purchase models for a usage profile over months.

The profile (:class:`~gpuhub.answer.planning.usage.Profile`) is turned into whole instances of
``gpus_per_instance`` GPUs per quarter hour, then into *levels*: level k is the k-th instance, needed in every
slot where at least k are; its use is ``u_k`` hours a month (slots × 0.25 h × 730/168 weeks). Each level is
bought the cheapest way, independently (every cost below is linear in one instance, so the per-level choice is
the optimum of the whole mix):

- ``on_demand``, ``flex_start``: ``price × u`` (billed for the time used);
- ``spot``, ``low_priority``: ``price × (u + expected re-run)``, the re-run from the offer's interruption
  bucket (:func:`gpuhub.answer.cost.expected_interruptions`) or a flat fallback fraction where the risk is not
  published; only for interruptible work (``interruptible=True``), shown as an alternative otherwise;
- ``capacity_block``: one window per day (24 h windows), week (168 h) or fortnight (336 h) in which the level is
  used, each at the window's price; 730/168 weeks a month;
- reserved terms and savings plans: the whole term is owed whatever the use. Over a plan of ``M`` months, ``n =
  ceil(M / term months)`` terms are bought: ``price × term hours × n / M`` a month (a 1-year term in a 6-month plan
  costs twice its run rate a month). Upfront parts are added the same way.

Break-even of a term against a per-use model: ``u* = term cost a month / per-use price an hour``; above ``u*``
hours a month the term is cheaper. Money is exact; every monthly figure is rounded to the cent (half up) once, and
totals are the sums of the rounded parts.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from gpuhub.answer.cost import expected_interruptions
from gpuhub.answer.planning.usage import HOURS_PER_MONTH, SLOTS_PER_HOUR, WEEKS_PER_MONTH, Profile
from gpuhub.errors import QueryError
from gpuhub.model import Offer

__all__ = ["PER_USE", "TERMS", "Alternative", "BreakEven", "CommitPlan", "Level", "Part", "money", "plan_commitments"]

PER_USE = ("on_demand", "flex_start")
INTERRUPTIBLE = ("spot", "low_priority")
TERMS = ("reserved_1y", "reserved_3y", "savings_plan_1y", "savings_plan_3y")
CENT = Decimal("0.01")


def money(value: Decimal) -> Decimal:
    """To the cent, half up."""
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def _g(value: Decimal | float) -> str:
    """A number without trailing zeros (55.0400 -> 55.04)."""
    text = format(Decimal(str(value)).normalize(), "f")
    return text


def _h(value: Decimal) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class Level:
    """The k-th instance of the plan: the hours a month it is used, how it is bought and its cost a month."""

    level: int
    hours_per_month: Decimal
    purchase: str
    offer: Offer
    cost: Decimal
    how: str


@dataclass(frozen=True)
class Part:
    """Instances bought one way (one offer): how many, their hours a month in all, and their cost a month."""

    purchase: str
    offer: Offer
    instances: int
    hours_per_month: Decimal
    cost: Decimal


@dataclass(frozen=True)
class Alternative:
    """Every instance bought one way (the cheapest offer of that purchase model for each level)."""

    purchase: str
    offer: Offer
    cost: Decimal
    how: str
    in_mix: bool = True
    """False for interruptible capacity when the work is not interruptible (shown, never chosen)."""


@dataclass(frozen=True)
class BreakEven:
    """Hours of use a month at which ``term`` (a commitment) costs what ``against`` (a per-use model) does."""

    term: str
    against: str
    hours_per_month: Decimal
    cost: Decimal
    how: str

    @property
    def utilization(self) -> Decimal:
        """``hours_per_month`` as a share of the 730-hour month."""
        return self.hours_per_month / HOURS_PER_MONTH


@dataclass
class CommitPlan:
    """The cheapest mix for a profile: its levels, parts, total a month, the alternatives, break-evens and what
    the plan assumes (``unpriced``: each term or capacity model that some provider of the market has no price
    for, with those providers, or ``[]`` when none has one; ``priced``: who has a price for it)."""

    profile: Profile
    gpus_per_instance: float
    currency: str
    levels: list[Level]
    alternatives: list[Alternative]
    break_evens: list[BreakEven]
    assumptions: list[str] = field(default_factory=list)
    unpriced: dict[str, list[str]] = field(default_factory=dict)
    priced: dict[str, list[str]] = field(default_factory=dict)

    @property
    def parts(self) -> list[Part]:
        """The levels grouped by purchase model and offer, dearest part first."""
        groups: dict[tuple[str, int], list[Level]] = {}
        for level in self.levels:
            groups.setdefault((level.purchase, id(level.offer)), []).append(level)
        parts = [Part(ls[0].purchase, ls[0].offer, len(ls), sum((x.hours_per_month for x in ls), Decimal(0)),
                      sum((x.cost for x in ls), Decimal(0))) for ls in groups.values()]
        return sorted(parts, key=lambda p: (-p.cost, p.purchase))

    @property
    def total(self) -> Decimal:
        """Cost a month of the mix: the sum of its parts (each to the cent)."""
        return sum((p.cost for p in self.parts), Decimal(0))

    @property
    def instances(self) -> int:
        """Instances at the peak (one per level)."""
        return len(self.levels)


def _level_hours(profile: Profile, gpus_per_instance: float) -> list[tuple[Decimal, int]]:
    """For each level: hours a month used, and on how many days of the week it is used."""
    counts = profile.instances(gpus_per_instance)
    out = []
    for k in range(1, max(counts) + 1):
        used = [c >= k for c in counts]
        slots = sum(used)
        day_slots = 24 * SLOTS_PER_HOUR
        days = sum(1 for d in range(7) if any(used[d * day_slots:(d + 1) * day_slots]))
        hours = Decimal(slots) / SLOTS_PER_HOUR * WEEKS_PER_MONTH
        out.append((hours, days))
    return out


def _window(offer: Offer) -> tuple[float, Decimal]:
    """A capacity block's window (hours) and its price for one instance."""
    res = offer.obtain.reservation if offer.obtain else None
    if res is not None and res.instance_count:
        return res.duration_hours, res.total / res.instance_count
    hours = float(offer.price.term_hours or 24)
    return hours, offer.price.amount * Decimal(str(hours))


def _cost(offer: Offer, hours: Decimal, days: int, months: int, checkpoint_every_h: float,
          fallback: float) -> tuple[Decimal, str] | None:
    """One instance's cost a month on ``offer`` when used ``hours`` a month on ``days`` days a week."""
    price = offer.price
    p = price.amount
    purchase = price.purchase
    if purchase in PER_USE:
        return p * hours, f"{_g(p)}/h × {_h(hours)} h"
    if purchase in INTERRUPTIBLE:
        risk = offer.obtain.risk if offer.obtain else None
        lost = expected_interruptions(risk, float(hours), checkpoint_every_h, fallback)
        extra = Decimal(str(round(lost.extra_hours, 6)))
        return p * (hours + extra), (f"{_g(p)}/h × ({_h(hours)} h + {_g(round(extra, 3))} h expected re-run "
                                     f"[{lost.explanation}])")
    if purchase == "capacity_block":
        window, per_window = _window(offer)
        if window <= 24:
            per_month = Decimal(days) * WEEKS_PER_MONTH
            unit = f"{days} day{'s' if days != 1 else ''} a week × 730/168 weeks"
        else:
            per_month = HOURS_PER_MONTH / Decimal(str(window))
            unit = f"730 h / {window:g} h"
        if window < 24:
            return None
        return per_window * per_month, f"{_g(money(per_window))} per {window:g} h window × {unit}"
    if price.term_hours:
        term_months = Decimal(price.term_hours) / HOURS_PER_MONTH
        terms = math.ceil(Decimal(months) / term_months - Decimal("1e-9"))
        owed = p * price.term_hours + (price.upfront or 0)
        upfront = f" + {_g(price.upfront)} upfront" if price.upfront else ""
        return owed * terms / months, (f"{_g(p)}/h × {price.term_hours} h{upfront} = {money(owed)} a term × "
                                       f"{terms} term{'s' if terms > 1 else ''} / {months} months, whatever the use")
    return None


def plan_commitments(offers: Iterable[Offer], profile: Profile, gpus_per_instance: float, *,
                     interruptible: bool = False, checkpoint_every_h: float = 1.0,
                     fallback_overhead: float = 0.10, currency: str = "USD",
                     market: Sequence[str] = ()) -> CommitPlan:
    """The cheapest mix of purchase models for ``profile`` on instances of ``gpus_per_instance`` GPUs.

    Args:
        offers: the covered market: offers of the GPU (any provider, region and purchase model); those with
            another GPU count per instance, or another currency than ``currency``, are left out.
        profile: GPUs needed per quarter hour of the week, and the months planned.
        gpus_per_instance: GPUs per instance (whole instances are bought: 12 GPUs on 8-GPU instances are 2).
        interruptible: whether spot / low-priority capacity may serve the work (at its expected cost).
        checkpoint_every_h: hours between checkpoints (spot expected re-run).
        fallback_overhead: spot re-run fraction where the interruption risk is not published.
        currency: the currency compared (offers in others are never mixed in).
        market: providers of the covered market, for the purchase models that have no price source.

    Raises:
        QueryError: (``gpus``) no offer of that size; (``gpus_per_instance``) not positive.
    """
    if not (gpus_per_instance > 0 and math.isfinite(gpus_per_instance)):
        raise QueryError("gpus_per_instance", f"must be a number above 0, got {gpus_per_instance!r}")
    pool = [o for o in offers if o.gpu_count == gpus_per_instance and o.price.currency == currency]
    if not pool:
        raise QueryError("gpus", f"no {currency} offer with {gpus_per_instance:g} GPUs per instance in the market")
    levels_in = _level_hours(profile, gpus_per_instance)
    chosen: list[Level] = []
    by_purchase: dict[str, list[tuple[Decimal, Offer, str]]] = {p: [] for p in sorted({o.price.purchase
                                                                                        for o in pool})}
    memo: dict[tuple[Decimal, int], dict[str, tuple[Decimal, Offer, str]]] = {}
    for k, (hours, days) in enumerate(levels_in, 1):
        key = (hours, days)
        if key not in memo:
            best: dict[str, tuple[Decimal, Offer, str]] = {}
            for offer in pool:
                priced = _cost(offer, hours, days, profile.months, checkpoint_every_h, fallback_overhead)
                if priced is None:
                    continue
                cost, how = priced
                purchase = offer.price.purchase
                rank = (cost, offer.provider, offer.region.code, offer.region.zone or "")
                if purchase not in best or rank < (best[purchase][0], best[purchase][1].provider,
                                                   best[purchase][1].region.code, best[purchase][1].region.zone or ""):
                    best[purchase] = (cost, offer, how)
            memo[key] = best
        best = memo[key]
        for purchase, item in best.items():
            by_purchase[purchase].append(item)
        usable = {p: v for p, v in best.items() if interruptible or p not in INTERRUPTIBLE}
        if not usable:
            raise QueryError("interruptible", "only spot or low-priority offers in the market: allow them with "
                                              "interruptible")
        purchase, (cost, offer, how) = min(usable.items(), key=lambda kv: (money(kv[1][0]), kv[0]))
        chosen.append(Level(k, hours, purchase, offer, money(cost), f"{how} = {money(cost)}"))
    alternatives = []
    for purchase, items in by_purchase.items():
        if len(items) < len(levels_in):
            continue  # a level this purchase model cannot serve (e.g. capacity blocks shorter than a day)
        costs = [money(c) for c, _, _ in items]
        counts = Counter(id(o) for _, o, _ in items)
        head = items[0][1]
        total = sum(costs, Decimal(0))
        texts = [f"{h} = {c}" for (_, _, h), c in zip(items, costs, strict=True)]
        if len(set(texts)) == 1:
            how = texts[0] if len(items) == 1 else f"{len(items)} × ({texts[0]}) = {total}"
        else:
            how = " + ".join(f"({t})" for t in texts) + f" = {total}"
        if len(counts) > 1:
            how += " (levels on different offers)"
        alternatives.append(Alternative(purchase, head, total, how,
                                        interruptible or purchase not in INTERRUPTIBLE))
    alternatives.sort(key=lambda a: (a.cost, a.purchase))
    plan = CommitPlan(profile, gpus_per_instance, currency, chosen, alternatives,
                      _break_evens(pool, profile.months, checkpoint_every_h, fallback_overhead, interruptible))
    plan.assumptions = _assumptions(plan, interruptible, checkpoint_every_h, fallback_overhead)
    present = {(o.provider, o.price.purchase) for o in pool}
    providers = sorted({o.provider for o in pool} | set(market))
    for term in (*TERMS, "capacity_block"):
        lacking = [p for p in providers if (p, term) not in present]
        plan.priced[term] = [p for p in providers if (p, term) in present]
        if len(lacking) == len(providers):
            plan.unpriced[term] = []
        elif lacking:
            plan.unpriced[term] = lacking
    return plan


def _break_evens(pool: list[Offer], months: int, checkpoint_every_h: float, fallback: float,
                 interruptible: bool) -> list[BreakEven]:
    """Each commitment's cheapest offer against the cheapest per-use one: the hours a month where they meet."""
    def cheapest(purchases: Sequence[str]) -> dict[str, Offer]:
        out: dict[str, Offer] = {}
        for o in sorted(pool, key=lambda o: (o.price.amount, o.provider, o.region.code)):
            out.setdefault(o.price.purchase, o) if o.price.purchase in purchases else None
        return out

    terms = cheapest(TERMS)
    per_use = cheapest((*PER_USE[:1], *(INTERRUPTIBLE if interruptible else ())))
    out = []
    for term, t_offer in terms.items():
        priced = _cost(t_offer, HOURS_PER_MONTH, 7, months, checkpoint_every_h, fallback)
        if priced is None:
            continue
        monthly, _ = priced
        same = sorted((o for o in pool if o.price.purchase == "on_demand" and o.provider == t_offer.provider
                       and o.region.code == t_offer.region.code and o.instance_type == t_offer.instance_type),
                      key=lambda o: o.price.amount)
        against = [(p, o) for p, o in per_use.items()] + [("on_demand (same place)", o) for o in same[:1]]
        for label, u_offer in against:
            rate = u_offer.price.amount
            if u_offer.price.purchase in INTERRUPTIBLE:
                risk = u_offer.obtain.risk if u_offer.obtain else None
                lost = expected_interruptions(risk, float(HOURS_PER_MONTH), checkpoint_every_h, fallback)
                rate = rate * (1 + Decimal(str(round(lost.extra_hours, 6))) / HOURS_PER_MONTH)
            hours = monthly / rate
            out.append(BreakEven(term, label, hours, money(monthly), (
                f"{term} {t_offer.provider} {t_offer.region.code} {money(monthly)} a month / "
                f"{u_offer.price.purchase} {u_offer.provider} {u_offer.region.code} {_g(round(rate, 6))}/h = "
                f"{hours:.1f} h a month ({hours / HOURS_PER_MONTH:.0%} of 730 h): "
                + ("above it the term is cheaper" if hours <= HOURS_PER_MONTH else
                   "more than a month holds: the term never pays off"))))
    return out


def _assumptions(plan: CommitPlan, interruptible: bool, checkpoint_every_h: float, fallback: float) -> list[str]:
    n = plan.gpus_per_instance
    return [
        f"instances of {n:g} GPUs, bought whole: the peak of {plan.profile.peak:g} GPUs needs {plan.instances}",
        "a month is 730 h (8760 / 12), 730/168 = 4.345 weeks; the profile repeats every week",
        "each instance is bought where it is cheapest in the market asked for, so a mix may span regions and "
        "providers (region, provider or near narrow the market)",
        f"terms are owed in full: a plan of {plan.profile.months} months buys whole terms and pays them whatever "
        "the use; terms do not move between offers, regions or providers",
        "on-demand and flex-start are billed for the time used (flex-start in runs of at most its window, 7 days "
        "on GCP, capacity not guaranteed); prices as published, no discounts negotiated",
        ("spot/low priority serve interruptible work at their expected cost (interruption bucket's upper bound per "
         f"month, checkpoints every {checkpoint_every_h:g} h, 0.25 h restart; +{fallback:.0%} run time where no "
         "rate is published)") if interruptible else
        "spot/low priority are shown but not chosen: the work is not interruptible (interruptible to allow them)",
        "capacity blocks: one window for each day (24 h) or week (168 h) in which the level is used",
        "owned capacity (buying GPUs) is not modelled",
    ]
