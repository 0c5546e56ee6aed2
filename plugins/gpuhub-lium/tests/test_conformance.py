"""The core's conformance kit, run against the installed gpuhub-lium distribution."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestLiumConformance(ProviderConformance):
    provider_name = "lium"
    empty_body = b'{"nodes": []}'
    credentials_optional = True
    min_offers = 34  # one per row of the SkyPilot catalog's lium/vms.csv
