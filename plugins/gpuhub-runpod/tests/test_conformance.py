"""The core's conformance kit, run against the installed gpuhub-runpod distribution."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestRunPodConformance(ProviderConformance):
    provider_name = "runpod"
    empty_body = b'{"data": {"countryCodes": [], "dataCenters": [], "gpuTypes": []}}'
    min_offers = 3000  # 203 Secure Cloud pods x 8 countries, on-demand and (most) interruptible
    credentials_optional = True
