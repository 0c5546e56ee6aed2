"""Writing a command's text and tables without rich, where what rich would write is known exactly.

rich lays out any table and styles text for any terminal; importing it and laying out the answer table was a tenth
of a warm ``gpuhub search``. For the common cases its output is simple: a table whose columns all fit at their
natural widths, with one-column-wide characters only, is its cells padded to the widest cell of each column and
joined by `` │ `` under a ``━╇━`` rule (the header in bold on a terminal); a line of text is the text (in its
colour on a terminal). :func:`plain_mode` says when that is all rich would do; :class:`PlainTable` and
:func:`styled_lines` write it. Everything else (an environment that forces or tunes colour, a dumb terminal, a
notebook, a table that must be narrowed, wide or combining characters) goes to rich. ``tests/test_plaintext.py``
compares the two byte for byte.
"""

from __future__ import annotations

import os
import sys
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Literal

__all__ = ["PlainTable", "cell_width", "narrowest", "plain_mode", "styled_lines", "text_width"]

Mode = Literal["plain", "terminal"]

_RICH_ENVIRONMENT = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "NO_COLOR", "JUPYTER_COLUMNS",
                     "JUPYTER_LINES")
"""Variables that change what rich writes (forced or disabled colour, notebook sizes): with any set, rich writes."""

_SGR = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33"}
"""The styles the command line uses, as ANSI select-graphic-rendition codes (rich writes these for them)."""


def plain_mode(stream: IO[str]) -> Mode | None:
    """How to write to ``stream`` without rich: ``plain`` (not a terminal: no escape codes), ``terminal`` (a
    terminal whose ``TERM`` is set and not dumb: styles as ANSI codes), or None when rich must decide (a variable
    of :data:`_RICH_ENVIRONMENT` is set, a notebook or IDLE, a dumb or unnamed terminal)."""
    if any(name in os.environ for name in _RICH_ENVIRONMENT) or "ipykernel" in sys.modules \
            or "idlelib" in sys.modules:
        return None
    isatty = getattr(stream, "isatty", None)
    try:
        terminal = bool(isatty()) if isatty is not None else False
    except ValueError:  # a closed stream: rich says so its own way
        return None
    if not terminal:
        return "plain"
    return "terminal" if os.environ.get("TERM", "") not in ("", "dumb", "unknown") else None


def text_width(text: str) -> int | None:
    """The number of terminal columns ``text`` takes when every character takes one (printable, not wide, not
    combining) and it does not start or end with a space (rich strips those when it justifies); None otherwise
    (rich measures those)."""
    if text != text.strip(" "):
        return None
    if text.isascii():
        return len(text) if text.isprintable() else None
    for char in text:
        if not char.isprintable() or unicodedata.combining(char) or unicodedata.east_asian_width(char) in ("W", "F"):
            return None
    return len(text)


def styled_lines(text: str, style: str | None, mode: Mode) -> str | None:
    """``text`` as rich writes it with ``style`` (one of :data:`_SGR`'s, space-separated, or None) in ``mode``:
    each line wrapped in the style's codes on a terminal; None for a style this module does not know."""
    if style is None or mode == "plain":
        return text
    codes = [_SGR.get(word) for word in style.split()]
    if not codes or None in codes:
        return None
    start = f"\x1b[{';'.join(c for c in codes if c)}m"
    return "\n".join(f"{start}{line}\x1b[0m" if line else line for line in text.split("\n"))


def cell_width(text: str) -> int:
    """The characters a cell of ``text`` needs on its widest line (a cell may hold line breaks)."""
    return max(len(line) for line in text.split("\n"))


def narrowest(heading: str, cells: Sequence[str], overflow: str) -> int:
    """The narrowest a column may be laid out (:attr:`PlainTable.overflow`): a ``whole`` column its widest cell or
    heading, a ``words`` column its longest word of heading and cells, any other its heading's longest word."""
    if overflow == "whole":
        return max(cell_width(c) for c in [heading, *cells])
    texts = [heading, *cells] if overflow == "words" else [heading]
    return max((len(w) for t in texts for w in t.split()), default=1)


@dataclass
class PlainTable:
    """A table of text cells laid out as rich's ``Table(show_edge=False, pad_edge=False, header_style="bold")``
    lays it out when every column fits at its natural width.

    Args:
        headings: one heading per column.
        right: per column, True for right-justified (numbers, prices).
        overflow: per column, how rich treats a cell too wide for a narrowed column: ``fold`` (wrap), ``words``
            (wrap between words only: purchase models), ``ellipsis`` (cut with …) or ``whole`` (never cut or
            wrapped: prices; the other columns give way).
        rows: the cells, one list per row, as text (control characters already escaped).
    """

    headings: list[str]
    right: list[bool]
    overflow: list[Literal["fold", "words", "ellipsis", "whole"]]
    rows: list[list[str]] = field(default_factory=list)

    def add_row(self, *cells: str) -> None:
        """Append one row of cells (one per column)."""
        self.rows.append(list(cells))

    def render(self, width: int, mode: Mode) -> str | None:
        """The table as text for a console ``width`` columns wide in ``mode`` (lines end in ``\\n``), or None when
        rich must lay it out (a column would have to be narrowed, or a cell has a wide or combining character)."""
        widths: list[int] = []
        for i, heading in enumerate(self.headings):
            widest = text_width(heading)
            if widest is None:
                return None
            for row in self.rows:
                size = text_width(row[i])
                if size is None:
                    return None
                widest = max(widest, size)
            widths.append(widest)
        last = len(widths) - 1
        if not widths or min(widths) == 0 or sum(widths) + 3 * last > width:  # rich gives an empty column 1
            return None

        def line(cells: Sequence[str], join: str, bold: bool) -> str:
            parts = []
            for i, text in enumerate(cells):
                padded = text.rjust(widths[i]) if self.right[i] else text.ljust(widths[i])
                if bold:
                    parts.append(("\x1b[1m \x1b[0m" if i else "") + f"\x1b[1m{padded}\x1b[0m"
                                 + ("\x1b[1m \x1b[0m" if i < last else ""))
                else:
                    parts.append((" " if i else "") + padded + (" " if i < last else ""))
            return join.join(parts)

        rule = "╇".join("━" * (w + (i > 0) + (i < last)) for i, w in enumerate(widths))
        lines = [line(self.headings, "┃", mode == "terminal"), rule, *(line(r, "│", False) for r in self.rows)]
        return "\n".join(lines) + "\n"

    def to_rich(self, width: int | None = None) -> Any:
        """The same table as a rich ``Table`` (for what :meth:`render` leaves to rich). Given the console's
        ``width`` and a table wider than it, the columns get fixed widths (:meth:`_narrowed`): every price whole,
        a purchase model broken only between words, every other column no narrower than its heading's longest
        word, the rest of the width shared by how much each column wants; rich's own narrowing could cut a price
        off the right edge once headings kept their words."""
        from rich.table import Table

        fixed = self._narrowed(width) if width is not None else None
        table = Table(show_edge=False, pad_edge=False, header_style="bold")
        for i, heading in enumerate(self.headings):
            justify: Literal["left", "right"] = "right" if self.right[i] else "left"
            overflow = self.overflow[i]
            if fixed is not None:
                table.add_column(heading, justify=justify, width=fixed[i],
                                 **({"no_wrap": True} if overflow == "whole" else {"overflow": "fold"}))
            elif overflow == "whole":  # never cut or wrapped: other columns give way
                widest = max([len(heading), *(len(r[i]) for r in self.rows)])
                table.add_column(heading, justify=justify, no_wrap=True, min_width=widest)
            else:
                table.add_column(heading, justify=justify, overflow="ellipsis" if overflow == "ellipsis" else "fold")
        for row in self.rows:
            table.add_row(*row)
        return table

    def floor_width(self) -> int:
        """The fewest terminal columns the table can take without breaking a word or a figure: each column at its
        narrowest (:func:`narrowest`), and the separators."""
        floors = self._widths()[1]
        return sum(floors) + 3 * (len(floors) - 1)

    def _widths(self) -> tuple[list[int], list[int]]:
        """Each column's natural width (its widest cell or heading) and its narrowest, in characters."""
        natural = [max(cell_width(c) for c in [h, *(r[i] for r in self.rows)]) for i, h in enumerate(self.headings)]
        floors = [min(natural[i], narrowest(heading, [r[i] for r in self.rows], self.overflow[i]))
                  for i, heading in enumerate(self.headings)]
        return natural, floors

    def _narrowed(self, width: int) -> list[int] | None:
        """Column widths for a table wider than ``width`` (None: it fits, or not even the floors fit)."""
        natural, floors = self._widths()
        room = width - 3 * (len(natural) - 1)
        if sum(natural) <= room:
            return None
        spare = room - sum(floors)
        if spare < 0:
            return None
        wants = [n - f for n, f in zip(natural, floors, strict=True)]
        total = sum(wants)
        shares = [spare * w // total if total else 0 for w in wants]
        for i in sorted(range(len(wants)), key=lambda k: -wants[k])[:spare - sum(shares)]:  # the remainder
            shares[i] += 1
        return [min(n, f + s) for n, f, s in zip(natural, floors, shares, strict=True)]
