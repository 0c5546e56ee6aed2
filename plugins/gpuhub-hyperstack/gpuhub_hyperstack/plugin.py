"""gpuhub hook implementations of gpuhub-hyperstack (entry point ``hyperstack`` in the ``gpuhub`` group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, RegionFacts, hookimpl
from gpuhub_hyperstack.provider import Hyperstack

# The region codes name the country only; Hyperstack's data-centre cities are not in the reference material, so
# no coordinates are registered (--country and --continent work, --near does not rank these regions).
REGION_FACTS = (
    RegionFacts(provider="hyperstack", region="CANADA-1", name="Canada", country="CA", continent="North America"),
    RegionFacts(provider="hyperstack", region="NORWAY-1", name="Norway", country="NO", continent="Europe"),
    RegionFacts(provider="hyperstack", region="US-1", name="United States", country="US", continent="North America"),
)


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Hyperstack provider (name ``hyperstack``)."""
    register(Hyperstack())


@hookimpl
def register_regions(register: Callable[[RegionFacts], None]) -> None:
    """Hyperstack's regions (country and continent), for ``--country`` and ``--continent``."""
    for facts in REGION_FACTS:
        register(facts)
