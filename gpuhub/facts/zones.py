"""Time zones of places: which IANA time zone a point is in, and where a zone's city is.

``zone_at(lat, lon)``: the zone of the nearest place of ``gpuhub/data/place_zones.csv`` within
:data:`NEAR_KM` (every city of the places table and every region city, with its GeoNames time zone; rebuilt by
``scripts/build_place_zones.py``); farther than that, the zone of the nearest zone city of the time zone
database's ``zone.tab`` (the system's, else the tzdata package's), said as such because a zone city can be across
a zone border (Seattle's nearest is Boise). ``zone_city(zone)``: that zone's coordinates in ``zone.tab``.
"""

from __future__ import annotations

import re
import zoneinfo
from functools import lru_cache
from pathlib import Path

from gpuhub.facts._data import read_csv
from gpuhub.facts.geo import distance_km

__all__ = ["NEAR_KM", "zone_at", "zone_city"]

NEAR_KM = 100.0
"""How far a named place may be from the point for its time zone to be taken."""


@lru_cache(maxsize=1)
def _places() -> tuple[tuple[str, str, float, float], ...]:
    return tuple((r["name"], r["timezone"], float(r["lat"]), float(r["lon"])) for r in read_csv("place_zones.csv"))


@lru_cache(maxsize=1)
def _zone_table() -> tuple[tuple[str, float, float], ...]:
    """``(zone, lat, lon)`` of every row of ``zone.tab``; empty when no time zone data has it."""
    text = None
    for base in zoneinfo.TZPATH:
        try:
            text = (Path(base) / "zone.tab").read_text(encoding="utf-8")
            break
        except OSError:
            continue
    if text is None:
        try:
            from importlib import resources

            text = resources.files("tzdata").joinpath("zoneinfo").joinpath("zone.tab").read_text(encoding="utf-8")
        except (ModuleNotFoundError, OSError):
            return ()

    def degrees(raw: str, width: int) -> float:
        sign = -1 if raw[0] == "-" else 1
        d, m, s = int(raw[1:1 + width]), int(raw[1 + width:3 + width]), int(raw[3 + width:5 + width] or 0)
        return sign * (d + m / 60 + s / 3600)

    rows = []
    for line in text.splitlines():
        fields = line.split("\t")
        if line.startswith("#") or len(fields) < 3:
            continue
        m = re.fullmatch(r"([+-]\d+)([+-]\d+)", fields[1])
        if m:
            rows.append((fields[2], degrees(m.group(1), 2), degrees(m.group(2), 3)))
    return tuple(rows)


def zone_at(lat: float, lon: float) -> tuple[str, str] | None:
    """``(zone, how it was found)`` for a point in degrees, or None with no time zone data at all."""
    places = _places()
    if places:
        name, zone, plat, plon = min(places, key=lambda p: distance_km(lat, lon, p[2], p[3]))
        km = distance_km(lat, lon, plat, plon)
        if km <= NEAR_KM:
            return zone, f"GeoNames time zone of {name}, {km:.0f} km away"
    table = _zone_table()
    if not table:
        return None
    zone, zlat, zlon = min(table, key=lambda z: distance_km(lat, lon, z[1], z[2]))
    return zone, (f"the nearest zone city of the time zone database, {distance_km(lat, lon, zlat, zlon):.0f} km "
                  "away: give tz= if a zone border lies between")


def zone_city(zone: str) -> tuple[float, float] | None:
    """The coordinates of ``zone``'s city in ``zone.tab`` (degrees), or None."""
    return next(((lat, lon) for z, lat, lon in _zone_table() if z == zone), None)
