"""The plans in words: each plan's summary lines (what the table leaves out: break-evens, price sources, totals)
and its arithmetic (``--explain``), shared by the CLI and the web page."""

from __future__ import annotations

from typing import Any

from gpuhub.answer.planning.arbitrage import Arbitrage
from gpuhub.answer.planning.commit import CommitPlan
from gpuhub.answer.planning.sun import SunPlan

__all__ = ["arbitrage_text", "commit_text", "money_text", "sun_text"]


def money_text(value: Any) -> str:
    """A sum of money with thousands separators and cents (``-`` for unknown)."""
    return "-" if value is None else f"{value:,.2f}"


def _names(items: list[str], limit: int = 4) -> str:
    return ", ".join(items[:limit]) + (f" and {len(items) - limit} more" if len(items) > limit else "")


def commit_text(plan: CommitPlan, record: dict[str, Any]) -> tuple[list[str], list[str]]:
    """``(summary lines, arithmetic lines)`` of a commitment plan and its record."""
    lines = [f"{record['profile']}: {record['instances']} × {record['gpus_per_instance']:g}-GPU instances; "
             f"cheapest mix {money_text(record['total_per_month'])} USD a month"]
    for b in plan.break_evens:
        lines.append(f"break-even {b.term} vs {b.against}: {b.hours_per_month:.1f} h a month "
                     f"({b.utilization:.0%} of 730 h)")
    for term, lacking in record["unpriced"].items():
        lines.append(f"{term}: no price source in the covered market" if not lacking else
                     f"{term}: priced by {_names(record['priced'][term])}; no price source for {_names(lacking)}")
    lines += [f"assumes: {a}" for a in plan.assumptions]
    explain = [f"level {x.level} ({x.hours_per_month:.2f} h a month): {x.purchase} {x.offer.provider} "
               f"{x.offer.region.code}: {x.how}" for x in plan.levels]
    explain.append("mix total = " + " + ".join(str(p.cost) for p in plan.parts) + f" = {plan.total}")
    explain += [f"all {a.purchase}: {a.how}" for a in plan.alternatives]
    explain += [f"break-even: {b.how}" for b in plan.break_evens]
    return lines, explain


def sun_text(plan: SunPlan, record: dict[str, Any]) -> tuple[list[str], list[str]]:
    """``(summary lines, arithmetic lines)`` of a follow-the-sun comparison and its record."""
    lines = []
    for option, t in record["totals"].items():
        carbon = "unknown" if t["carbon_kg_per_month"] is None else f"{t['carbon_kg_per_month']:,.0f} kg CO2e"
        lines.append(f"{option}: {money_text(t['cost_per_month'])} USD a month, {carbon} a month")
    lines.append(f"best shared region within {plan.budget_ms:g} ms: {record['best_shared_region']}")
    lines += record["notes"]
    explain = [f"{row['option']} {row['teams']}: {h}" for row in record["rows"] for h in row["how"]]
    return lines, explain


def arbitrage_text(arb: Arbitrage, record: dict[str, Any], shown: list[str] | None = None) -> tuple[list[str],
                                                                                                     list[str]]:
    """``(summary lines, arithmetic lines)`` of a price spread; ``shown``: the ``provider:region`` labels whose
    arithmetic is wanted (default all)."""
    lines = [f"{record['what']} {record['purchase']}: {len(record['places'])} places, spread "
             f"{record['spread_per_hour']:g} USD/h ({record['spread_fraction']:.1%}); {record['instances']} "
             f"instance(s) × {record['hours_per_month']:.2f} h a month; moving from {record['reference']} to the "
             f"cheapest saves {money_text(record['best_saving_per_month'])} USD a month"]
    explain = list(arb.how)
    explain += [f"{p.label}: {p.offer.price.amount.normalize():f}/h × {arb.hours_per_month:.2f} h × "
                f"{arb.instances} = {p.cost}; saving {arb.reference.cost} − {p.cost} = {p.saving}"
                for p in arb.places if shown is None or p.label in shown]
    return lines, explain
