"""The core's conformance kit, run against the installed gpuhub-yotta distribution."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestYottaConformance(ProviderConformance):
    provider_name = "yotta"
    min_offers = 8  # every row of the SkyPilot catalog's yotta/vms.csv
