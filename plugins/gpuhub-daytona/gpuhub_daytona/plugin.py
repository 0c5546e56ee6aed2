"""gpuhub hook implementations of gpuhub-daytona (entry point ``daytona`` in the ``gpuhub`` group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, RegionFacts, hookimpl
from gpuhub_daytona.provider import Daytona


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Daytona provider (name ``daytona``)."""
    register(Daytona())


@hookimpl
def register_regions(register: Callable[[RegionFacts], None]) -> None:
    """Daytona's GPU region: ``earth``, its shared GPU fleet (SkyPilot's name; Daytona publishes no location, so
    no country, continent or coordinates are given)."""
    register(RegionFacts(provider="daytona", region="earth", name="Daytona shared GPU fleet (location not published)"))
