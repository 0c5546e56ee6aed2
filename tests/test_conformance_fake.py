"""The conformance kit run on the core's fake provider (every provider plugin runs the same kit)."""

from __future__ import annotations

import fakecloud

from gpuhub.kit.testing import ProviderConformance


class TestFakeCloudConformance(ProviderConformance):
    provider_name = "fakecloud"
    registry_plugins = (fakecloud.PLUGIN,)
    min_offers = 7
    empty_body = b'{"offers": [], "next_page": null}'
