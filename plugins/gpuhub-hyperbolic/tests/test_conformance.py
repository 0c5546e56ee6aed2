"""The core's conformance kit, run against the installed gpuhub-hyperbolic distribution."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestHyperbolicConformance(ProviderConformance):
    provider_name = "hyperbolic"
    empty_body = b'{"vms": []}'
    min_offers = 3  # 1, 2 and 3 x H100
