"""Durations the user types on the command line (``--max-age 15min``, ``store prune --older-than 7d``)."""

from __future__ import annotations

import re

__all__ = ["parse_duration"]

_UNITS = {"s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str) -> float:
    """Seconds in ``"90"``, ``"90s"``, ``"15min"``/``"15m"``, ``"12h"``, ``"7d"``, ``"2w"``.

    Raises:
        ValueError: anything else (the message lists the allowed forms).
    """
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(s|m|min|h|d|w)?\s*", text)
    if not match:
        raise ValueError(f"{text!r} is not a duration; use a number of seconds or e.g. 90s, 15min, 12h, 7d, 2w")
    return float(match.group(1)) * _UNITS[match.group(2) or "s"]
