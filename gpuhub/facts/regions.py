"""Region facts: city, country, continent, coordinates and grid carbon intensity per provider region.

Sources: ``gpuhub/data/regions.csv`` and ``gpuhub/data/carbon.csv`` (the preferred row per region), built from
``shared/reference/regions.csv`` and ``carbon.csv`` by ``scripts/build_reference_data.py``; each row keeps its
``source``. Coordinates are representative city centres (providers rarely publish sites). Plugins add their own
regions through the ``register_regions`` hook (:func:`add_region`).

Carbon is on one basis for every provider: **location-based grid average** (Google's region-carbon-info yearly
figures, the only location-based series in the data). A region whose own figure is on another basis (AWS and
Azure rows are consumption-based Electricity Maps or CCF default factors) takes the figure of the nearest GCP region
in the same country, labelled ``proxy of gcp:...``; where the country has none, the region has no comparable figure
(``carbon_gco2e_per_kwh`` None, ``carbon_note`` says why) rather than a figure on another basis.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from gpuhub.facts._data import read_csv
from gpuhub.facts.geo import distance_km

if TYPE_CHECKING:
    from gpuhub.model import Region

__all__ = ["CONTINENTS", "LOCATION_BASED", "RegionFacts", "add_region", "known_regions", "make_region",
           "on_change", "region_facts"]
LOCATION_BASED = "grid_average_location_based"

CONTINENTS = ("Africa", "Asia", "Europe", "North America", "Oceania", "South America")


@dataclass(frozen=True)
class RegionFacts:
    """Location facts of one provider region (``lat``/``lon`` in degrees; carbon in gCO2e/kWh).

    ``country``: ISO 3166 alpha-2; ``continent``: one of :data:`CONTINENTS`; ``carbon_metric``: the basis of
    ``carbon_gco2e_per_kwh`` (``grid_average_location_based`` or ``proxy:...``); ``carbon_source``: where it is from.
    """

    provider: str
    region: str
    name: str = ""
    city: str = ""
    country: str = ""
    continent: str = ""
    lat: float | None = None
    lon: float | None = None
    status: str = "public"
    carbon_gco2e_per_kwh: float | None = None
    carbon_year: str | None = None
    carbon_metric: str | None = None
    carbon_proxy_of: str | None = None
    carbon_source: str | None = None
    carbon_excluded: str | None = None
    """Why the region has no figure on the common basis (its own figure's basis), when it has none."""


_ADDED: dict[tuple[str, str], RegionFacts] = {}


def add_region(facts: RegionFacts) -> None:
    """Add or replace one region's facts (the ``register_regions`` hook); searches after this see it.

    Raises:
        ValueError: ``continent`` is not one of :data:`CONTINENTS`, or coordinates are out of range.
    """
    if facts.continent and facts.continent not in CONTINENTS:
        raise ValueError(f"continent {facts.continent!r}: allowed values: {', '.join(CONTINENTS)}")
    if (facts.lat is not None and not -90 <= facts.lat <= 90) or (facts.lon is not None and not -180 <= facts.lon
                                                                  <= 180):
        raise ValueError(f"{facts.provider}:{facts.region}: latitude must be within ±90, longitude within ±180")
    if facts.carbon_gco2e_per_kwh is not None and not facts.carbon_metric:
        facts = dataclasses.replace(facts, carbon_metric=LOCATION_BASED, carbon_source=facts.carbon_source or
                                    f"registered by the {facts.provider} plugin")
    _ADDED[(facts.provider, facts.region)] = facts
    _table.cache_clear()
    make_region.cache_clear()
    for callback in _ON_CHANGE:
        callback()


_ON_CHANGE: list[Callable[[], None]] = []


def on_change(callback: Callable[[], None]) -> None:
    """Call ``callback`` (no arguments) whenever :func:`add_region` changes the table: what is derived from it
    elsewhere (the place index of :mod:`gpuhub.facts.location`) forgets its cache."""
    _ON_CHANGE.append(callback)


def _one_basis(out: dict[tuple[str, str], RegionFacts]) -> dict[tuple[str, str], RegionFacts]:
    """Every region's carbon on the location-based basis (module docstring), proxies labelled."""
    own = [f for f in out.values() if f.carbon_metric == LOCATION_BASED and f.lat is not None and f.lon is not None
           and f.carbon_gco2e_per_kwh is not None and f.provider == "gcp"]
    result = {}
    for key, f in out.items():
        metric = f.carbon_metric or ""
        if f.carbon_gco2e_per_kwh is None or metric.removeprefix("proxy:") == LOCATION_BASED:
            result[key] = f
            continue
        same = [g for g in own if g.country == f.country]
        if f.lat is None or f.lon is None or not same:
            result[key] = dataclasses.replace(f, carbon_gco2e_per_kwh=None, carbon_year=None, carbon_proxy_of=None,
                                              carbon_excluded=metric or "unknown basis")
            continue
        near = min(same, key=lambda g: distance_km(f.lat or 0, f.lon or 0, g.lat or 0, g.lon or 0))
        result[key] = dataclasses.replace(
            f, carbon_gco2e_per_kwh=near.carbon_gco2e_per_kwh, carbon_year=near.carbon_year,
            carbon_metric=f"proxy:{LOCATION_BASED}", carbon_proxy_of=f"gcp:{near.region}",
            carbon_source=near.carbon_source, carbon_excluded=None)
    return result


@lru_cache(maxsize=1)
def _table() -> dict[tuple[str, str], RegionFacts]:
    carbon: dict[tuple[str, str], dict[str, str]] = {}
    for r in read_csv("carbon.csv"):
        carbon[(r["provider"], r["region"])] = r
    out: dict[tuple[str, str], RegionFacts] = {}
    for r in read_csv("regions.csv"):
        c = carbon.get((r["provider"], r["region"]), {})
        out[(r["provider"], r["region"])] = RegionFacts(
            provider=r["provider"], region=r["region"], name=r["region_name"], city=r["city"],
            country=r["country"], continent=r["continent"], status=r["status"],
            lat=float(r["lat"]) if r["lat"] else None, lon=float(r["lon"]) if r["lon"] else None,
            carbon_gco2e_per_kwh=float(c["gco2e_per_kwh"]) if c.get("gco2e_per_kwh") else None,
            carbon_year=c.get("year") or None, carbon_metric=c.get("metric") or None,
            carbon_proxy_of=c.get("proxy_of") or None, carbon_source=c.get("source") or None,
        )
    out.update(_ADDED)
    return _one_basis(out)


def region_facts(provider: str, region: str) -> RegionFacts | None:
    """Facts for ``(provider, region code)``, or None when the region is not in the table."""
    return _table().get((provider, region))


def known_regions(provider: str | None = None, status: str | None = None) -> list[RegionFacts]:
    """All regions in the table, optionally of one provider and one status (``public``, ``general-access``,
    ``dedicated``, ``legacy``, ``govcloud``, ``china``, ...; see ``shared/reference/SOURCES.md``)."""
    return [f for (p, _), f in _table().items()
            if (provider is None or p == provider) and (status is None or f.status == status)]


@lru_cache(maxsize=4096)
def make_region(provider: str, code: str, zone: str | None = None) -> Region:
    """A :class:`Region` for a provider's region code, with location and carbon facts filled in where known."""
    from gpuhub.model import Region

    facts = region_facts(provider, code)
    if facts is None:
        return Region(provider=provider, code=code, zone=zone)
    return Region(provider=provider, code=code, zone=zone, city=facts.city or None, country=facts.country or None,
                  continent=facts.continent or None, latitude=facts.lat, longitude=facts.lon,
                  carbon_gco2e_per_kwh=facts.carbon_gco2e_per_kwh)


def located_region(provider: str, code: str, *, country: str | None = None, city: str | None = None,
                   zone: str | None = None) -> Region:
    """A :class:`Region` for a marketplace's place that no region table lists (a Vast.ai host's ``"Quebec, CA"``,
    an aggregator's ``"dulles-usa-1"``): the continent from the ISO ``country`` (its capital in the places table,
    ``gpuhub/data/places.csv``), the coordinates only from a ``city`` that table knows in that country (never the
    capital's: a host in Quebec is not in Ottawa). Registered facts of ``(provider, code)`` win when there are any.
    """
    facts = region_facts(provider, code)
    if facts is not None:
        return make_region(provider, code, zone)
    from gpuhub.facts.places import capital_of, find_city
    from gpuhub.model import Region

    upper = country.strip().upper() if country and country.strip() else None
    capital = capital_of(upper) if upper else None
    place = find_city(f"{city}, {upper}" if upper else city) if city else None
    if place is not None and upper is None:
        upper = place.country
    return Region(provider=provider, code=code, zone=zone, city=place.name if place else city, country=upper,
                  continent=place.continent if place else capital.continent if capital else None,
                  latitude=place.lat if place else None, longitude=place.lon if place else None)
