"""AWS's side sources are time-bounded and never fail its prices (issue 24, defect 8).

The Spot Instance Advisor feed, Service Quotas, spot placement scores and capacity block offerings hang (they
answer nothing for ten minutes) or fail (HTTP 500) on the loopback fault server, while the offer files, instance
specs and spot prices answer. The audit's run: every side source walked in sequence with retries and no time
budget, ``timed out after 60 s, 0 offers``. Here the engine gives AWS 90 s and each request 60 s, so the walk of the
old code (one 60 s wait per hanging source) runs out of time; with the side sources bounded by
``GPUHUB_AWS_SIDE_SOURCES_S=2`` the provider answers ``ok`` with every on-demand, reserved and spot price of the
clean walk, and its status names each absent side source and why (its time budget ran out, or its error). A
hanging source is asked once: no retry past the budget.
"""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import pytest
from faultserver import Fault, FaultServer
from harness import LoopbackOnly, case_or_skip, live_engine, live_env, offer_keys, serving

from gpuhub import Offer, ProviderStatus, Registry
from gpuhub.kit.testing import run_provider

ADVISOR = "/spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json"
QUOTAS = "/servicequotas."
RECORDED_QUOTAS = "/servicequotas.us-east-1.amazonaws.com"
"""The bundled recording holds Service Quotas answers for us-east-1 and me-south-1 only."""
BLOCKS = "#Action=DescribeCapacityBlockOfferings"
PLACEMENT = "#Action=GetSpotPlacementScores"
HANG_S = 600.0
"""How long a hanging side source says nothing (the server's stop ends it)."""
NO_QUOTAS = b'{"Quotas": []}'
EMPTY_BLOCKS = (b'<DescribeCapacityBlockOfferingsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">'
                b"<requestId>00000000-0000-0000-0000-000000000000</requestId><capacityBlockOfferingSet/>"
                b"</DescribeCapacityBlockOfferingsResponse>")
"""Answers for the regions and types the recording holds none for (no quota, no offering), so the clean walk asks
nothing the server does not know."""
NO_SCORES = (b'<GetSpotPlacementScoresResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">'
             b"<requestId>00000000-0000-0000-0000-000000000000</requestId><spotPlacementScoreSet/>"
             b"</GetSpotPlacementScoresResponse>")
"""Placement scores are opt-in and none is recorded: an answer without scores."""


def _walk(registry: Registry, server: FaultServer, transport: LoopbackOnly) -> tuple[list[Offer], ProviderStatus]:
    case = case_or_skip(registry, "aws")
    env = {**live_env(registry, case, server), "GPUHUB_AWS_QUOTAS": "1", "GPUHUB_AWS_PLACEMENT_SCORES": "1",
           "GPUHUB_AWS_SIDE_SOURCES_S": "2"}
    engine = live_engine(registry, env, transport, request_timeout_s=60.0, timeout_s=90.0)
    try:
        offers, status = run_provider(engine, "aws", mode="live", refresh=True)
    finally:
        engine.shutdown()
    return list(offers), status


def _prices(offers: list[Offer]) -> list[tuple[str, str, str, str, str, str]]:
    return offer_keys([o for o in offers if o.price.purchase != "capacity_block"])


def _unrecorded_quotas(target: str) -> bool:
    return QUOTAS in target and "/servicequotas.us-east-1." not in target and "/servicequotas.me-south-1." not in target


@pytest.fixture
def clean(rel_registry: Registry, transport: LoopbackOnly) -> tuple[list[Offer], ProviderStatus]:
    """The clean walk: every side source answers."""
    case = case_or_skip(rel_registry, "aws")
    with serving(rel_registry, case) as server:
        server.inject(Fault.raw(NO_QUOTAS, content_type="application/x-amz-json-1.1"), match=_unrecorded_quotas)
        server.inject(Fault.raw(EMPTY_BLOCKS, content_type="text/xml"), match=lambda t: BLOCKS in t and not (
            t.startswith("/ec2.us-east-2.") and "=p4d.24xlarge&" in t))
        server.inject(Fault.raw(NO_SCORES, content_type="text/xml"), match=PLACEMENT)
        offers, status = _walk(rel_registry, server, transport)
        assert not server.misses, server.misses
    assert status.state == "ok" and not status.partial, status.line()
    assert not any("placement" in w for w in status.warnings), status.warnings
    spot = [o for o in offers if o.price.purchase == "spot"]
    assert any(o.obtain and o.obtain.risk and o.obtain.risk.label == ">20%" for o in spot)  # the real buckets
    return offers, status


@pytest.mark.parametrize("fault", ["hang", "http_500"])
def test_side_sources_that_hang_or_fail_never_cost_the_prices(fault: str, clean: tuple[list[Offer], ProviderStatus],
                                                              rel_registry: Registry,
                                                              transport: LoopbackOnly) -> None:
    case = case_or_skip(rel_registry, "aws")
    with serving(rel_registry, case) as server:
        for match, like in ((ADVISOR, None), (QUOTAS, RECORDED_QUOTAS), (BLOCKS, BLOCKS), (PLACEMENT, ADVISOR)):
            server.inject(Fault("stall", stall_s=HANG_S, like=like) if fault == "hang" else Fault.http_status(500),
                          match=match)
        offers, status = _walk(rel_registry, server, transport)
        asked = Counter(s.target.split("#")[0] + "#" + s.target.split("#")[1][:60] if "#" in s.target else s.target
                        for s in server.log if any(m in s.target for m in (ADVISOR, QUOTAS, BLOCKS, PLACEMENT)))
    # the prices: every on-demand, reserved and spot offer of the clean walk, e.g. p5.48xlarge on demand
    assert status.state == "ok", status.line()
    assert _prices(offers) == _prices(clean[0])
    p5 = [o.price.amount for o in offers if (o.instance_type, o.region.code, o.price.purchase) ==
          ("p5.48xlarge", "us-east-1", "on_demand")]
    assert p5 == [Decimal("55.04")], p5
    # each side source's absence, said in the status and on the offers
    why = "time budget" if fault == "hang" else "HTTP 500"
    warnings = " | ".join(status.warnings)
    assert any(w.startswith("spot interruption risk unknown: the Spot Instance Advisor feed") and why in w
               for w in status.warnings), warnings
    for region in ("us-east-1", "me-south-1"):
        assert any(f"quota: Service Quotas in {region}" in w and why in w for w in status.warnings), warnings
    assert any("capacity blocks" in w and why in w for w in status.warnings), warnings
    assert any(w.startswith("spot placement scores unavailable") and why in w for w in status.warnings), warnings
    assert status.partial and "capacity block offerings that could not be read" in status.partial_reasons
    spot = [o for o in offers if o.price.purchase == "spot"]
    assert spot and all(o.obtain and o.obtain.risk and o.obtain.risk.label == "unknown" and why in
                        (o.obtain.risk.note or "") for o in spot)
    on_demand = [o for o in offers if o.price.purchase == "on_demand"]
    assert on_demand and all(o.obtain and o.obtain.quota_instances is None and any(
        why in c for c in o.obtain.checks) for o in on_demand)
    if fault == "hang":  # no retry past the budget: each hanging request was sent once
        assert asked and max(asked.values()) == 1, asked


@pytest.mark.parametrize("value", ["soon", "0", "-5", "86400"])
def test_a_bad_side_source_budget_is_named_before_any_download(value: str, rel_registry: Registry,
                                                              transport: LoopbackOnly) -> None:
    case = case_or_skip(rel_registry, "aws")
    env = {**{k: v for k, v in case.env.items() if v}, "GPUHUB_AWS_BASE_URL": "http://127.0.0.1:9",
           "GPUHUB_AWS_SIDE_SOURCES_S": value}
    engine = live_engine(rel_registry, env, transport)
    try:
        offers, status = run_provider(engine, "aws", mode="live", refresh=True)
    finally:
        engine.shutdown()
    assert not offers and status.state == "failed", status.line()
    assert f"GPUHUB_AWS_SIDE_SOURCES_S={value!r}: give seconds, more than 0 and at most 3600" in (status.reason or "")
