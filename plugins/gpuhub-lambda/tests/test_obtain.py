"""Lambda's live capacity (``regions_with_capacity_available``) drives ``launchable``, on the real 20-type answer."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import httpx

import gpuhub
from gpuhub.plugin import CountingTransport, Registry, make_engine


def test_launchable_keeps_the_regions_lambda_says_have_capacity(registry: Registry,
                                                                reference: Callable[..., Path]) -> None:
    body = reference("obtainability", "lambda", "instance-types.response.lambda-ai-cloud-api-client-test-fixture.json")
    content = body.read_bytes()
    transport = CountingTransport(lambda request, n: httpx.Response(
        200, content=content, headers={"content-type": "application/json"}))
    engine = make_engine(registry, transport=transport, environ={"LAMBDA_API_KEY": "test-key"})
    try:
        every = gpuhub.search(instance_type="gpu_8x_h100_sxm5", engine=engine, fetch="live", limit=None)
        kept = gpuhub.search(instance_type="gpu_8x_h100_sxm5", engine=engine, fetch="live", launchable=True,
                             limit=None)
    finally:
        engine.shutdown()
    answer = json.loads(content)["data"]["gpu_8x_h100_sxm5"]
    with_capacity = {r["name"] for r in answer["regions_with_capacity_available"]}
    assert with_capacity == {"us-west-3", "us-south-2", "us-south-3"}
    assert {o.region.code for o in kept} == with_capacity
    assert len(every) > len(kept) and {o.region.code for o in every if o.available} == with_capacity
    assert all(o.price.amount == Decimal("23.92") for o in kept)
    assert kept.removed_by["launchable"] == len(every) - len(kept)
    assert kept.launch_notes == ["launchable: lambda: quota checked for 0 of 3 offers, capacity for 3; the "
                                 "provider gives no quota or capacity source for the others"]


def test_replayed_offers_say_capacity_is_unknown_and_why(replayed: tuple[tuple[gpuhub.Offer, ...], object]) -> None:
    offers, _ = replayed
    assert offers and all(o.available is None for o in offers)
    checks = {c for o in offers if o.obtain for c in o.obtain.checks}
    assert any("not a capacity snapshot" in c for c in checks)
