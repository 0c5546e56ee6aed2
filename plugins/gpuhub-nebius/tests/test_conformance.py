"""gpuhub's conformance kit against the installed gpuhub-nebius (static: the HTTP checks skip themselves)."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestNebiusConformance(ProviderConformance):
    provider_name = "nebius"
    min_offers = 29  # 21 GPU presets x regions on demand, 8 of them preemptible too
