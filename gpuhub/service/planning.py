"""``gpuhub.plan``: planning beyond one search, on the offers a search finds (the arithmetic is in
:mod:`gpuhub.answer.planning`).

- :meth:`Planner.commitments`: the cheapest mix of purchase models for a usage profile over months;
- :meth:`Planner.follow_the_sun`: one shared cluster against one per team and per-working-day rental;
- :meth:`Planner.arbitrage`: an instance type's (or GPU's) price spread and what a move saves a month, with the
  store's price history where it has it.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path

from gpuhub.answer.planning.arbitrage import Arbitrage
from gpuhub.answer.planning.commit import CommitPlan
from gpuhub.answer.planning.sun import SunPlan
from gpuhub.answer.planning.usage import Profile, Team
from gpuhub.errors import QueryError
from gpuhub.model import Offer
from gpuhub.service.engine import Engine, RequestedMode

__all__ = ["Planner", "plan"]


def _offers(gpu: str | None, *, instance_type: str | None = None, region: str | Sequence[str] | None = None,
            provider: str | Sequence[str] | None = None, near: str | None = None, max_rtt: float | None = None,
            fixtures_dir: str | Path | None = None, fetch: RequestedMode = "auto",
            engine: Engine | None = None) -> tuple[list[Offer], list[str]]:
    """The market's whole-GPU offers, and a note on the listing statistics left out (a median of marketplace
    listings is no rentable listing to plan on: known fault C35)."""
    from gpuhub.service.searching import search

    if gpu is None and instance_type is None:
        raise QueryError("gpu", "give a GPU (e.g. H100) or an instance type")
    result = search(gpu, instance_type=instance_type, region=region, provider=provider, near=near, max_rtt=max_rtt,
                    limit=None, fixtures_dir=fixtures_dir, fetch=fetch, engine=engine)
    offers = [o for o in result.offers if not o.instance.fractional]
    stats = [o for o in offers if o.price.listing_stat is not None]
    offers = [o for o in offers if o.price.listing_stat is None]
    notes = [f"{len(stats)} listing statistics left out (e.g. {stats[0].provider}'s {stats[0].price.listing_label()}"
             "): a summary of marketplace listings is not one rentable listing"] if stats else []
    if not offers:
        raise QueryError("gpu" if instance_type is None else "instance_type",
                         f"no offer of {instance_type or gpu} in the market asked for")
    return offers, notes


def _size(offers: list[Offer], peak: float, gpus_per_instance: float | None) -> float:
    """GPUs per instance: as asked, else the smallest size offered that holds min(peak, 8) GPUs."""
    sizes = sorted({o.gpu_count for o in offers})
    if gpus_per_instance is not None:
        if gpus_per_instance not in sizes:
            raise QueryError("gpus_per_instance", f"no offer has {gpus_per_instance:g} GPUs per instance; allowed "
                                                  f"values: {', '.join(f'{s:g}' for s in sizes)}")
        return gpus_per_instance
    want = min(peak, 8)
    return next((s for s in sizes if s >= want), sizes[-1])


def _power_kw(offers: list[Offer]) -> float | None:
    from gpuhub.fetch.plugins import get_registry

    name = offers[0].gpu_name
    spec = get_registry().gpus.spec(name) if name else None
    return spec.tdp_w / 1000 if spec is not None and spec.tdp_w else None


class Planner:
    """``gpuhub.plan``: planning answers on the covered market (every installed provider; the bundled recordings
    offline). Three methods:

    - ``gpuhub.plan.commitments("H100", gpus=16, hours_per_day=10, days_per_week=5, months=6)``: the cheapest mix
      of purchase models (:class:`~gpuhub.answer.planning.commit.CommitPlan`, ``.total`` USD a month);
    - ``gpuhub.plan.follow_the_sun("H100", ["tz=Asia/Tokyo,hours=9-17,gpus=8", ...], max_rtt=150)``: a shared
      cluster against one per team and per-day rental (:class:`~gpuhub.answer.planning.sun.SunPlan`);
    - ``gpuhub.plan.arbitrage(instance_type="p5.48xlarge", hours_per_day=12)``: the price spread and each move's
      saving a month (:class:`~gpuhub.answer.planning.arbitrage.Arbitrage`).

    Every method fetches offers like :func:`gpuhub.search` (``fixtures_dir``, ``fetch``, ``engine`` as there)
    and raises :class:`~gpuhub.errors.QueryError` naming the bad argument with the allowed values.
    """

    def commitments(self, gpu: str, *, gpus: float | None = None, hours_per_day: float = 24.0,
                    days_per_week: int = 7, months: int = 12, profile: str | Path | None = None,
                    gpus_per_instance: float | None = None, region: str | Sequence[str] | None = None,
                    provider: str | Sequence[str] | None = None, near: str | None = None,
                    max_rtt: float | None = None, interruptible: bool = False, checkpoint_every: float = 1.0,
                    fixtures_dir: str | Path | None = None, fetch: RequestedMode = "auto",
                    engine: Engine | None = None) -> CommitPlan:
        """The cheapest mix of purchase models for a usage profile (model:
        :mod:`gpuhub.answer.planning.commit`).

        Args:
            gpu: the GPU needed (canonical name or alias).
            gpus, hours_per_day, days_per_week: "N GPUs, H hours a day, D days a week"; or ``profile``: a file of
                GPUs per hour of the week (:func:`gpuhub.answer.planning.usage.read_profile`).
            months: the plan's length, 1 to 36 (terms are owed in full).
            gpus_per_instance: GPUs per instance bought (default: the smallest size holding min(peak, 8)).
            region, provider, near, max_rtt: the covered market, as in :func:`gpuhub.search`.
            interruptible: let spot / low-priority capacity serve the work at its expected cost.
            checkpoint_every: hours between checkpoints (spot expected re-run).

        Returns:
            A :class:`~gpuhub.answer.planning.commit.CommitPlan` (levels, parts, ``total`` a month in USD,
            alternatives, break-evens, assumptions, purchase models without a price source).
        """
        from gpuhub.answer.planning.commit import plan_commitments
        from gpuhub.answer.planning.usage import read_profile, simple_profile

        if profile is not None:
            if gpus is not None:
                raise QueryError("profile", "give either a profile file or gpus/hours_per_day/days_per_week")
            usage: Profile = read_profile(Path(profile), months)
        else:
            if gpus is None:
                raise QueryError("gpus", "give the GPUs needed (a number above 0) or a profile file")
            usage = simple_profile(gpus, hours_per_day, days_per_week, months)
        if not (math.isfinite(checkpoint_every) and checkpoint_every > 0):
            raise QueryError("checkpoint_every", f"must be a positive number of hours, got {checkpoint_every!r}")
        offers, notes = _offers(gpu, region=region, provider=provider, near=near, max_rtt=max_rtt,
                                fixtures_dir=fixtures_dir, fetch=fetch, engine=engine)
        size = _size(offers, usage.peak, gpus_per_instance)
        market = sorted({o.provider for o in offers})
        result = plan_commitments(offers, usage, size, interruptible=interruptible,
                                  checkpoint_every_h=checkpoint_every, market=market)
        result.assumptions += notes
        return result

    def follow_the_sun(self, gpu: str, teams: Sequence[str | Team], *, months: int = 12, max_rtt: float = 150.0,
                       near_rtt: float = 50.0, week: dt.date | None = None, gpus_per_instance: float | None = None,
                       provider: str | Sequence[str] | None = None, interruptible: bool = False,
                       checkpoint_every: float = 1.0, fixtures_dir: str | Path | None = None,
                       fetch: RequestedMode = "auto", engine: Engine | None = None) -> SunPlan:
        """One shared cluster against one cluster per team and per-working-day rental (model:
        :mod:`gpuhub.answer.planning.sun`).

        Args:
            gpu: the GPU every team needs.
            teams: ``name=..,tz=Asia/Tokyo|place=Tokyo,hours=9-17,days=mon-fri,gpus=8`` texts (or parsed Teams).
            months: the plan's length, 1 to 36.
            max_rtt: the latency budget, ms: the largest round trip from any team to the shared cluster.
            near_rtt: the largest round trip to a cluster "near" a team (one per team, per-day rental), ms.
            week: the reference week (a Monday) whose daylight saving time applies; default this week.
            gpus_per_instance, provider, interruptible, checkpoint_every: as for :meth:`commitments`.
        """
        from gpuhub.answer.planning.sun import plan_sun
        from gpuhub.answer.planning.usage import check_months, check_week, parse_team, team_slots

        check_months(months)
        today = dt.datetime.now(dt.timezone.utc).date()
        monday = check_week(week) if week is not None else today - dt.timedelta(days=today.weekday())
        parsed = [t if isinstance(t, Team) else parse_team(t) for t in teams]
        names = [t.name for t in parsed]
        if len(set(names)) != len(names):
            raise QueryError("team", f"team names must differ, got {', '.join(names)}: add name=...")
        offers, notes = _offers(gpu, provider=provider, fixtures_dir=fixtures_dir, fetch=fetch, engine=engine)
        size = _size(offers, max((t.gpus for t in parsed), default=1), gpus_per_instance)
        result = plan_sun(offers, [(t, team_slots(t, monday)) for t in parsed], size, months, budget_ms=max_rtt,
                          near_ms=near_rtt, power_kw_per_gpu=_power_kw(offers), interruptible=interruptible,
                          checkpoint_every_h=checkpoint_every)
        result.notes += notes
        return result

    def arbitrage(self, *, instance_type: str | None = None, gpu: str | None = None,
                  gpus_per_instance: float | None = None, gpus: float | None = None, hours_per_day: float = 24.0,
                  days_per_week: int = 7, purchase: str = "on_demand", move_from: str | None = None,
                  provider: str | Sequence[str] | None = None, region: str | Sequence[str] | None = None,
                  since: str | None = None, fixtures_dir: str | Path | None = None,
                  fetch: RequestedMode = "auto", engine: Engine | None = None) -> Arbitrage:
        """The price spread across regions and providers and each move's saving a month (model:
        :mod:`gpuhub.answer.planning.arbitrage`).

        Args:
            instance_type or gpu (with ``gpus_per_instance``, default the smallest size holding ``gpus``): what is
                compared.
            gpus, hours_per_day, days_per_week: the usage (default one instance around the clock).
            purchase: the purchase model compared.
            move_from: the current place (``provider:region`` or a region code); default the dearest.
            since: a history window (``30d``, an ISO date): each place's min/median/max price in it, from the
                store (``GPUHUB_STORE``); None: now only.
        """
        from gpuhub.answer.planning.arbitrage import arbitrage
        from gpuhub.answer.planning.usage import simple_profile
        from gpuhub.purchase import known_purchase_models

        if purchase not in known_purchase_models():
            raise QueryError("purchase", f"{purchase!r} is not allowed; allowed values: "
                                         f"{', '.join(known_purchase_models())}")
        usage = simple_profile(gpus if gpus is not None else 1.0, hours_per_day, days_per_week, 1)
        offers, notes = _offers(gpu, instance_type=instance_type, provider=provider, region=region,
                                fixtures_dir=fixtures_dir, fetch=fetch, engine=engine)
        if instance_type is None:
            size = _size(offers, usage.peak, gpus_per_instance)
            offers = [o for o in offers if o.gpu_count == size]
            what = f"{size:g} × {offers[0].gpu_name}"
        else:
            size = offers[0].gpu_count
            what = instance_type
        instances = max(usage.instances(size))
        hours = usage.gpu_hours_per_week / Decimal(str(usage.peak)) * Decimal(730) / 168
        history = _history(instance_type, gpu, purchase, since) if since else None
        result = arbitrage(offers, what, hours, instances, purchase=purchase, move_from=move_from, history=history)
        result.how += notes
        return result


def _history(instance_type: str | None, gpu: str | None, purchase: str,
             since: str) -> dict[tuple[str, str, str], dict[str, Decimal | None]]:
    """Each place's min / median / max price over the window, from the store's history."""
    from gpuhub.history import history
    from gpuhub.store import StoreError

    try:
        result = history(instance_type=instance_type, gpu=None if instance_type else gpu, purchase=purchase,
                         since=since)
    except StoreError as exc:  # a user's setting, not a crash: the option that needs the store is named
        raise QueryError("since", f"needs the offer store's history: {exc}") from None
    out: dict[tuple[str, str, str], dict[str, Decimal | None]] = {}
    for series in result:
        o = series.offer
        key = (str(o.get("provider")), str(o.get("region")), str(o.get("instance_type")))
        stats = series.stats(result.since)
        old = out.get(key)
        if old is None or (stats["median"] or 0) < (old["median"] or 0):
            out[key] = stats
    return out


plan = Planner()
"""``gpuhub.plan``: ``gpuhub.plan.commitments(...)``, ``gpuhub.plan.follow_the_sun(...)``,
``gpuhub.plan.arbitrage(...)`` (see :class:`Planner`)."""

