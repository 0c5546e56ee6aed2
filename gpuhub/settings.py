"""The ``GPUHUB_*`` environment settings that are numbers, and how a setting that cannot be used is reported: once per
process, one line on stderr naming the variable, the value it had and what is used instead (``gpuhub:
GPUHUB_FRESH_SPOT_S='abc' is not a number of seconds (0 or more); using 600``). A log record alone is not enough:
the command line quiets the engine's logger, and a library caller has no handler on it.

Just above the bottom layer: imports only the standard library and :mod:`gpuhub.display`.
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Mapping

from gpuhub.display import plain

__all__ = ["number_setting", "report_setting"]

_reported: set[str] = set()
_lock = threading.Lock()


def report_setting(message: str) -> None:
    """Print ``gpuhub: <message>`` on stderr (as text: :func:`~gpuhub.display.plain`), once per process for the same
    message."""
    with _lock:
        if message in _reported:
            return
        _reported.add(message)
    print(f"gpuhub: {plain(message)}", file=sys.stderr)


def number_setting(environ: Mapping[str, str], variable: str, default: float, *, what: str = "a number of seconds",
                   positive: bool = False, whole: bool = False) -> float:
    """The number ``environ[variable]`` holds, or ``default`` when it is unset or blank. A value that is not a finite
    number, is negative (0 too when ``positive``) or is a fraction when ``whole`` gives ``default`` and is reported
    (:func:`report_setting`); ``what`` names the kind of number the report asks for, e.g. ``"a number of
    seconds"`` or ``"a whole number of snapshots per provider"``."""
    raw = environ.get(variable, "")
    if not raw.strip():
        return default
    try:
        number = float(raw)
    except ValueError:
        number = math.nan
    ok = math.isfinite(number) and (number > 0 if positive else number >= 0) and (not whole or number.is_integer())
    if ok:
        return number
    bound = "more than 0" if positive else "0 or more"
    shown = int(default) if float(default).is_integer() else default
    report_setting(f"{variable}={raw!r} is not {what} ({bound}); using {shown}")
    return default
