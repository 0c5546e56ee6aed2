"""gpuhub hook implementations of gpuhub-seeweb (entry point ``seeweb`` in the ``gpuhub`` group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, RegionFacts, hookimpl
from gpuhub_seeweb.parse import REGIONS
from gpuhub_seeweb.provider import Seeweb


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Seeweb provider (name ``seeweb``)."""
    register(Seeweb())


@hookimpl
def register_regions(register: Callable[[RegionFacts], None]) -> None:
    """Where Seeweb's regions are (codes and cities: the API's ``available_regions``; city-centre coordinates). No
    grid-carbon figure: none is published for these sites."""
    for region in REGIONS.values():
        register(RegionFacts(provider="seeweb", region=region.code, name=region.city, city=region.city,
                             country=region.country, continent="Europe", lat=region.lat, lon=region.lon))
