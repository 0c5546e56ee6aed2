"""The core's conformance kit, run against the installed gpuhub-lambda distribution."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance


class TestLambdaConformance(ProviderConformance):
    provider_name = "lambda"
    empty_body = b'{"data": {}}'
    min_offers = 340  # 20 GPU instance types x 17 regions in the bundled recording
