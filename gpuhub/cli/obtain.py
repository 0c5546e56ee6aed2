"""``gpuhub estimate --compare``: an instance type's purchase options for a job, cheapest first (imported by the
CLI only when asked for)."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.table import Table

from gpuhub.answer.compare import Option, compare
from gpuhub.cli.table import TextConsole, cells
from gpuhub.display import money
from gpuhub.model import Offer

__all__ = ["compare_rows", "print_compare"]


def compare_rows(offers: list[Offer], hours: float, checkpoint_every_h: float,
                 fallback_overhead: float) -> list[dict[str, Any]]:
    """The compare table as JSON-ready rows (cheapest first)."""
    options = compare(offers, hours, checkpoint_every_h=checkpoint_every_h, fallback_overhead=fallback_overhead)
    return [_row(o) for o in options]


def _row(o: Option) -> dict[str, Any]:
    offer = o.offer
    record = offer.obtain.record() if offer.obtain else {}
    return {"purchase": o.purchase, "provider": offer.provider, "instance_type": offer.instance_type,
            "region": offer.region.code, "zone": offer.region.zone, "price_per_hour": float(offer.price.amount),
            "cost": float(o.cost_rounded()), "currency": o.currency,
            "break_even_hours": round(float(o.break_even_hours), 2) if o.break_even_hours is not None else None,
            "interruption": record.get("interruption"), "reservation_start": record.get("reservation_start"),
            "reservation_hours": record.get("reservation_hours"), "notes": o.notes}


def print_compare(rows: list[dict[str, Any]], hours: float, json_output: bool, out: TextConsole,
                  err: TextConsole) -> None:
    """Print the rows as a table (stdout) with a one-line verdict (stderr), or as JSON."""
    if json_output:
        sys.stdout.write(json.dumps({"hours": hours, "options": rows}, indent=2) + "\n")
        return
    table = Table(show_edge=False, header_style="bold")
    for column in ("purchase", "provider", "region", "per hour", "job cost", "break-even h", "how"):
        table.add_column(column)
    for r in rows:
        where = str(r["region"]) + (f" ({r['zone']})" if r["zone"] else "")
        even = f"{r['break_even_hours']:g}" if r["break_even_hours"] is not None else "-"
        table.add_row(*cells(r["purchase"], r["provider"], where, money(r["price_per_hour"]),
                             f"{r['cost']:.2f} {r['currency']}", even, "; ".join(r["notes"])))
    out.print(table)
    if rows:
        best = rows[0]
        err.print(f"cheapest for {hours:g} h: {best['purchase']} in {best['region']} at {best['cost']:.2f} "
                  f"{best['currency']}", highlight=False)
