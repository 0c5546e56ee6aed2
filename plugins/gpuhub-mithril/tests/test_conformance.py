"""The core's conformance kit, run against the installed gpuhub-mithril distribution."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestMithrilConformance(ProviderConformance):
    provider_name = "mithril"
    empty_body = b"[]"
    min_offers = 2  # 8 x H100 and 8 x H200; the A100 and B200 prices are placeholders
