"""Great-circle geometry on a spherical Earth (the region table's carbon proxies and the round-trip model of
:mod:`gpuhub.facts.location` both measure distances with it)."""

from __future__ import annotations

import math

__all__ = ["EARTH_RADIUS_KM", "distance_km"]

EARTH_RADIUS_KM = 6371.0
"""Mean Earth radius, km (IUGG)."""


def distance_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance (haversine) between two points given in degrees, km."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(a)))
