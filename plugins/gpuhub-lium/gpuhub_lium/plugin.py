"""gpuhub hook implementations of gpuhub-lium (entry point ``lium`` in the ``gpuhub`` group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, RegionFacts, hookimpl
from gpuhub_lium.provider import Lium

# Lium's regions are its hosts' countries (ISO 3166 alpha-2, the feed's ``country_code``): the feed names no city,
# so no coordinates are given (a country's centre would be a made-up location). These are the countries of the
# bundled recording; a new country in a live answer is offered under its code, without facts.
COUNTRIES = {
    "AU": ("Australia", "Oceania"), "CA": ("Canada", "North America"), "DE": ("Germany", "Europe"),
    "FI": ("Finland", "Europe"), "FR": ("France", "Europe"), "GR": ("Greece", "Europe"),
    "HK": ("Hong Kong", "Asia"), "JP": ("Japan", "Asia"), "RO": ("Romania", "Europe"), "RU": ("Russia", "Europe"),
    "UA": ("Ukraine", "Europe"), "US": ("United States", "North America"),
}


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Lium provider (name ``lium``)."""
    register(Lium())


@hookimpl
def register_regions(register: Callable[[RegionFacts], None]) -> None:
    """Lium's regions (host countries): country and continent, for ``--country`` and ``--continent``."""
    for code, (name, continent) in COUNTRIES.items():
        register(RegionFacts(provider="lium", region=code, name=name, country=code, continent=continent))
