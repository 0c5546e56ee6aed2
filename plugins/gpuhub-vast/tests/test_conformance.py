"""The core's conformance kit, run against the installed gpuhub-vast distribution."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestVastConformance(ProviderConformance):
    provider_name = "vast"
    empty_body = b'{"offers": []}'
    min_offers = 63  # the SkyPilot catalog's 63 listing summaries, on-demand (its interruptible prices are 0.00)
    credentials_optional = True
