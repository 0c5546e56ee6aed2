"""gpuhub's conformance kit against the installed gpuhub-coreweave (static: the HTTP checks skip themselves)."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestCoreWeaveConformance(ProviderConformance):
    provider_name = "coreweave"
    min_offers = 196  # 9 node types on demand + 5 with spot (HGX B300 spot only), in 14 regions
