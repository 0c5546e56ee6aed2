"""gpuhub's conformance kit against the installed gpuhub-oci (a public price list: no credentials)."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestOciConformance(ProviderConformance):
    provider_name = "oci"
    min_offers = 1100  # 21 GPU shapes on demand + 4 preemptible, in 44 regions
    empty_body = b'{"items": []}'
