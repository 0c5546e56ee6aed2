"""The core's conformance kit, run against the installed gpuhub-primeintellect distribution."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestPrimeIntellectConformance(ProviderConformance):
    provider_name = "primeintellect"
    empty_body = b"{}"
    min_offers = 115  # the SkyPilot catalog's 115 GPU rows (its 75 CPU rows are skipped)
