"""gpuhub hook implementations of gpuhub-cudo (entry point ``cudo`` in the ``gpuhub`` group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, RegionFacts, hookimpl
from gpuhub_cudo.provider import Cudo

# Cudo data-centre ids name their city (``ca-montreal-3``). Coordinates: Montréal, Stockholm and New York City from
# gpuhub's GeoNames place table; Kristiansand and Carlsbad (California) are city-centre coordinates.
REGION_FACTS = (
    RegionFacts(provider="cudo", region="ca-montreal-3", city="Montréal", country="CA", continent="North America",
                lat=45.5088, lon=-73.5878),
    RegionFacts(provider="cudo", region="no-kristiansand-1", city="Kristiansand", country="NO", continent="Europe",
                lat=58.1467, lon=7.9956),
    RegionFacts(provider="cudo", region="se-stockholm-1", city="Stockholm", country="SE", continent="Europe",
                lat=59.3294, lon=18.0687),
    RegionFacts(provider="cudo", region="us-carlsbad-1", city="Carlsbad", country="US", continent="North America",
                lat=33.1581, lon=-117.3506),
    RegionFacts(provider="cudo", region="us-newyork-1", city="New York City", country="US",
                continent="North America", lat=40.7143, lon=-74.006),
)


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Cudo Compute provider (name ``cudo``)."""
    register(Cudo())


@hookimpl
def register_regions(register: Callable[[RegionFacts], None]) -> None:
    """Cudo's data centres (city, country, coordinates), for ``--near``, ``--country`` and ``--continent``."""
    for facts in REGION_FACTS:
        register(facts)
