"""``gpuhub estimate --compare``: an instance type's purchase options for a job, cheapest first (imported by the
CLI only when asked for; the rows come from :func:`gpuhub.service.reports.compare_rows`)."""

from __future__ import annotations

import json
import sys
from typing import Any

from gpuhub.cli.plaintext import PlainTable
from gpuhub.cli.table import TextConsole, cells, print_fitted
from gpuhub.display import money

__all__ = ["print_compare"]


def print_compare(rows: list[dict[str, Any]], hours: float, json_output: bool, out: TextConsole,
                  err: TextConsole) -> None:
    """Print the rows as a table (stdout) with a one-line verdict (stderr), or as JSON."""
    if json_output:
        sys.stdout.write(json.dumps({"hours": hours, "options": rows}, indent=2) + "\n")
        return
    headings = ["purchase", "provider", "region", "per hour", "job cost", "break-even h", "how"]
    # figures are never cut (a break-even's heading wraps); names and the how wrap between words; a terminal too
    # narrow for them all gives up the how (the arithmetic is in --format json), then the region (the verdict
    # below names the cheapest one's)
    table = PlainTable(headings, [h in ("per hour", "job cost", "break-even h") for h in headings],
                       ["whole" if h in ("per hour", "job cost") else "words" for h in headings])
    for r in rows:
        where = str(r["region"]) + (f" ({r['zone']})" if r["zone"] else "")
        even = f"{r['break_even_hours']:g}" if r["break_even_hours"] is not None else "-"
        table.add_row(*cells(r["purchase"], r["provider"], where, money(r["price_per_hour"]),
                             f"{r['cost']:.2f} {r['currency']}", even, "; ".join(r["notes"])))
    print_fitted(table, headings, out, err, give_way=["how", "region"], shows="--format json")
    if rows:
        best = rows[0]
        err.print(f"cheapest for {hours:g} h: {best['purchase']} in {best['region']} at {best['cost']:.2f} "
                  f"{best['currency']}", highlight=False)
