"""The core's conformance kit, run against the GCP provider and its bundled recording."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestGcpConformance(ProviderConformance):
    provider_name = "gcp"
    min_offers = 300
    empty_body = b'{"skus": [], "nextPageToken": ""}'
