"""Text as text, and one rule for printing a price: what every surface (the command line, ``store show``, logs, the
web page) applies to what it prints.

- :func:`plain`: text that came from a provider, a plugin, a file or the user, made safe to print as it is: control
  characters (C0, DEL, C1) and the bidirectional overrides are shown escaped (``\\x1b``, ``\\n``, ``\\u202e``) so an
  escape sequence never reaches a terminal raw and one status line stays one line. Surfaces print the result as
  text, never as markup (rich markup off, HTML autoescaped).
- :func:`money`: the printing rule of prices in tables and on the web page: at most :data:`MONEY_DECIMALS`
  decimals (half up), trailing zeros trimmed down to two decimals: ``2.49``, ``20.00``, ``0.9494``, ``1.8214``,
  ``11.7917`` for a computed ``11.791666…``, ``125.7886`` for a 9-decimal ``125.788596112``. Published prices,
  computed rates (per GPU-hour, a block's per-hour rate) and ranges all print this way. JSON and CSV keep the
  exact figure (see :meth:`gpuhub.model.Offer.to_record`).
- :func:`source_label`: where data came from and its date, ``replay:lambda@2026-09-20`` (the ``source`` column).
- :func:`given`: a value a user gave, as an error message repeats it: a number as they would write it (``-1``,
  never the ``-1.0`` a float option turned it into), text as typed.

The bottom layer: imports only the standard library.
"""

from __future__ import annotations

import datetime as dt
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

__all__ = ["MONEY_DECIMALS", "given", "money", "plain", "published"]

MONEY_DECIMALS = 4
"""The most decimals a printed price shows (it shows at least 2)."""

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_ESCAPES: dict[int, str] = {
    **{c: _NAMED.get(chr(c), f"\\x{c:02x}") for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)]},
    **{c: f"\\u{c:04x}" for c in _BIDI},
}
_KEEP_NEWLINES = {**_ESCAPES}
del _KEEP_NEWLINES[ord("\n")]


def plain(text: Any, *, newlines: bool = False) -> str:
    """``text`` (any object, as ``str(text)``) with every control character escaped: ``"a\\x1b[2Jb"`` (ESC, then
    ``[2J``) becomes the 11 visible characters ``a\\x1b[2Jb``; tab, CR and LF become ``\\t``, ``\\r``, ``\\n``
    (``newlines=True`` keeps LF: a message of several lines). Markup such as ``[/x]`` or ``[bold]`` is left as it
    is: it is text, and the caller prints it as text."""
    return str(text).translate(_KEEP_NEWLINES if newlines else _ESCAPES)


_STEP = Decimal(1).scaleb(-MONEY_DECIMALS)


def money(value: Decimal | float | int | str) -> str:
    """A price as the tables and the web page print it (module doc): ``money(Decimal("11.79166666666666666666666667"))``
    is ``11.7917``, ``money(20)`` is ``20.00``, ``money("0.9494")`` is ``0.9494``. Any unit and currency: the
    caller adds them. A value that is not a finite number prints as given (``str(value)``)."""
    try:
        amount = value if isinstance(value, Decimal) else Decimal(str(value))
        if not amount.is_finite():
            return str(value)
        amount = amount.quantize(_STEP, rounding=ROUND_HALF_UP)
    except (InvalidOperation, ValueError):
        return str(value)
    text = format(amount, "f")
    whole, _, decimals = text.partition(".")
    decimals = decimals.rstrip("0").ljust(2, "0")
    return f"{whole}.{decimals}" if not (whole in ("-0",) and set(decimals) == {"0"}) else f"0.{decimals}"


def published(amount: Decimal | float | int | str) -> str:
    """A price or rate as published, exact (never rounded), with at least 2 decimals: ``20.00`` beside ``6.40``;
    ``0.9494`` and ``0.000096774`` stay (CSV exports, the arithmetic of a cost note)."""
    value = amount if isinstance(amount, Decimal) else Decimal(str(amount))
    value = value.normalize()
    if value.as_tuple().exponent > -2:  # type: ignore[operator]
        value = value.quantize(Decimal("0.01"))
    return format(value, "f")


def given(value: Any) -> str:
    """A value a user gave, as an error message repeats it: a whole float as the integer it is (``-1.0`` → ``-1``,
    ``3.0`` → ``3``), another number as Python writes it (``-2.5``, ``1e+300``, ``nan``), text that reads as a number
    as it was typed (``"-1"`` → ``-1``), any other text quoted (``'abc'``), anything else as its ``repr``."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    if isinstance(value, (int, float, Decimal)):
        return str(value)
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return repr(value)
        return value.strip()
    return repr(value)


def source_label(mode: str, recording: str | None, when: dt.date | None, data_date_known: bool = True) -> str:
    """The short label of a data source with the date of its data: ``live``, ``replay:lambda@2026-09-20``,
    ``static:nebius@undated`` (``data_date_known`` False: the data's own date is not known), ``replay:x`` (known
    to be dated, no date given). ``mode``: ``live``, ``replay`` or ``static``; ``recording``: the recording's label
    (``?`` when None); ``when``: the date of the data. :meth:`gpuhub.model.Source.label` prints this."""
    if mode == "live":
        return "live"
    stamp = f"@{when.isoformat()}" if when else ("@undated" if not data_date_known else "")
    return f"{mode}:{recording or '?'}{stamp}"
