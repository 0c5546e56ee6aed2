"""gpuhub hook implementations of gpuhub-nebius (entry point ``nebius`` in the ``gpuhub`` group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, RegionFacts, hookimpl
from gpuhub_nebius.provider import Nebius

# Where Nebius's regions are (Nebius docs, "Regions": eu-north1 Finland, eu-west1 Paris, us-central1 Kansas City).
# Coordinates: Paris from gpuhub's GeoNames place table; Mäntsälä (the Finnish data centre) and Kansas City are
# city-centre coordinates.
REGION_FACTS = (
    RegionFacts(provider="nebius", region="eu-north1", name="Finland", city="Mäntsälä", country="FI",
                continent="Europe", lat=60.63, lon=25.32),
    RegionFacts(provider="nebius", region="eu-west1", name="Paris", city="Paris", country="FR",
                continent="Europe", lat=48.8534, lon=2.3488),
    RegionFacts(provider="nebius", region="us-central1", name="Kansas City", city="Kansas City", country="US",
                continent="North America", lat=39.0997, lon=-94.5786),
)


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Nebius provider (name ``nebius``)."""
    register(Nebius())


@hookimpl
def register_regions(register: Callable[[RegionFacts], None]) -> None:
    """Nebius's region locations, for ``--near``, ``--country`` and ``--continent``."""
    for facts in REGION_FACTS:
        register(facts)
