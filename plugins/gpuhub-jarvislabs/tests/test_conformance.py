"""The core's conformance kit, run against the installed gpuhub-jarvislabs distribution."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestJarvisLabsConformance(ProviderConformance):
    provider_name = "jarvislabs"
    empty_body = b'{"currency": "USD", "server_meta": []}'
    min_offers = 19  # 5 VM pools: L4 x1-8, A100-80GB x1-4, RTX PRO 6000 x1-8, H100 x1-8, H200 x1-8
