"""The core's conformance kit, run against the installed gpuhub-seeweb distribution."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestSeewebConformance(ProviderConformance):
    provider_name = "seeweb"
    empty_body = b'{"status": "ok", "plans": []}'
    min_offers = 21  # the 21 GPU plans of the SkyPilot catalog, all in it-fr2
