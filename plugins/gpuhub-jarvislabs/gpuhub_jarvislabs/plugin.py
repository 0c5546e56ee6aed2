"""gpuhub hook implementations of gpuhub-jarvislabs (entry point ``jarvislabs`` in the ``gpuhub`` group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, RegionFacts, hookimpl
from gpuhub_jarvislabs.parse import REGIONS
from gpuhub_jarvislabs.provider import JarvisLabs


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the JarvisLabs provider (name ``jarvislabs``)."""
    register(JarvisLabs())


@hookimpl
def register_regions(register: Callable[[RegionFacts], None]) -> None:
    """Where JarvisLabs' regions are (region ids and codes: the jarvislabs SDK's constants; the city is in the
    region id; coordinates are city centres). No grid-carbon figure: none is published for these sites."""
    for region in REGIONS.values():
        register(RegionFacts(provider="jarvislabs", region=region.code, name=region.region_id, city=region.city,
                             country=region.country, continent=region.continent, lat=region.lat, lon=region.lon))
