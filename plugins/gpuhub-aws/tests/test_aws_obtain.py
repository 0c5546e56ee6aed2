"""Spot interruption risk on AWS spot offers, from the Spot Instance Advisor feed, through the public API.

The bundled recording carries the real June 2025 feed cut to the accelerator types; the tests against
``../shared/reference/obtainability/aws`` read the whole real feed (skipped when it is absent).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from gpuhub_aws.advisor import parse_advisor

import gpuhub
from gpuhub.plugin import Engine, Registry, make_engine, run_cli

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared" / "reference" / "obtainability" / "aws"


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    eng = make_engine(Registry())  # every installed plugin: the configuration that matters
    yield eng
    eng.shutdown()


def _feed() -> dict[str, object]:
    path = SHARED / "spot-advisor-data.full.2025-06.spotinfo.json"
    if not path.is_file():
        pytest.skip("../shared is absent")
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_max_interruption_10_keeps_h100_spot_offers_below_10_percent_with_bucket_source_and_date(
        engine: Engine) -> None:
    result = gpuhub.search("H100", purchase="spot", max_interruption=10, engine=engine, limit=None)
    records = result.to_dicts()
    assert {(r["provider"], r["instance_type"], r["region"]) for r in records} == {
        ("aws", "p5.48xlarge", "eu-north-1"), ("aws", "p5.48xlarge", "ca-central-1")}
    for r in records:
        assert (r["interruption"], r["interruption_max_pct"]) == ("<5%", 5.0)
        assert r["risk_source"] == "aws spot instance advisor@2025-06-28"
    eu = next(o for o in result if o.region.code == "eu-north-1")
    assert eu.price.amount == Decimal("20.2439")
    assert eu.obtain is not None and eu.obtain.risk is not None and eu.obtain.risk.savings_pct == 55
    assert result.removed_by["max_interruption"] > 0


def test_the_5_to_10_percent_bucket_ends_at_11_as_the_feed_says(engine: Engine) -> None:
    result = gpuhub.search("H100", purchase="spot", provider="aws", max_interruption=11, engine=engine, limit=None)
    by_region = {o.region.code: o.obtain.risk for o in result if o.obtain and o.obtain.risk}
    assert by_region["us-east-2"].label == "5-10%"
    assert (by_region["us-east-2"].min_pct, by_region["us-east-2"].max_pct) == (5.0, 11.0)
    assert "us-east-1" not in by_region  # p5.48xlarge in us-east-1 is '>20%' in the June 2025 feed


def test_every_aws_spot_offer_has_a_risk_and_unknown_is_never_zero(engine: Engine) -> None:
    result = gpuhub.search(purchase="spot", provider="aws", engine=engine, limit=None)
    assert len(result) > 100
    labels = {}
    for offer in result:
        assert offer.obtain is not None and offer.obtain.risk is not None
        risk = offer.obtain.risk
        labels[(offer.instance_type, offer.region.code)] = risk.label
        if risk.label == "unknown":
            assert risk.max_pct is None and risk.note and offer.instance_type in risk.note
    assert labels[("p5.48xlarge", "us-east-1")] == ">20%"
    assert labels[("p4d.24xlarge", "us-east-1")] == "10-15%"
    assert labels[("g6f.2xlarge", "us-east-1")] == "unknown"  # no g6f row in the June 2025 feed
    # on-demand offers and capacity blocks carry no risk and pass an interruption bound
    kept = gpuhub.search(instance_type="p5.48xlarge", region="us-east-1", max_interruption=5, engine=engine)
    assert {o.price.purchase for o in kept} == {"capacity_block", "on_demand"}


def test_the_bundled_buckets_are_the_real_feeds_buckets(engine: Engine) -> None:
    feed = _feed()
    real = parse_advisor(feed, None, lambda reason: None)
    result = gpuhub.search(purchase="spot", provider="aws", engine=engine, limit=None)
    compared = 0
    for offer in result:
        mine = offer.obtain.risk if offer.obtain else None
        theirs = real.risk(offer.region.code, offer.instance_type)
        if theirs is None:
            assert mine is not None and mine.label == "unknown"
            continue
        assert mine is not None and (mine.label, mine.max_pct, mine.savings_pct) == (
            theirs.label, theirs.max_pct, theirs.savings_pct)
        compared += 1
    assert compared > 100


def test_the_real_feed_parses_with_its_own_ranges_table() -> None:
    feed = _feed()
    skipped: list[str] = []
    advisor = parse_advisor(feed, "Sat, 28 Jun 2025 00:00:00 GMT", skipped.append)
    assert advisor.as_of == dt.date(2025, 6, 28) and not skipped
    p5 = advisor.risk("us-east-1", "p5.48xlarge")
    assert p5 is not None and (p5.label, p5.min_pct, p5.max_pct, p5.savings_pct) == (">20%", 22.0, 100.0, 52)
    p4de = advisor.risk("us-east-1", "p4de.24xlarge")
    assert p4de is not None and (p4de.label, p4de.max_pct) == ("<5%", 5.0)
    assert len([k for k in advisor.risks if k[:2] == ("us-east-1", "Linux")]) == 894


def test_a_feed_without_its_ranges_table_is_refused_not_guessed() -> None:
    with pytest.raises(ValueError, match="ranges"):
        parse_advisor({"spot_advisor": {}}, None, lambda reason: None)
    skipped: list[str] = []
    feed = {"ranges": [{"index": 0, "label": "<5%", "max": 5, "dots": 0}],
            "spot_advisor": {"us-east-1": {"Linux": {"p5.48xlarge": {"r": 7, "s": 50}, "g5.xlarge": {"r": 0}}}}}
    advisor = parse_advisor(feed, None, skipped.append)
    assert skipped == ["spot advisor: bucket not in the ranges table"]
    g5 = advisor.risk("us-east-1", "g5.xlarge")
    assert g5 is not None and g5.savings_pct is None and g5.max_pct == 5.0


def test_bad_interruption_arguments_name_the_argument(engine: Engine) -> None:
    with pytest.raises(gpuhub.QueryError, match="max_interruption"):
        gpuhub.search("H100", max_interruption=101, engine=engine)
    with pytest.raises(gpuhub.QueryError, match="min_placement_score"):
        gpuhub.search("H100", min_placement_score=0, engine=engine)
    with pytest.raises(gpuhub.QueryError, match="min_placement_score"):
        gpuhub.search("H100", min_placement_score=2.5, engine=engine)


def _quota_sample(name: str) -> dict[str, object]:
    path = SHARED / name
    if not path.is_file():
        pytest.skip("../shared is absent")
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_quotas_say_how_many_of_these_you_can_run_and_launchable_drops_zero(engine: Engine) -> None:
    found = gpuhub.search(instance_type=["p5.48xlarge", "g5.xlarge"], region="us-east-1", purchase="on_demand",
                          engine=engine)
    quota = {o.instance_type: o.obtain.quota_instances if o.obtain else None for o in found}
    # the replayed account's us-east-1 quotas: L-417A185B (P) 76 vCPUs, L-DB2E81BA (G) 768 vCPUs
    assert quota == {"p5.48xlarge": 76 // 192, "g5.xlarge": 768 // 4}
    kept = gpuhub.search(instance_type=["p5.48xlarge", "g5.xlarge"], region="us-east-1", purchase="on_demand",
                         launchable=True, engine=engine)
    assert [o.instance_type for o in kept] == ["g5.xlarge"] and kept.removed_by["launchable"] == 1
    [note] = [n for n in kept.launch_notes if n.startswith("launchable: aws")]
    assert "quota checked for 1 of 1 offers" in note and "EC2 publishes no live capacity" in note


def test_regions_without_a_quota_answer_say_why(engine: Engine) -> None:
    found = gpuhub.search(instance_type="p5.48xlarge", region="us-east-2", purchase="on_demand", engine=engine)
    [offer] = found
    assert offer.obtain is not None and offer.obtain.quota_instances is None
    assert any("no Service Quotas answer for us-east-2" in c for c in offer.obtain.checks)


def test_the_real_quota_fixtures_parse_by_their_own_names() -> None:
    from gpuhub_aws.quotas import parse_quotas

    east = parse_quotas("us-east-1", [_quota_sample(
        "service-quotas-ListServiceQuotas-ec2-us-east-1.cloudsploit-fixture.json")], lambda r: None)
    assert east.vcpus[("P", "on_demand")] == (76.0, "L-417A185B")
    assert east.vcpus[("G", "on_demand")] == (768.0, "L-DB2E81BA")  # "Running On-Demand G instances" (old name)
    assert ("P", "spot") not in east.vcpus
    south = parse_quotas("me-south-1", [_quota_sample(
        "service-quotas-ListServiceQuotas-ec2-me-south-1-with-spot.cloudsploit-fixture.json")], lambda r: None)
    assert south.vcpus[("P", "spot")] == (16.0, "L-7212CCBC")
    assert south.vcpus[("G", "spot")] == south.vcpus[("VT", "spot")] == (16.0, "L-3819A6DF")
    assert south.vcpus[("VT", "on_demand")] == (16.0, "L-DB2E81BA")
    assert south.instances("p4d.24xlarge", "spot", 96) == (0, "L-7212CCBC")
    assert south.instances("g5.xlarge", "spot", 4) == (4, "L-3819A6DF")


def test_the_real_answers_past_blocks_are_left_out_and_counted(engine: Engine) -> None:
    # The real us-east-2 p4d answer of Feb 2025 (24 h 283 USD, 19 h 228, 43 h 511): every start has passed.
    found = gpuhub.search(instance_type="p4d.24xlarge", region="us-east-2", purchase="capacity_block",
                          engine=engine, limit=None)
    assert found.status("aws").skipped_reasons["capacity block offering whose start has passed (left out)"] == 3
    assert not any(o.region.zone == "us-east-2a" for o in found)
    # What is offered instead: windows at the published rate (11.80 per instance-hour), all in the future.
    now = dt.datetime.now(dt.timezone.utc)
    assert found and all(o.price.amount == Decimal("11.8") and o.obtain and o.obtain.reservation
                         and o.obtain.reservation.start and o.obtain.reservation.start > now for o in found)


# --- capacity blocks as future windows (issue 26), on a fixed clock ------------------------------------------------
FIXED = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)  # after that day's 11:30 UTC start


def test_block_starts_are_the_next_11_30_utc_after_the_clock() -> None:
    from gpuhub_aws.capacity_blocks import next_starts

    assert next_starts(FIXED, 2) == [dt.datetime(2026, 12, 2, 11, 30, tzinfo=dt.timezone.utc),
                                     dt.datetime(2026, 12, 3, 11, 30, tzinfo=dt.timezone.utc)]
    morning = FIXED.replace(hour=9)
    assert next_starts(morning, 1) == [dt.datetime(2026, 12, 1, 11, 30, tzinfo=dt.timezone.utc)]


def test_published_windows_never_start_before_the_clock_and_p5e_is_at_47_76() -> None:
    from gpuhub_aws.capacity_blocks import LADDER_DAYS, STARTS, published_blocks

    from gpuhub.plugin import Instance, Region, Source

    class Ctx:  # what published_blocks uses of a ProviderContext
        source = Source(mode="replay", recording="aws")
        def __init__(self) -> None:
            self.warnings: list[str] = []

        def region(self, code: str) -> Region:
            return Region(provider="aws", code=code)

        def warn(self, message: str) -> None:
            self.warnings.append(message)

    ctx = Ctx()
    p5e = Instance(provider="aws", instance_type="p5e.48xlarge", gpu_count=8)
    blocks = list(published_blocks(ctx, "us-west-2", [], {"p5e.48xlarge": p5e}, FIXED))  # type: ignore[arg-type]
    assert len(blocks) == STARTS + len(LADDER_DAYS) - 1
    assert all(b.obtain and b.obtain.reservation and b.obtain.reservation.start > FIXED for b in blocks)
    assert {b.price.amount for b in blocks} == {Decimal("47.76")} and {b.data_date for b in blocks} == {
        dt.date(2026, 7, 22)}
    week = next(b for b in blocks if b.obtain and b.obtain.reservation and b.obtain.reservation.duration_hours == 168)
    assert (week.price.upfront, week.price.term_hours) == (Decimal("47.76") * 168, 168)
    # Types with a published rate here but no instance facts are said, not dropped silently.
    assert any("p5.48xlarge" in w for w in ctx.warnings)


def test_p5e_blocks_cover_the_published_regions(engine: Engine) -> None:
    found = gpuhub.search(instance_type="p5e.48xlarge", purchase="capacity_block", engine=engine, limit=None)
    assert {o.region.code for o in found} == {"ap-northeast-1", "ap-south-1", "ap-southeast-2", "ap-southeast-3",
                                              "eu-north-1", "eu-west-2", "us-east-2", "us-west-1", "us-west-2"}
    assert {o.price.amount for o in found} == {Decimal("47.76")}


def test_block_only_types_p6_b300_and_trn2_are_offered_at_their_published_rates(engine: Engine) -> None:
    """Issue 31 item 2: no offer file lists p6-b300 or trn2; the capacity blocks pricing page (2026-07-22) prices
    them where the bundled data covers the region, with facts from the bundled spec table."""
    b300 = gpuhub.search(instance_type="p6-b300.48xlarge", engine=engine, limit=None)
    assert {(o.region.code, o.price.purchase, o.price.amount) for o in b300} == {
        ("us-east-1", "capacity_block", Decimal("112.32")), ("us-west-2", "capacity_block", Decimal("112.32"))}
    inst = next(iter(b300)).instance
    assert (inst.gpu and inst.gpu.name, inst.gpu_count) == ("B300", 8)
    assert {o.data_date for o in b300} == {dt.date(2026, 7, 22)}
    now = dt.datetime.now(dt.timezone.utc)
    assert all(o.obtain and o.obtain.reservation and o.obtain.reservation.start > now for o in b300)
    # Trainium2 is an accelerator, not a GPU: only with include_accelerators.
    assert len(gpuhub.search(instance_type="trn2.48xlarge", engine=engine, limit=None)) == 0
    trn2 = gpuhub.search(instance_type="trn2.48xlarge", include_accelerators=True, engine=engine, limit=None)
    assert {(o.region.code, o.price.amount, o.instance.gpu_count) for o in trn2} == {
        ("us-east-2", Decimal("35.7608"), 16)}


def test_a_search_on_a_later_clock_leaves_out_every_block_that_has_started(engine: Engine) -> None:
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=3)
    found = gpuhub.search(instance_type="p5.48xlarge", purchase="capacity_block", engine=engine, limit=None,
                          start=later)
    assert found and all(o.obtain and o.obtain.reservation and o.obtain.reservation.start >= later for o in found)
    assert found.removed_by["past_start"] > 0  # the windows of the first days, counted


def test_estimate_compare_never_picks_a_past_block(tmp_path: Path) -> None:
    later = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=2)).replace(microsecond=0)
    done = run_cli(["estimate", "--instance-type", "p5.48xlarge", "--hours", "48", "--compare", "--start",
                    later.isoformat(), "--format", "json", "--fetch", "replay"],
                   env={"GPUHUB_CACHE_DIR": str(tmp_path), "GPUHUB_PLUGINS": "aws"})
    assert done.exit_code == 0, done.output
    rows = json.loads(done.stdout)
    block = next(r for r in rows["options"] if r["purchase"] == "capacity_block")
    assert dt.datetime.fromisoformat(block["reservation_start"]) >= later


def test_the_ai100_is_a_known_accelerator_left_out_unless_asked_for(engine: Engine) -> None:
    default = gpuhub.search(instance_type="dl2q.24xlarge", engine=engine, limit=None)
    assert len(default) == 0 and default.removed_by["include_accelerators"] == 4
    assert any("AI100 (4)" in w for w in default.status("aws").warnings)
    asked = gpuhub.search(instance_type="dl2q.24xlarge", include_accelerators=True, engine=engine, limit=None)
    assert len(asked) == 4 and {o.instance.gpu.name for o in asked if o.instance.gpu} == {"AI100"}
    assert "Qualcomm AI100" not in default.status("aws").unknown_gpus
