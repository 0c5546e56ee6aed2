"""The core's conformance kit, run against the installed gpuhub-daytona distribution."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestDaytonaConformance(ProviderConformance):
    provider_name = "daytona"
    min_offers = 112  # 56 GPU sandbox rows x (on-demand, spot); the 8 CPU-only rows are skipped
