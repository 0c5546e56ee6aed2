"""``gpuhub estimate --compare``: an instance type's purchase options for a job, cheapest first (imported by the
CLI only when asked for; the rows come from :func:`gpuhub.service.reports.compare_rows`)."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.table import Table

from gpuhub.cli.table import TextConsole, cells
from gpuhub.display import money

__all__ = ["print_compare"]


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
