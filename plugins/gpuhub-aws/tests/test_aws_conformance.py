"""The core's conformance kit run against the AWS provider (bundled recording, retries, empty answers, credentials)."""

from __future__ import annotations

from gpuhub.plugin import ProviderConformance

EMPTY_OFFER_FILE = (b'{"formatVersion":"v1.0","offerCode":"AmazonEC2","version":"20261130000000",'
                    b'"publicationDate":"2026-11-30T00:00:00Z","products":{},"terms":{"OnDemand":{},"Reserved":{}}}')


class TestAwsConformance(ProviderConformance):
    provider_name = "aws"
    min_offers = 2000
    empty_body = EMPTY_OFFER_FILE
