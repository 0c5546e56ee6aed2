"""Places and network distance: where the users or the data are, and how far each region is from them.

A place is a city (any city in the region table, e.g. ``Frankfurt``, ``Ashburn``, or any of the capitals, large
cities and tech hubs in :mod:`gpuhub.facts.places`, e.g. ``Nairobi``, ``Bangalore``, ``Cambridge, GB``), a country (ISO
alpha-2 code or English name: the centre of that country's cloud regions, or its capital where it has none), a
region code of any provider (``eu-central-1``, ``gcp:europe-west3``), or ``"lat,lon"`` in degrees.

Round-trip time model (documented estimate, not a measurement)::

    rtt_ms = 2 × great_circle_km × 1.5 / 200 + 2

Light in optical fibre travels at about 2/3 of c, ~200 km per ms; real routes run about 1.5× the great-circle
distance (Singla et al., "The Internet at the Speed of Light", HotNets 2014, report fibre paths that much longer
than the geodesic); 2 ms covers switching and the last mile. Frankfurt to AWS us-east-1 (6,560 km) gives ~100 ms;
measured public pings are 85-95 ms. Region coordinates are city centres (``gpuhub/data/regions.csv``) and may be
10-300 km off the actual sites.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import lru_cache

from gpuhub.errors import QueryError
from gpuhub.facts.geo import distance_km
from gpuhub.facts.regions import RegionFacts, known_regions, on_change

__all__ = ["Place", "distance_km", "resolve_place", "rtt_ms"]

FIBRE_KM_PER_MS = 200.0
ROUTE_FACTOR = 1.5
FIXED_MS = 2.0


@dataclass(frozen=True)
class Place:
    """A resolved place: a label for messages, and coordinates in degrees."""

    label: str
    latitude: float
    longitude: float


def rtt_ms(place: Place, latitude: float, longitude: float) -> float:
    """Estimated network round trip between ``place`` and a point, ms (model in the module docstring)."""
    km = distance_km(place.latitude, place.longitude, latitude, longitude)
    return 2 * km * ROUTE_FACTOR / FIBRE_KM_PER_MS + FIXED_MS


def _simplify(text: str) -> str:
    """A city name as the index keys it: case folded, without accents (``"Zürich"`` finds the region table's
    ``Zurich``), :func:`gpuhub.facts.places.simplify`."""
    from gpuhub.facts.places import simplify

    return simplify(text)


@lru_cache(maxsize=1)
def _index() -> tuple[dict[str, Place], dict[str, Place], dict[str, list[RegionFacts]]]:
    cities: dict[str, list[RegionFacts]] = {}
    countries: dict[str, list[RegionFacts]] = {}
    regions: dict[str, list[RegionFacts]] = {}
    for facts in known_regions():
        if facts.lat is None or facts.lon is None:
            continue
        city = _simplify(facts.city.split("(")[0].split("/")[0]) if facts.city else ""
        if city:
            cities.setdefault(city, []).append(facts)
        if facts.country:
            countries.setdefault(facts.country.upper(), []).append(facts)
        regions.setdefault(facts.region.lower(), []).append(facts)
        regions.setdefault(f"{facts.provider}:{facts.region}".lower(), []).append(facts)

    def centre(label: str, rows: list[RegionFacts]) -> Place:
        return Place(label, sum(r.lat or 0 for r in rows) / len(rows), sum(r.lon or 0 for r in rows) / len(rows))

    city_places = {name: centre(rows[0].city.split("(")[0].strip(), rows) for name, rows in cities.items()}
    country_places = {code: centre(code, rows) for code, rows in countries.items()}
    return city_places, country_places, regions


def _country_code(text: str) -> str | None:
    if len(text) == 2 and text.isalpha():
        return text.upper()
    import pycountry

    try:
        return str(pycountry.countries.lookup(text).alpha_2)
    except LookupError:
        return None


def resolve_place(text: str) -> Place:
    """Resolve a city, country, region code or ``"lat,lon"`` to a :class:`Place`.

    Raises:
        QueryError: (argument ``near``) the place is unknown; the message lists close matches.
    """
    raw = text.strip()
    coords = re.fullmatch(r"(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)", raw)
    if coords:
        lat, lon = float(coords.group(1)), float(coords.group(2))
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            raise QueryError("near", f"{raw!r}: latitude must be within ±90 and longitude within ±180")
        return Place(f"{lat:g},{lon:g}", lat, lon)
    cities, countries, regions = _index()
    key = _simplify(raw)
    if key in cities:
        return cities[key]
    rows = regions.get(raw.lower())
    if rows:
        if len({(r.lat, r.lon) for r in rows}) > 1:
            names = ", ".join(sorted(f"{r.provider}:{r.region}" for r in rows))
            raise QueryError("near", f"{raw!r} is a region code of several providers; write one of {names}")
        return Place(f"{rows[0].provider}:{rows[0].region}", rows[0].lat or 0.0, rows[0].lon or 0.0)
    from gpuhub.facts import places

    city = places.find_city(raw)
    if city is not None:
        return Place(f"{city.name} ({city.country})", city.lat, city.lon)
    code = _country_code(raw)
    if code and code in countries:
        return countries[code]
    capital = places.capital_of(code) if code else None
    if capital is not None:
        return Place(f"{raw} (capital {capital.name})", capital.lat, capital.lon)
    choices = sorted(set(cities) | {r for r in regions if ":" not in r} | set(places.names()))
    close = difflib.get_close_matches(key, choices, n=5, cutoff=0.6)
    hint = f" Close matches: {', '.join(close)}." if close else ""
    raise QueryError("near", f"unknown place {raw!r}.{hint} Give a city, a country, a region code or 'lat,lon'")


on_change(_index.cache_clear)  # a plugin's register_regions adds places to the index
