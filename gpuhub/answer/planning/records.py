"""The plans as JSON-ready dicts (money as numbers to the cent, hours to 0.01 h), shared by the CLI's
``--format json|csv`` and any other surface."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from gpuhub.answer.planning.arbitrage import Arbitrage
from gpuhub.answer.planning.commit import CommitPlan
from gpuhub.answer.planning.sun import SunPlan
from gpuhub.model import Offer

__all__ = ["arbitrage_record", "commit_record", "commit_rows", "sun_record", "sun_rows"]


def _f(value: Decimal | None, places: int = 2) -> float | None:
    return None if value is None else round(float(value), places)


def _where(offer: Offer) -> dict[str, Any]:
    return {"provider": offer.provider, "instance_type": offer.instance_type, "region": offer.region.code,
            "zone": offer.region.zone, "price_per_hour": float(offer.price.amount)}


def commit_rows(plan: CommitPlan) -> list[dict[str, Any]]:
    """One row per part of the mix, the mix's total, then one per alternative (``option`` says which)."""
    rows = [{"option": "mix", "purchase": p.purchase, **_where(p.offer), "instances": p.instances,
             "hours_per_month": _f(p.hours_per_month), "cost_per_month": _f(p.cost)} for p in plan.parts]
    used = _f(sum((x.hours_per_month for x in plan.levels), Decimal(0)))
    rows.append({"option": "mix total", "purchase": "+".join(sorted({p.purchase for p in plan.parts})),
                 "provider": None, "instance_type": None, "region": None, "zone": None, "price_per_hour": None,
                 "instances": plan.instances, "hours_per_month": used, "cost_per_month": _f(plan.total)})
    for a in plan.alternatives:
        rows.append({"option": "all " + a.purchase + ("" if a.in_mix else " (work not interruptible)"),
                     "purchase": a.purchase, **_where(a.offer), "instances": plan.instances,
                     "hours_per_month": used, "cost_per_month": _f(a.cost)})
    return rows


def commit_record(plan: CommitPlan) -> dict[str, Any]:
    """The whole commitment plan: usage, mix (parts, levels with their arithmetic), alternatives, break-evens,
    assumptions and the purchase models without a price source."""
    return {
        "profile": plan.profile.label, "months": plan.profile.months, "peak_gpus": plan.profile.peak,
        "gpus_per_instance": plan.gpus_per_instance, "instances": plan.instances, "currency": plan.currency,
        "total_per_month": _f(plan.total), "rows": commit_rows(plan),
        "levels": [{"level": x.level, "hours_per_month": _f(x.hours_per_month), "purchase": x.purchase,
                    **_where(x.offer), "cost_per_month": _f(x.cost), "how": x.how} for x in plan.levels],
        "alternatives": [{"purchase": a.purchase, **_where(a.offer), "cost_per_month": _f(a.cost),
                          "in_mix": a.in_mix, "how": a.how} for a in plan.alternatives],
        "break_evens": [{"term": b.term, "against": b.against, "hours_per_month": _f(b.hours_per_month),
                         "utilization": _f(b.utilization, 4), "cost_per_month": _f(b.cost), "how": b.how}
                        for b in plan.break_evens],
        "assumptions": plan.assumptions, "unpriced": plan.unpriced,
        "priced": plan.priced,
    }


def sun_rows(plan: SunPlan) -> list[dict[str, Any]]:
    """One row per cluster (or team's rented hours) of each option."""
    return [{"option": r.option, "teams": ", ".join(r.teams), "provider": r.site.provider, "region": r.site.region,
             "gpus": r.gpus, "purchase": "+".join(sorted({p.purchase for p in r.plan.parts})),
             "utilization_working_days": round(r.utilization_working_days, 4),
             "utilization_week": round(r.utilization_week, 4),
             "rtt_ms": "; ".join(f"{k} {v:.0f}" for k, v in r.rtt_ms.items()),
             "cost_per_month": _f(r.cost),
             "carbon_kg_per_month": None if r.carbon_kg is None else round(r.carbon_kg, 1)}
            for r in plan.rows]


def sun_record(plan: SunPlan) -> dict[str, Any]:
    """The three options: rows with their arithmetic, each option's totals, the best shared region, notes."""
    best = plan.best_shared
    return {"budget_ms": plan.budget_ms, "currency": plan.currency,
            "best_shared_region": f"{best.site.provider}:{best.site.region}" if best else None,
            "totals": {o: {"cost_per_month": _f(plan.total(o)), "carbon_kg_per_month":
                           None if plan.carbon(o) is None else round(plan.carbon(o) or 0.0, 1)}
                       for o in ("shared", "per_team", "per_day")},
            "rows": [{**row, "how": r.how + [x.how for x in r.plan.levels]}
                     for row, r in zip(sun_rows(plan), plan.rows, strict=True)],
            "notes": plan.notes}


def arbitrage_record(arb: Arbitrage) -> dict[str, Any]:
    """Each place cheapest first with its cost a month and the saving of moving there from the reference."""
    rows = []
    for p in arb.places:
        h = p.history or {}
        rows.append({**_where(p.offer), "cost_per_month": _f(p.cost), "saving_per_month": _f(p.saving),
                     "reference": p is arb.reference,
                     "min_price_per_hour": _f(h.get("min"), 6), "median_price_per_hour": _f(h.get("median"), 6),
                     "max_price_per_hour": _f(h.get("max"), 6), "saving_at_median": _f(p.saving_at_median)})
    return {"what": arb.what, "purchase": arb.purchase, "currency": arb.currency,
            "hours_per_month": _f(arb.hours_per_month), "instances": arb.instances,
            "reference": arb.reference.label, "spread_per_hour": float(arb.spread),
            "spread_fraction": round(arb.spread_fraction, 4), "best_saving_per_month": _f(arb.best_saving),
            "places": rows, "how": arb.how}
