"""How ``gpuhub search`` prints its answer: the offers table (columns chosen by importance for the terminal's
width, ``--columns``, ``--wide``), groups, CSV, and the provider status summary; plus :class:`TextConsole`, the
console every command prints provider, plugin, file and user text through (as text, never markup).

Importing this module costs the standard library only (rich is imported when something is printed).
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal

from gpuhub.answer.columns import CORE_COLUMNS, DISPLAY_ORDER, TABLE_COLUMNS, TableColumn
from gpuhub.cli.plaintext import PlainTable, cell_width, narrowest, plain_mode, styled_lines, text_width
from gpuhub.display import money, plain, published

if TYPE_CHECKING:

    from gpuhub.model import Offer
    from gpuhub.service.searching import SearchResult

__all__ = ["TextConsole", "choose_columns", "fit_columns", "left_out", "print_fitted", "print_result",
           "print_statuses", "print_whole", "status_summary", "stdout_console"]

_PLAIN: dict[str, Any] = {"markup": False, "emoji": False, "highlight": False}
_BY_NAME = {c.name: c for c in TABLE_COLUMNS}
_SEPARATOR = 3
"""Characters between two table columns (`` │ ``)."""


class TextConsole:
    """A console that prints every string as text: markup and emoji codes off, control characters escaped
    (:func:`gpuhub.display.plain`; line breaks kept). ``style`` colours a whole line. A :class:`PlainTable` or a
    line of text is written directly where rich would write exactly that (:mod:`gpuhub.cli.plaintext`), else
    through a rich console made on first need (``kwargs`` are its arguments); other renderables (a rich table
    whose cells were made with :func:`cells`) print as they are."""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs
        self._console: Any = None

    @property
    def console(self) -> Any:
        """The rich console (made on first use)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(**_PLAIN, **self._kwargs)
        return self._console

    def _stream(self) -> Any:
        if "file" in self._kwargs:
            return None
        return sys.stderr if self._kwargs.get("stderr") else sys.stdout

    @property
    def width(self) -> int:
        """The console's width in columns, as rich measures it: the ``width`` given, else ``COLUMNS``, else the
        terminal's, else 80."""
        stream = self._stream()
        if stream is None or plain_mode(stream) is None:
            return int(self.console.width)
        given = self._kwargs.get("width")
        if given is not None:
            return int(given)
        columns = os.environ.get("COLUMNS", "")
        if columns.isdigit():
            return int(columns)
        for descriptor in (0, 1, 2):  # rich asks stdin, stdout, stderr in this order
            try:
                return os.get_terminal_size(descriptor).columns or 80
            except (AttributeError, ValueError, OSError):
                continue
        return 80

    def print(self, *objects: Any, style: str | None = None, **kwargs: Any) -> None:
        """Print ``objects`` (strings as text); ``markup``/``highlight``/``emoji`` arguments are ignored; ``width``
        wider than the console's lays them out that wide (:func:`print_whole`)."""
        for name in ("markup", "highlight", "emoji"):
            kwargs.pop(name, None)
        width = max(kwargs.pop("width", None) or 0, self.width)
        if width == self.width and self._direct(objects, style, kwargs):
            return
        console = self.console
        if width > self.width:  # wider than the terminal (rich caps a print's width at its console's)
            from rich.console import Console

            console = Console(**_PLAIN, **{**self._kwargs, "width": width})
        shown = [o.to_rich(width) if isinstance(o, PlainTable) else plain(o, newlines=True) if isinstance(o, str)
                 else o for o in objects]
        console.print(*shown, style=style, **_PLAIN, **kwargs)

    def _direct(self, objects: tuple[Any, ...], style: str | None, kwargs: dict[str, Any]) -> bool:
        """Write ``objects`` without rich when it would write exactly this (:mod:`gpuhub.cli.plaintext`)."""
        stream = self._stream()
        mode = plain_mode(stream) if stream is not None and not set(kwargs) - {"end", "sep"} else None
        if mode is None:
            return False
        text: str | None = None
        if len(objects) == 1 and isinstance(objects[0], PlainTable):
            text = objects[0].render(self.width, mode) if style is None else None
        elif objects and all(isinstance(o, str) for o in objects) and self._kwargs.get("soft_wrap"):
            line = str(kwargs.get("sep", " ")).join(plain(o, newlines=True) for o in objects)
            narrow = text_width(line.replace("\n", " ").strip(" ")) is not None  # one column per character
            styled = styled_lines(line, style, mode) if narrow else None
            text = None if styled is None else styled + str(kwargs.get("end", "\n"))
        if text is None:
            return False
        stream.write(text)
        stream.flush()  # as rich does: stdout and stderr lines keep their order in a shared pipe
        return True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.console, name)


def stdout_console() -> TextConsole:
    """The stdout console: the terminal's width (``COLUMNS`` when set); when piped without ``COLUMNS``, 240
    columns, so a table is never cut to 80."""
    columns = os.environ.get("COLUMNS", "")
    if sys.stdout.isatty() or columns.isdigit():
        return TextConsole()
    return TextConsole(width=240)


def cells(*values: Any) -> list[str]:
    """Table cells as text: each value as ``str`` with control characters escaped."""
    return [plain(v) for v in values]


def num(value: Any) -> str:
    """A count or size for a cell: ``-`` when unknown, floats without trailing zeros."""
    if value is None:
        return "-"
    return f"{value:g}" if isinstance(value, float) else str(value)


def price(value: Any) -> str:
    """A price for a cell by the printing rule (:func:`gpuhub.display.money`), ``-`` when unknown."""
    return "-" if value is None else money(value)


def gpus(count: Any) -> str:
    """GPU count; a fractional slice as a fraction (0.25 → 1/4)."""
    if isinstance(count, float) and 0 < count < 1:
        part = Fraction(count).limit_denominator(64)
        return f"{part.numerator}/{part.denominator}"
    return num(count)


def write_csv(records: list[dict[str, Any]], fields: list[str]) -> None:
    """CSV with the same columns whether or not anything matched."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows({k: json.dumps(v) if isinstance(v, (list, dict)) else v for k, v in r.items()} for r in records)
    sys.stdout.write(buffer.getvalue())


def _risk(r: dict[str, Any]) -> str:
    """The interruption column: bucket and its source@date for spot offers; '-' where nothing applies."""
    if r.get("interruption") is None:
        return "-"
    return f"{r['interruption']} ({r['risk_source']})"


def _cell(column: str, r: dict[str, Any], offer: Offer) -> str:
    """The text of one cell of the offers table."""
    if column == "price":
        return f"{money(offer.price.amount)} {r['currency']}"
    if column == "per_gpu":
        return price(offer.price_per_gpu_hour)
    if column == "gpu":
        gpu = (r["gpu_name"] or "-") + (" (unknown)" if r["gpu_known"] is False else "")
        return f"{gpus(r['gpu_count'])} × {gpu}"
    if column == "provider":
        return offer.instance.channel
    if column == "region":
        region = str(r["region"]) + (f" ({r['zone']})" if r["zone"] else "")
        more = r.get("more_regions")
        return region + (f" +{more} region{'s' if more > 1 else ''}" if more else "")
    if column == "purchase":
        terms = offer.price
        stat = None if terms.listing_stat is None else terms.listing_stat + (
            f" of {terms.listing_count}" if terms.listing_count is not None else "")
        return str(r["purchase"]) + (f" ({stat})" if stat else "")
    if column == "vram":
        return num(r["gpu_memory_gib"]) + (" slice" if r["fractional"] else "")
    if column == "avail":  # an internal cluster that can add capacity: "6 free, +8 in ~5 min"
        if offer.provisionable_count is not None:
            return offer.capacity_label or "sold out"
        return {"available": "yes", "sold_out": "sold out", "unknown": "?"}[r["availability"]]
    if column == "network":
        from gpuhub.answer.network import network_label

        return network_label(offer.instance)
    if column == "nodes":
        nodes = int(r.get("_nodes", 1))
        return f"{money(offer.price.amount * nodes)} {r['currency']}"
    if column == "score":
        return f"{r['score']:.4g}" if r.get("score") is not None else "-"
    if column == "interruption":
        return _risk(r)
    key = {"vcpus": "vcpus", "ram": "memory_gib", "cpu": "cpu_arch"}.get(column, column)
    return num(r.get(key))


_GIVE_WAY = ("per_gpu", "region", "network", "gpu")
"""Core columns a terminal too narrow for every core column's narrowest leaves out, first to last (the price, its
purchase model, the seller and the instance type, and the price of N nodes, stay)."""


def fit_columns(widths: dict[str, int], width: int, candidates: Sequence[str],
                floors: dict[str, int] | None = None) -> list[str]:
    """The columns to show in a table ``width`` characters wide: the core ones
    (:data:`~gpuhub.answer.columns.CORE_COLUMNS`, and ``network``/``nodes`` when they are candidates: the search
    asked about them) always, unless even their narrowest (``floors``: a price whole, a heading's longest word)
    do not fit, when :data:`_GIVE_WAY` says which go; then each further candidate in importance order while it
    fits (``widths``: each column's widest cell or heading); in the left-to-right display order."""
    core = [*CORE_COLUMNS, "network", "nodes", "score"]  # a score, when there is one, is what the rows are ranked by
    chosen = choose_columns([c for c in candidates if c in core], _GIVE_WAY if floors is not None else (),
                            [c.name for c in TABLE_COLUMNS if c.name not in core and c.name in candidates],
                            widths, floors or {}, width)
    return [c for c in DISPLAY_ORDER if c in chosen]


def choose_columns(core: Sequence[str], give_way: Sequence[str], rest: Sequence[str], widths: dict[str, int],
                   floors: dict[str, int], width: int) -> list[str]:
    """The columns of a table ``width`` characters wide, by name: every ``core`` column, unless even their
    narrowest (``floors``, :func:`~gpuhub.cli.plaintext.narrowest`) do not fit, when the ``give_way`` ones leave,
    first to last, until they do; then each of ``rest`` (most important first) while its natural width
    (``widths``: its widest cell or heading, in characters) fits; core first, then the rest in that order."""
    chosen = list(core)
    for name in give_way:
        if sum(floors[c] for c in chosen) + _SEPARATOR * (len(chosen) - 1) <= width:
            break
        if name in chosen:
            chosen.remove(name)
    used = sum(widths[c] for c in chosen) + _SEPARATOR * (len(chosen) - 1)
    for name in rest:
        if used + _SEPARATOR + widths[name] <= width:
            chosen.append(name)
            used += _SEPARATOR + widths[name]
    return chosen


def left_out(width: int, headings: Sequence[str], shows: str) -> str:
    """The note under a table that left columns out: ``left out at 80 columns: vendor; aliases (--wide or a wider
    terminal shows them)``; ``shows`` names the options that show them (``--wide``)."""
    return f"left out at {width} columns: {'; '.join(headings)} ({shows} or a wider terminal shows them)"


def print_whole(table: PlainTable, out: TextConsole, wide: bool) -> None:
    """Print ``table`` on ``out``; with ``wide`` (every column asked for) on a terminal too narrow for even each
    column's narrowest, as wide as those need (the terminal wraps the lines, ``less -S`` scrolls them) rather than
    squeezed into broken words and figures."""
    need = table.floor_width()
    out.print(table, width=need if wide and need > out.width else None)


def print_fitted(table: PlainTable, core: Sequence[str], out: TextConsole, err: TextConsole, *,
                 give_way: Sequence[str] = (), rest: Sequence[str] | None = None, wide: bool = False,
                 shows: str = "--wide") -> None:
    """Print ``table`` on ``out`` with the columns that fit its width, in the table's order, as the search's table
    chooses them (:func:`choose_columns`): the ``core`` headings always (unless even their narrowest do not fit:
    then ``give_way``, first to last), then the other headings (``rest``, most important first; default the
    table's order) while they fit; every column with ``wide``. A cell too wide wraps as its column's
    :attr:`PlainTable.overflow` says (a number or price never). The headings left out are named on ``err``
    (:func:`left_out`, ``shows``: the options that show them)."""
    headings = table.headings
    if wide:
        chosen = list(headings)
    else:
        columns = {h: [row[i] for row in table.rows] for i, h in enumerate(headings)}
        widths = {h: max(cell_width(c) for c in [h, *cells]) for h, cells in columns.items()}
        floors = {h: narrowest(h, columns[h], table.overflow[i]) for i, h in enumerate(headings)}
        others = [h for h in headings if h not in core] if rest is None else rest
        chosen = choose_columns(core, give_way, others, widths, floors, out.width)
    keep = [i for i, h in enumerate(headings) if h in chosen]
    print_whole(PlainTable([headings[i] for i in keep], [table.right[i] for i in keep],
                           [table.overflow[i] for i in keep], [[row[i] for i in keep] for row in table.rows]),
                out, wide)
    dropped = [h for h in headings if h not in chosen]
    if dropped:
        err.print(left_out(out.width, dropped, shows))


def print_result(result: SearchResult, output: str, err: TextConsole, columns: list[TableColumn] | None = None,
                 wide: bool = False) -> None:
    """Print a search's offers (or groups) as ``output`` (``table``, ``json`` or ``csv``) on stdout and the notes
    under the table on ``err``. A table shows ``columns`` (in that order) if given, every column with ``wide``,
    else the most important that fit the terminal (a price is never cut)."""
    from gpuhub.service.searching import record_fields

    records = result.to_dicts(explained=output != "table")  # a table shows no explanation
    if output != "table" and _groups_cut(result):
        err.print(f"showing {len(result.groups or ())} of {result.choices} groups (--limit N shows more)")
    if output in ("json", "csv") and result.groups is None:
        _print_shown(result, err, cut_only=True)  # on stderr: what a script reads on stdout stays the records
    if output == "json":
        sys.stdout.write(json.dumps(records, indent=2) + "\n")
        return
    if output == "csv":
        if result.groups is None:  # prices as published (20.00, not 20.0)
            for r, offer in zip(records, result.offers, strict=True):
                r["price_per_hour"] = published(offer.price.amount)
        # the first record's keys are the header; with none, the header of this query's records all the same
        write_csv(records, list(records[0]) if records else record_fields(result.query))
        return
    out = stdout_console()
    if result.groups is not None:
        _print_groups(result, out, err, wide)
        return
    q = result.query
    scored = q.sort not in ("price", "price_per_gpu", "price_per_vram")
    arm = any(r["cpu_arch"] != "x86_64" for r in records)
    # network facts are shown when a network filter or --nodes asks about them
    network = bool(q.fabrics or q.nodes > 1 or q.min_network_gbps is not None or q.min_local_disk_gib is not None
                   or q.local_nvme)
    asked = {"network": network, "nodes": q.nodes > 1}
    rows = [{c.name: _cell(c.name, {**r, "_nodes": q.nodes}, offer) for c in TABLE_COLUMNS}
            for r, offer in zip(records, result.offers, strict=True)]
    headings = {c.name: c.heading for c in TABLE_COLUMNS}
    headings["nodes"] = f"{q.nodes} nodes per hour"
    if any(r["fractional"] for r in records):
        headings["vram"] += " (slice: per slice)"
    unit = ""  # the score heading's unit when a narrow table says it under the table instead
    if scored:
        headings["score"] = f"score ({records[0]['score_unit'] if records else ''})"
    if columns is not None:
        shown = [c.name for c in columns]
    else:
        candidates = [c.name for c in TABLE_COLUMNS if (c.name != "score" or scored) and (c.name != "cpu" or arm)
                      and asked.get(c.name, True)]
        if wide:
            shown = [c for c in DISPLAY_ORDER if c in candidates]
        else:
            widths = {c: max([len(headings[c]), *(len(row[c]) for row in rows)]) for c in candidates}
            if scored and sum(widths[c] for c in (*CORE_COLUMNS, "score")) + _SEPARATOR * len(CORE_COLUMNS) \
                    > out.width:  # narrow: the score's unit goes under the table, its heading is "score"
                unit, headings["score"] = headings["score"], "score"
                widths["score"] = max([5, *(len(row["score"]) for row in rows)])
            floors = {c: narrowest(headings[c], [row[c] for row in rows], _overflow(_BY_NAME[c])) for c in candidates}
            shown = fit_columns(widths, out.width, candidates, floors)
    dropped = [headings[c] for c in candidates if c in (*CORE_COLUMNS, "network", "nodes") and c not in shown] \
        if columns is None and not wide else []
    print_whole(_table(shown, headings, rows, [r for r in records]), out, wide and columns is None)
    if unit and "score" in shown:
        err.print(f"{unit}: the ranking, lower is better")
    if dropped:
        err.print(left_out(out.width, dropped, "--wide, --columns"))
    from gpuhub.answer.grouping import channel_notes

    for line in channel_notes(result.offers):
        err.print(plain(line))
    _print_shown(result, err)


def _print_shown(result: SearchResult, err: TextConsole, cut_only: bool = False) -> None:
    """How many of the matching offers (or distinct choices) the answer holds; ``cut_only``: only when ``--limit``
    or one row per choice left some out (JSON and CSV say nothing when they hold every match)."""
    shown = len(result.offers)
    if result.more_regions is not None and not (cut_only and shown == result.matched):
        err.print(f"showing {shown} of {result.choices} choices (one row per instance type and purchase model, best "
                  f"region first) from {result.matched} matching offers; --all-regions for every offer"
                  + ("; --limit N for more" if cut_only and result.choices is not None and result.choices > shown
                     else ""))
    if result.matched > shown and result.more_regions is None:
        err.print(f"showing {shown} of {result.matched} matching offers (--limit)")


def _table(shown: list[str], headings: dict[str, str], rows: list[dict[str, str]],
           records: list[dict[str, Any]]) -> PlainTable:
    by_name = {c.name: c for c in TABLE_COLUMNS}
    # a price is never cut or wrapped ("whole"): other columns give way; a purchase model wraps between words only
    table = PlainTable([headings[name] for name in shown],
                       [by_name[name].numeric for name in shown],
                       [_overflow(by_name[name]) for name in shown])
    for row in rows:
        table.add_row(*cells(*(row[name] for name in shown)))
    return table


def _overflow(column: TableColumn) -> Literal["whole", "words", "fold"]:
    """How a column of the offers table gives way when the terminal is narrow (:class:`PlainTable`)."""
    return "whole" if column.whole or column.numeric else "words" if column.words else "fold"


def _print_groups(result: SearchResult, out: TextConsole, err: TextConsole, wide: bool = False) -> None:
    assert result.groups is not None
    keys = list(result.groups[0].keys) if result.groups else list(result.query.group_by)
    columns = (*keys, "offers", "price range per hour", "regions", "best offer")
    # names and prices break only between words, counts never; the keys and the price range stay, the best offer,
    # the count and the regions follow while they fit (print_fitted says what it left out)
    table = PlainTable(list(columns), [c == "offers" for c in columns],
                       ["whole" if c == "offers" else "words" for c in columns])
    for g in result.groups:
        regions = [r.split(":", 1)[1] for r in g.regions]
        shown = ", ".join(regions[:3]) + (f" +{len(regions) - 3}" if len(regions) > 3 else "")
        span = money(g.price_min) + ("" if g.price_min == g.price_max else f" - {money(g.price_max)}")
        table.add_row(*cells(*(g.keys[k] for k in keys), g.offers, f"{span} {g.currency}",
                             f"{len(regions)}: {shown}", f"{g.best.instance_type} {g.best.region.code} "
                             f"{g.best.price.purchase} {money(g.best.price.amount)}"))
    print_fitted(table, [*keys, "price range per hour"], out, err, rest=["best offer", "offers", "regions"],
                 wide=wide, shows="--wide, --format csv")
    shown = f"showing {len(result.groups)} of {result.choices}" if _groups_cut(result) else f"{len(result.groups)}"
    err.print(f"{shown} groups of {result.matched} matching offers" + (" (--limit N shows more)"
                                                                       if _groups_cut(result) else ""))


def _groups_cut(result: SearchResult) -> bool:
    """True when ``--limit`` left groups out (``choices`` counts them all)."""
    return result.groups is not None and result.choices is not None and result.choices > len(result.groups)


_COLOURS = {"ok": "green", "stale": "yellow", "failed": "red", "skipped": "dim"}


def status_summary(result: SearchResult) -> str:
    """One line for every provider of a search, e.g. ``21 providers ok, 1 partial (gcp), 1 stale (lambda),
    2 outdated (gcp, azure), 3 with warnings; -v for details``: the counts that are not zero, with the providers'
    names when there are at most three."""
    statuses = result.statuses

    def part(label: str, names: list[str]) -> str | None:
        if not names:
            return None
        return f"{len(names)} {label}" + (f" ({', '.join(names)})" if len(names) <= 3 else "")

    ok = [s.provider for s in statuses if s.state == "ok" and not s.partial]
    parts = [f"{len(ok)} provider{'s' if len(ok) != 1 else ''} ok",
             part("partial", [s.provider for s in statuses if s.state == "ok" and s.partial]),
             part("stale", [s.provider for s in statuses if s.state == "stale"]),
             part("failed", [s.provider for s in statuses if s.state == "failed"]),
             part("skipped", [s.provider for s in statuses if s.state == "skipped"]),
             part("outdated", [s.provider for s in statuses if s.state in ("ok", "stale") and s.outdated()]),
             part("with warnings", [s.provider for s in statuses if s.warnings])]
    return plain(", ".join(p for p in parts if p) + "; -v for details")


def print_statuses(result: SearchResult, verbose: bool, err: TextConsole) -> None:
    """The provider statuses: one summary line (:func:`status_summary`), followed, when nothing matched, by the
    line of each provider that failed or was skipped (the reason the answer is empty); with ``verbose`` one line
    per provider (source kind, data date and age, warning count) followed by its warnings."""
    shown = result.statuses
    if not verbose:
        statuses = result.statuses
        # green only when every provider answered fully and on time: partial, stale and outdated data are news
        worst = "red" if any(s.state == "failed" for s in statuses) else "yellow" if any(
            s.state == "stale" or (s.state == "ok" and (s.partial or s.outdated())) for s in statuses) else "green"
        err.print(status_summary(result), style=worst)
        shown = [] if result.offers else [s for s in result.statuses if s.state in ("failed", "skipped")]
    for status in shown:
        colour = "yellow" if status.state == "ok" and status.partial else _COLOURS[status.state]
        blind = ", no availability data" if (
            status.state in ("ok", "stale") and status.provider in result.no_availability) else ""
        err.print(plain(status.line() + blind), style=colour)
        for warning in status.warnings if verbose else ():
            err.print(f"  warning: {plain(warning)}")
    if result.query.available_only:
        unknown, sold_out = result.availability_dropped
        err.print(f"--available dropped {unknown} offers whose availability is unknown and {sold_out} sold out")
