"""The core's conformance kit, run against the installed gpuhub-spheron distribution."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestSpheronConformance(ProviderConformance):
    provider_name = "spheron"
    empty_body = b'{"data": [], "totalPages": 1}'
    min_offers = 156  # 152 catalog rows (one offer id and cluster each) + 4 spot prices of on-demand offers
