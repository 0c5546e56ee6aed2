"""Follow-the-sun: teams in several time zones, each needing GPUs in its working hours. Three ways to serve them:

- ``shared``: one cluster in one region, used in turn. It is as large as the most GPUs the teams need at once
  (overlapping hours add up) and held around the clock, bought the cheapest way for 730 h a month
  (:func:`~gpuhub.answer.planning.commit.plan_commitments` on a flat profile). The best shared region is the
  cheapest whose round trip from every team is within the latency budget (else the one with the smallest worst
  round trip, and the answer says the budget is missed).
- ``per_team``: one cluster per team near it (within ``near_ms`` of the team, default 50 ms, the real-time
  budget of the inference preset; else its nearest region), held around the clock, in the cheapest such region.
- ``per_day``: no cluster: each team rents on-demand (or spot, for interruptible work) for its working hours
  only, in the cheapest region near it (the same rule).

Utilization = GPU-hours used / GPU-hours held. ``on working days``: held 24 h on each UTC day any team works
(three teams of 8 hours each that tile the day use a shared cluster 100 %); ``over the week``: held 168 h.
Round trips: :func:`gpuhub.facts.location.rtt_ms` from each team's place to the region's city.
Carbon a month: GPU-hours used × GPU TDP (kW) × PUE 1.1 × the region's grid intensity (:mod:`gpuhub.facts.carbon`);
idle held GPUs and hosts are not counted, so it is a lower bound that compares regions.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from gpuhub.answer.planning.commit import INTERRUPTIBLE, PER_USE, CommitPlan, plan_commitments
from gpuhub.answer.planning.usage import SLOTS, SLOTS_PER_HOUR, WEEKS_PER_MONTH, Profile, Team
from gpuhub.errors import QueryError
from gpuhub.facts.carbon import PUE
from gpuhub.facts.location import rtt_ms
from gpuhub.model import Offer

__all__ = ["Site", "SunPlan", "SunRow", "plan_sun", "utilization"]


@dataclass(frozen=True)
class Site:
    """One provider region with coordinates: its offers, and its grid intensity (gCO2e/kWh) where known."""

    provider: str
    region: str
    latitude: float
    longitude: float
    intensity: float | None
    offers: tuple[Offer, ...]

    @property
    def label(self) -> str:
        """``provider:region``."""
        return f"{self.provider}:{self.region}"


@dataclass(frozen=True)
class SunRow:
    """One cluster (or one team's rented hours) of an option: where, how large, how used, how far, what it costs
    and emits a month (``carbon_kg`` None: no grid figure), with the arithmetic in ``how``."""

    option: str
    teams: tuple[str, ...]
    site: Site
    gpus: float
    utilization_working_days: float
    utilization_week: float
    rtt_ms: dict[str, float]
    cost: Decimal
    carbon_kg: float | None
    plan: CommitPlan
    how: list[str] = field(default_factory=list)


@dataclass
class SunPlan:
    """The three options' rows, each option's total a month, the best shared region and notes."""

    rows: list[SunRow]
    budget_ms: float
    currency: str
    notes: list[str] = field(default_factory=list)

    def total(self, option: str) -> Decimal:
        """An option's cost a month: the sum of its rows (each to the cent)."""
        return sum((r.cost for r in self.rows if r.option == option), Decimal(0))

    def carbon(self, option: str) -> float | None:
        """An option's kg CO2e a month (None if a row has no grid figure)."""
        values = [r.carbon_kg for r in self.rows if r.option == option]
        return None if any(v is None for v in values) else sum(v for v in values if v is not None)

    @property
    def best_shared(self) -> SunRow | None:
        """The shared cluster's row: the best shared region."""
        return next((r for r in self.rows if r.option == "shared"), None)


def utilization(busy: Sequence[float], gpus: float) -> tuple[float, float, str]:
    """``(on working days, over the week, how)`` for a cluster of ``gpus`` GPUs whose use per slot is ``busy``."""
    day = 24 * SLOTS_PER_HOUR
    days = sum(1 for d in range(7) if any(busy[d * day:(d + 1) * day]))
    used = sum(busy) / SLOTS_PER_HOUR
    working = used / (gpus * 24 * days) if days else 0.0
    week = used / (gpus * 168)
    return working, week, (f"{used:g} GPU-h used a week / ({gpus:g} GPUs × 24 h × {days} working day"
                            f"{'s' if days != 1 else ''}) = {working:.0%}; / ({gpus:g} × 168 h) = {week:.0%} "
                            "over the week")


def _sites(offers: Iterable[Offer]) -> tuple[list[Site], int]:
    groups: dict[tuple[str, str], list[Offer]] = {}
    for o in offers:
        groups.setdefault((o.provider, o.region.code), []).append(o)
    sites, unplaced = [], 0
    for (provider, region), items in sorted(groups.items()):
        placed = next((o for o in items if o.region.latitude is not None and o.region.longitude is not None), None)
        if placed is None:
            unplaced += 1
            continue
        sites.append(Site(provider, region, float(placed.region.latitude or 0), float(placed.region.longitude or 0),
                          placed.region.carbon_gco2e_per_kwh, tuple(items)))
    return sites, unplaced


def _flat(gpus: float, months: int, label: str) -> Profile:
    return Profile(tuple([float(gpus)] * SLOTS), months, label)


def _carbon(site: Site, gpu_hours_month: Decimal, power_kw: float | None) -> tuple[float | None, str]:
    if power_kw is None:
        return None, "no GPU power figure: carbon unknown"
    if site.intensity is None:
        return None, f"no grid carbon data for {site.label}"
    kg = float(gpu_hours_month) * power_kw * PUE * site.intensity / 1000
    return kg, (f"{gpu_hours_month:.1f} GPU-h a month × {power_kw:g} kW × PUE {PUE:g} × {site.intensity:g} "
                f"gCO2e/kWh = {kg:,.0f} kg CO2e")


def _priced(site: Site, profile: Profile, k: float, purchases: tuple[str, ...] | None, interruptible: bool,
            checkpoint_every_h: float) -> CommitPlan | None:
    offers = [o for o in site.offers if purchases is None or o.price.purchase in purchases]
    try:
        return plan_commitments(offers, profile, k, interruptible=interruptible,
                                checkpoint_every_h=checkpoint_every_h)
    except QueryError:
        return None


def plan_sun(offers: Iterable[Offer], teams: Sequence[tuple[Team, list[bool]]], gpus_per_instance: float,
             months: int, *, budget_ms: float = 150.0, near_ms: float = 50.0, power_kw_per_gpu: float | None = None,
             interruptible: bool = False, checkpoint_every_h: float = 1.0) -> SunPlan:
    """Compare one shared cluster, one cluster per team and per-working-day rental for ``teams``.

    Args:
        offers: offers of the GPU (any provider, region, purchase model).
        teams: each team with its busy slots on the UTC week (:func:`~gpuhub.answer.planning.usage.team_slots`).
        gpus_per_instance: GPUs per instance bought.
        months: the plan's length (terms are owed in full).
        budget_ms: the largest round trip a team accepts from the shared cluster, ms.
        near_ms: the largest round trip from a team to a cluster "near it" (per team, per day), ms.
        power_kw_per_gpu: the GPU's TDP in kW, for carbon (None: carbon unknown).
        interruptible: whether spot / low-priority capacity may serve the work.

    Raises:
        QueryError: (``teams``) no team; (``gpus``) no region with coordinates sells instances of that size.
    """
    if not teams:
        raise QueryError("team", "give at least one team: name=..,tz=..,hours=9-17,gpus=8")
    if not (math.isfinite(budget_ms) and budget_ms > 0):
        raise QueryError("max_rtt", f"must be a positive number of milliseconds, got {budget_ms!r}")
    if not (math.isfinite(near_ms) and near_ms > 0):
        raise QueryError("near_rtt", f"must be a positive number of milliseconds, got {near_ms!r}")
    sites, unplaced = _sites(offers)
    sites = [s for s in sites if any(o.gpu_count == gpus_per_instance for o in s.offers)]
    if not sites:
        raise QueryError("gpus", f"no region with known coordinates sells instances of {gpus_per_instance:g} GPUs")
    names = [t.name for t, _ in teams]
    rtts = {s.label: {t.name: rtt_ms(t.place, s.latitude, s.longitude) for t, _ in teams} for s in sites}
    busy = [sum(t.gpus for t, slots in teams if slots[i]) for i in range(SLOTS)]
    plan = SunPlan([], budget_ms, "USD")
    if unplaced:
        plan.notes.append(f"{unplaced} regions without coordinates left out")

    def used_month(values: Sequence[float]) -> Decimal:
        return Decimal(str(sum(values))) / SLOTS_PER_HOUR * WEEKS_PER_MONTH

    # (a) one shared cluster
    size = max(busy)
    k = gpus_per_instance
    held = math.ceil(size / k - 1e-9) * k
    flat = _flat(held, months, f"shared cluster of {held:g} GPUs, 24 h × 7")
    priced = [(s, p) for s in sites if (p := _priced(s, flat, k, None, interruptible, checkpoint_every_h))]
    within = [(s, p) for s, p in priced if max(rtts[s.label].values()) <= budget_ms]
    if within:
        site, best = min(within, key=lambda sp: (sp[1].total, sp[0].label))
        why = f"cheapest of {len(within)} regions within {budget_ms:g} ms of every team"
    elif priced:
        site, best = min(priced, key=lambda sp: (max(rtts[sp[0].label].values()), sp[1].total))
        why = f"no region is within {budget_ms:g} ms of every team: the one with the smallest worst round trip"
    else:
        raise QueryError("gpus", f"no region prices a held cluster of {held:g} GPUs")
    working, week, u_how = utilization(busy, held)
    kg, c_how = _carbon(site, used_month(busy), power_kw_per_gpu)
    if not within:
        plan.notes.append(why)
    plan.rows.append(SunRow("shared", tuple(names), site, held, working, week, rtts[site.label], best.total, kg,
                            best, [why, f"peak {size:g} GPUs at once → {held:g} held", u_how, c_how]))

    # (b) one held cluster per team, (c) rented for the working hours only
    per_use = (*PER_USE, *(INTERRUPTIBLE if interruptible else ()))
    for team, slots in teams:
        team_busy = [team.gpus if s else 0.0 for s in slots]
        team_held = math.ceil(team.gpus / k - 1e-9) * k
        near = [s for s in sites if rtts[s.label][team.name] <= near_ms]
        nearest = min(sites, key=lambda s: rtts[s.label][team.name])
        for option, profile, purchases in (
                ("per_team", _flat(team_held, months, f"{team.name}: {team_held:g} GPUs, 24 h × 7"), None),
                ("per_day", Profile(tuple(team_busy), months, f"{team.name}: working hours"), per_use)):
            candidates = [(s, p) for s in (near or [nearest])
                          if (p := _priced(s, profile, k, purchases, interruptible, checkpoint_every_h))]
            if not candidates:
                candidates = [(s, p) for s in sites
                              if (p := _priced(s, profile, k, purchases, interruptible, checkpoint_every_h))]
                if not candidates:
                    continue
                plan.notes.append(f"{option} {team.name}: nothing priced within {near_ms:g} ms; any region")
            site, best = min(candidates, key=lambda sp: (sp[1].total, sp[0].label))
            gpus = team_held if option == "per_team" else team.gpus
            if option == "per_team":
                working, week, u_how = utilization(team_busy, team_held)
            else:
                working, week, u_how = 1.0, 1.0, "rented only for the hours used: 100 %"
            kg, c_how = _carbon(site, used_month(team_busy), power_kw_per_gpu)
            where = (f"cheapest of {len(near)} regions within {near_ms:g} ms of {team.name}" if near else
                     f"no region within {near_ms:g} ms of {team.name}: its nearest, {nearest.label}")
            plan.rows.append(SunRow(option, (team.name,), site, gpus, working, week,
                                    {team.name: rtts[site.label][team.name]}, best.total, kg, best,
                                    [where, u_how, c_how]))
    return plan
