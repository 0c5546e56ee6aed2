"""gpuhub hook implementations of gpuhub-spheron (entry point ``spheron`` in the ``gpuhub`` group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, RegionFacts, hookimpl
from gpuhub_spheron.provider import Spheron

# Spheron's cluster names come in three kinds: city-country-N (Sesterce's, e.g. "newyork-usa-1"), a partner's own
# region code ("CANADA-1", "NORWAY-1", "US-1": Hyperstack's; "Finland 3": Verda's FIN-03) and short site codes
# ("atl", "TYO4", "SYD2"). The city and country below are what the name says; the short site codes say nothing
# certain and get no facts. No coordinates from a name (it gives no data-centre location), with one exception:
# "Finland 3" is Verda's location of that name (its machines are Verda's, ``1H100.80S.32V_FIN-03_500``), placed
# where gpuhub-verda places FIN-03 (Helsinki, country-level), so one machine is as near sold direct or via Spheron.
_COUNTRY = {"usa": ("US", "North America"), "canada": ("CA", "North America"), "india": ("IN", "Asia"),
            "germany": ("DE", "Europe"), "uk": ("GB", "Europe"), "norway": ("NO", "Europe"),
            "france": ("FR", "Europe"), "singapore": ("SG", "Asia"), "japan": ("JP", "Asia"),
            "poland": ("PL", "Europe")}
_CITY = {"bangalore": "Bangalore", "calgary": "Calgary", "casper": "Casper", "chicago": "Chicago",
         "culpeper": "Culpeper", "dallas": "Dallas", "desmoines": "Des Moines", "frankfurt": "Frankfurt",
         "houston": "Houston", "kansascity": "Kansas City", "london": "London", "montreal": "Montreal",
         "newark": "Newark", "newyork": "New York", "oslo": "Oslo", "paris": "Paris", "raleigh": "Raleigh",
         "sanjose": "San Jose", "singapore": "Singapore", "tokyo": "Tokyo", "toronto": "Toronto",
         "warsaw": "Warsaw"}
CITY_CLUSTERS = (
    "bangalore-india-1", "calgary-canada-1", "casper-usa-1", "chicago-usa-1", "chicago-usa-4", "culpeper-usa-1",
    "dallas-usa-1", "desmoines-usa-1", "frankfurt-germany-6", "houston-usa-1", "kansascity-usa-1",
    "kansascity-usa-6", "london-uk-1", "montreal-canada-2", "newark-usa-1", "newyork-usa-1", "oslo-norway-1",
    "oslo-norway-3", "paris-france-1", "paris-france-5", "raleigh-usa-1", "sanjose-usa-1", "singapore-singapore-1",
    "tokyo-japan-2", "toronto-canada-1", "warsaw-poland-1",
)
"""The city-style clusters of the bundled recording."""
COUNTRY_CLUSTERS = {"CANADA-1": "canada", "NORWAY-1": "norway", "US-1": "usa", "Finland 3": "finland",
                    "us-central-2": "usa", "us-central-3": "usa", "us-central-9": "usa"}
"""Partner region codes whose name gives the country only."""
_COUNTRY["finland"] = ("FI", "Europe")
PARTNER_COORDINATES = {"Finland 3": (60.1695, 24.9354)}
"""Latitude and longitude of partner clusters whose partner publishes where they are (Verda's FIN-03: Helsinki)."""


def region_facts() -> list[RegionFacts]:
    """The facts the cluster names give (city, country, continent), for every cluster of the bundled recording
    whose name says where it is."""
    facts = []
    for cluster in CITY_CLUSTERS:
        city, country, _ = cluster.split("-")
        code, continent = _COUNTRY[country]
        facts.append(RegionFacts(provider="spheron", region=cluster, name=cluster, city=_CITY[city], country=code,
                                 continent=continent))
    for cluster, country in COUNTRY_CLUSTERS.items():
        code, continent = _COUNTRY[country]
        lat, lon = PARTNER_COORDINATES.get(cluster, (None, None))
        facts.append(RegionFacts(provider="spheron", region=cluster, name=cluster, country=code,
                                 continent=continent, lat=lat, lon=lon))
    return facts


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Spheron provider (name ``spheron``)."""
    register(Spheron())


@hookimpl
def register_regions(register: Callable[[RegionFacts], None]) -> None:
    """Spheron's clusters: city, country and continent where the cluster's name says them."""
    for facts in region_facts():
        register(facts)
