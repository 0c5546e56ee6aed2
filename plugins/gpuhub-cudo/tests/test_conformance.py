"""gpuhub's conformance kit against the installed gpuhub-cudo (a public API: no credentials)."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestCudoConformance(ProviderConformance):
    provider_name = "cudo"
    min_offers = 143  # 11 machine types x data centres, 13 sizes each
    empty_body = b'{"machineTypes": []}'
