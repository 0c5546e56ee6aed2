"""gpuhub's conformance kit against the installed gpuhub-verda."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestVerdaConformance(ProviderConformance):
    provider_name = "verda"
    min_offers = 83  # 45 on-demand (type, location) rows of the catalog + 38 spot
    empty_body = b"[]"
