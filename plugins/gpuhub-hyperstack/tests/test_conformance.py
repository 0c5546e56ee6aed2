"""gpuhub's conformance kit against the installed gpuhub-hyperstack (static: the HTTP checks skip themselves)."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestHyperstackConformance(ProviderConformance):
    provider_name = "hyperstack"
    min_offers = 25  # every catalog row is a priced GPU flavor in one region
