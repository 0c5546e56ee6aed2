"""Region facts: city, country, continent, coordinates and grid carbon intensity per provider region.

Sources: ``gpuhub/data/regions.csv`` and ``gpuhub/data/carbon.csv`` (the preferred row per region), built from
``shared/reference/regions.csv`` and ``carbon.csv`` by ``scripts/build_reference_data.py``; each row keeps its
``source``. Coordinates are representative city centres (providers rarely publish sites).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from gpuhub._data import read_csv
from gpuhub.model import Region

__all__ = ["CONTINENTS", "RegionFacts", "known_regions", "make_region", "region_facts"]

CONTINENTS = ("Africa", "Asia", "Europe", "North America", "Oceania", "South America")


@dataclass(frozen=True)
class RegionFacts:
    """Location facts of one provider region (``lat``/``lon`` in degrees; carbon in gCO2e/kWh)."""

    provider: str
    region: str
    name: str
    city: str
    country: str
    continent: str
    lat: float | None
    lon: float | None
    status: str = "public"
    carbon_gco2e_per_kwh: float | None = None
    carbon_year: str | None = None
    carbon_metric: str | None = None
    carbon_proxy_of: str | None = None


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
            carbon_proxy_of=c.get("proxy_of") or None,
        )
    return out


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
    facts = region_facts(provider, code)
    if facts is None:
        return Region(provider=provider, code=code, zone=zone)
    return Region(provider=provider, code=code, zone=zone, city=facts.city or None, country=facts.country or None,
                  continent=facts.continent or None, latitude=facts.lat, longitude=facts.lon,
                  carbon_gco2e_per_kwh=facts.carbon_gco2e_per_kwh)
