"""``gpuhub estimate --compare`` and the expected cost of interruptible capacity, on the installed plugins'
bundled recordings (AWS: on-demand, spot with the Spot Instance Advisor bucket, Capacity Blocks for ML)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from decimal import Decimal

import pytest
from typer.testing import CliRunner

import gpuhub
from gpuhub import Engine
from gpuhub.answer.compare import compare
from gpuhub.answer.cost import expected_interruptions
from gpuhub.cli.commands import app
from gpuhub.model import Gpu, Instance, Offer, Price, Region, Source
from gpuhub.obtain import Obtainability, SpotRisk
from tests.engines import installed_providers

runner = CliRunner()


@pytest.fixture(scope="module")
def installed() -> Iterator[Engine]:
    with installed_providers("aws") as engine:
        yield engine


def _compare(*args: str) -> dict[str, dict[str, object]]:
    result = runner.invoke(app, ["estimate", *args, "--compare", "--format", "json"])
    assert result.exit_code == 0, result.output
    return {o["purchase"]: o for o in json.loads(result.stdout)["options"]}


def test_p5_48_hours_compare_lists_every_purchase_model_cheapest_first(installed: Engine) -> None:
    result = runner.invoke(app, ["estimate", "--instance-type", "p5.48xlarge", "--hours", "48", "--compare",
                                 "--region", "us-east-1", "--format", "json"])
    assert result.exit_code == 0, result.output
    options = json.loads(result.stdout)["options"]
    assert [o["purchase"] for o in options] == ["spot", "capacity_block", "on_demand"]
    costs = [o["cost"] for o in options]
    assert costs == sorted(costs)
    block = options[1]
    # the published capacity block price in us-east-1 (41.528 USD per instance-hour) × 48 h: two 24-hour blocks
    assert block["cost"] == float((Decimal("41.528") * 48).quantize(Decimal("0.01"))) == 1993.34
    assert block["break_even_hours"] == round(1993.344 / 55.04, 2)  # against on-demand at 55.04 USD/h
    start = dt.datetime.fromisoformat(block["reservation_start"])  # the next 11:30 UTC start: never in the past
    assert start > dt.datetime.now(dt.timezone.utc) and (start.hour, start.minute) == (11, 30)
    assert block["reservation_hours"] == 24
    spot = options[0]
    assert spot["interruption"] == ">20%" and spot["price_per_hour"] == 14.246
    assert any("100 %/month" in n and "interruptions" in n for n in spot["notes"])  # the arithmetic is shown
    assert options[2]["cost"] == 2641.92  # 55.04 × 48


def test_p4d_24_hour_block_is_never_the_283_usd_of_the_real_answer_that_has_passed(installed: Engine) -> None:
    # The real answer's 24-hour block (283 USD, us-east-2a, 2025-02-15) started long ago: the published rate's
    # window (11.80 × 24) for the next start is picked instead.
    options = _compare("--instance-type", "p4d.24xlarge", "--hours", "24", "--region", "us-east-2")
    block = options["capacity_block"]
    assert block["cost"] == 283.2 and block["zone"] is None
    assert dt.datetime.fromisoformat(block["reservation_start"]) > dt.datetime.now(dt.timezone.utc)


def test_compare_table_names_the_cheapest(installed: Engine) -> None:
    result = runner.invoke(app, ["estimate", "--instance-type", "p5.48xlarge", "--hours", "48", "--compare",
                                 "--region", "us-east-1"])
    assert result.exit_code == 0
    assert "capacity_block" in result.stdout and "1993.34 USD" in result.stdout
    assert "cheapest for 48 h: spot in us-east-1" in result.output


def _offer(price: str, label: str | None, max_pct: float | None, region: str) -> Offer:
    instance = Instance(provider="aws", instance_type="p5.48xlarge", gpu=Gpu(name="H100"), gpu_count=8)
    risk = SpotRisk(label=label, max_pct=max_pct, source="aws spot instance advisor") if label else None
    return Offer(instance=instance, region=Region(provider="aws", code=region),
                 price=Price(amount=Decimal(price), currency="USD", purchase="spot", billing_increment_s=1),
                 source=Source(mode="replay"), obtain=Obtainability(risk=risk) if risk else None)


def test_a_cheap_risky_spot_offer_loses_to_a_slightly_dearer_safe_one_when_checkpoints_are_rare() -> None:
    risky = _offer("14.246", ">20%", 100.0, "us-east-1")  # the real p5.48xlarge us-east-1 bucket and spot price
    safe = _offer("14.40", "<5%", 5.0, "eu-north-1")
    # a 500-hour run checkpointing every 100 h: 500/730 interruptions × (50 h lost + 0.25 h restart) on the risky one
    [best] = compare([risky, safe], 500, checkpoint_every_h=100)
    assert best.offer.region.code == "eu-north-1"
    lost = expected_interruptions(risky.obtain.risk if risky.obtain else None, 500, 100)
    assert lost.expected == pytest.approx(500 / 730) and lost.extra_hours == pytest.approx(500 / 730 * 50.25)
    # checkpointing every hour, the risky one is cheaper again
    [best] = compare([risky, safe], 500, checkpoint_every_h=1)
    assert best.offer.region.code == "us-east-1"


def test_unknown_risk_uses_the_stated_fallback_never_zero() -> None:
    unknown = _offer("10", "unknown", None, "us-east-1")
    [option] = compare([unknown], 10, fallback_overhead=0.10)
    assert option.cost == Decimal("110.00") and "unknown" in option.notes[0]
    with pytest.raises(gpuhub.QueryError, match="checkpoint_every"):
        compare([unknown], 10, checkpoint_every_h=0)


def test_job_estimate_uses_the_published_bucket_and_shows_the_arithmetic(installed: Engine) -> None:
    result = runner.invoke(app, ["estimate", "--instance-type", "p5.48xlarge", "--hours", "48", "--purchase",
                                 "spot", "--region", "us-east-1", "--checkpoint-every", "4", "--format", "json"])
    assert result.exit_code == 0, result.output
    job = next(j for j in json.loads(result.stdout)["jobs"] if j["zone"] == "use1-az5")
    # 100 %/month / 730 h × 48 h = 0.0658 interruptions × (4 h / 2 + 0.25 h) = 0.148 h re-run
    assert job["billed_hours"] == pytest.approx(48 + 48 / 730 * 2.25, abs=1 / 3600)
    assert job["cost"] == float((Decimal("14.246") * Decimal(str(job["billed_hours"]))).quantize(Decimal("0.01")))
    assert "0.066 interruptions" in job["notes"][0] and ">20%" in job["notes"][0]


def test_training_preset_weighs_a_published_bucket_by_its_expected_rerun(installed: Engine) -> None:
    found = gpuhub.search("H100", workload="training", purchase="spot", provider="aws", region="us-east-1",
                          checkpoint_every=2, limit=1)
    details = found.details(0)
    assert ">20%" in details["explanation"] and "expected re-run +0.1712%" in details["explanation"]
    # the score is price / TFLOPS × (1 + 1.0 / 730 × (2 / 2 + 0.25)), not the flat 15 % of unknown risk
    offer = found[0]
    tflops = float(offer.price.amount) / details["score"] * (1 + 1.0 / 730 * 1.25)
    assert tflops == pytest.approx(8 * 989.4, rel=0.01)


def test_compare_counts_the_expected_rerun_once() -> None:
    risky = _offer("10", ">20%", 100.0, "us-east-1")
    [option] = compare([risky], 730, checkpoint_every_h=2)
    # 100 %/month over 730 h = 1 interruption × (2 h / 2 + 0.25 h) = 1.25 h re-run, billed per second
    assert option.cost == Decimal("10") * Decimal("731.25")
