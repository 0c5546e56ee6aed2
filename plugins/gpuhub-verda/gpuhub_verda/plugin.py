"""gpuhub hook implementations of gpuhub-verda (entry point ``verda`` in the ``gpuhub`` group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, RegionFacts, hookimpl
from gpuhub_verda.provider import Verda

# Verda's locations (``locations.get()``: code, name, country_code; provider-samples/verda): FIN-01..03 "Finland
# N" (FI), ICE-01 "Iceland 1" (IS). Verda publishes no city; the coordinates are Helsinki's and Reykjavik's (gpuhub's
# GeoNames place table for Helsinki), country-level precision.
REGION_FACTS = tuple(
    RegionFacts(provider="verda", region=code, name=name, city="", country=country, continent="Europe",
                lat=lat, lon=lon)
    for code, name, country, lat, lon in (
        ("FIN-01", "Finland 1", "FI", 60.1695, 24.9354), ("FIN-02", "Finland 2", "FI", 60.1695, 24.9354),
        ("FIN-03", "Finland 3", "FI", 60.1695, 24.9354), ("ICE-01", "Iceland 1", "IS", 64.1355, -21.8954)))


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Verda provider (name ``verda``)."""
    register(Verda())


@hookimpl
def register_regions(register: Callable[[RegionFacts], None]) -> None:
    """Verda's locations (country; Helsinki/Reykjavik coordinates), for ``--near``, ``--country``, ``--continent``."""
    for facts in REGION_FACTS:
        register(facts)
