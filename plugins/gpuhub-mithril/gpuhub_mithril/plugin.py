"""gpuhub hook implementations of gpuhub-mithril (entry point ``mithril`` in the ``gpuhub`` group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, RegionFacts, hookimpl
from gpuhub_mithril.provider import Mithril

REGIONS = ("us-central2-a", "us-central2-b", "us-central3-a", "us-central5-a")
"""The regions Mithril's spot availability named in the bundled recording (SkyPilot catalog v8)."""


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Mithril provider (name ``mithril``)."""
    register(Mithril())


@hookimpl
def register_regions(register: Callable[[RegionFacts], None]) -> None:
    """Mithril's regions: country and continent from the ``us-`` in their names; Mithril publishes no city or
    coordinates, so none are given (``--near`` leaves them out)."""
    for region in REGIONS:
        register(RegionFacts(provider="mithril", region=region, country="US", continent="North America"))
