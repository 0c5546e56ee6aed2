"""The core's conformance kit, run against the installed gpuhub-shadeform distribution."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestShadeformConformance(ProviderConformance):
    provider_name = "shadeform"
    empty_body = b'{"instance_types": []}'
    min_offers = 259  # 177 instance types of 18 clouds in their 62 regions (SkyPilot catalog)
