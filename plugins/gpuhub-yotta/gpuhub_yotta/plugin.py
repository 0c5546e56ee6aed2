"""gpuhub hook implementations of gpuhub-yotta (entry point ``yotta`` in the ``gpuhub`` group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, RegionFacts, hookimpl
from gpuhub_yotta.provider import Yotta

# Yotta's region names say the country and no more (no city or data-centre location is published).
REGIONS = ("us-east-2", "us-central-2")


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Yotta provider (name ``yotta``)."""
    register(Yotta())


@hookimpl
def register_regions(register: Callable[[RegionFacts], None]) -> None:
    """Yotta's regions: United States, North America (what their names say)."""
    for region in REGIONS:
        register(RegionFacts(provider="yotta", region=region, name=region, country="US", continent="North America"))
