"""Issue 7: price-performance, workload presets, model fit, location, carbon, job cost, explanations.

Offers here are built by hand from real published figures (AWS us-east-1 list prices of p5.48xlarge and
p4d.24xlarge; GPU specs from the GPU table), so every expected value can be checked with a calculator.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from decimal import Decimal

import pytest
from typer.testing import CliRunner

import gpuhub
from gpuhub import Engine, Instance, Offer, Price, Provider, ProviderContext, QueryError, Registry, hookimpl
from gpuhub.answer.estimate import estimate, price_spread
from gpuhub.cli.commands import app
from gpuhub.facts.location import distance_km, resolve_place, rtt_ms
from gpuhub.facts.modelfit import model_fit, tensor_parallel_gpus
from gpuhub.facts.perf import price_performance
from gpuhub.fetch.plugins import reset_registry
from gpuhub.kit.testing import make_engine
from gpuhub.service.searching import reset_default_engine

# (instance type, GPU spelling, count, vCPUs, RAM GiB, region, purchase, USD/h, billing increment s)
ROWS = [
    ("p5.48xlarge", "H100 SXM", 8, 192, 2048, "us-east-1", "on_demand", "55.04", 1),
    ("p5.48xlarge", "H100 SXM", 8, 192, 2048, "eu-central-1", "on_demand", "55.04", 1),
    ("p5.48xlarge", "H100 SXM", 8, 192, 2048, "us-east-1", "reserved_1y", "38.53", 1),
    ("p5.48xlarge", "H100 SXM", 8, 192, 2048, "us-east-1", "spot", "14.582", 1),
    ("p4d.24xlarge", "A100 SXM4 40GB", 8, 96, 1152, "us-east-1", "on_demand", "21.957642", 1),
    ("g5.xlarge", "A10G", 1, 4, 16, "us-east-1", "on_demand", "1.006", 1),
    ("g4dn.xlarge", "T4", 1, 4, 16, "eu-central-1", "on_demand", "0.658", 1),
]


class HandBuilt(Provider):
    name = "aws"
    kind = "hyperscaler"

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        for itype, gpu, n, vcpus, ram, region, purchase, price, increment in ROWS:
            inst = Instance(provider="aws", instance_type=itype, gpu=ctx.gpu(gpu), gpu_count=n, vcpus=vcpus,
                            memory_gib=ram)
            term = 8760 if purchase == "reserved_1y" else None
            yield Offer(instance=inst, region=ctx.region(region), source=ctx.source,
                        price=Price(amount=Decimal(price), currency="USD", purchase=purchase, term_hours=term,
                                    billing_increment_s=increment, minimum_charge_s=60))


class Plugin:
    @hookimpl
    def register_providers(self, register: Callable[[Provider], None]) -> None:
        register(HandBuilt())


@pytest.fixture
def eng() -> Iterator[Engine]:
    engine = make_engine(Registry(entry_points=[], extra_plugins=[("handbuilt", Plugin())]), environ={})
    engine.registry.providers["aws"].credentials = ()  # type: ignore[misc]
    yield engine
    engine.shutdown()


def _search(eng: Engine, **kwargs: object) -> gpuhub.SearchResult:
    return gpuhub.search(engine=eng, fetch="live", **kwargs)  # type: ignore[arg-type]


def test_price_performance_of_p5_matches_the_hand_calculation(eng: Engine) -> None:
    result = _search(eng, instance_type="p5.48xlarge", region="us-east-1", purchase="on_demand")
    [offer] = result
    figures = price_performance(offer, eng.registry.gpus)
    assert round(figures["usd_per_bf16_tflop_hour"], 6) == 0.006953  # 55.04 / (8 × 989.5)
    assert round(figures["usd_per_fp8_tflop_hour"], 6) == 0.003477  # 55.04 / (8 × 1979)
    assert round(figures["usd_per_fp64_tflop_hour"], 6) == 0.202353  # 55.04 / (8 × 34)
    assert round(figures["usd_per_tb_s_hour"], 6) == 2.053731  # 55.04 / (8 × 3.35)
    assert figures["usd_per_vram_gib_hour"] == 55.04 / 640
    assert result.details(0)["usd_per_bf16_tflop_hour"] == round(55.04 / (8 * 989.5), 8)


def test_missing_specs_stay_missing(eng: Engine) -> None:
    [t4] = _search(eng, gpu="T4")
    figures = price_performance(t4, eng.registry.gpus)
    assert figures["usd_per_bf16_tflop_hour"] is None and figures["usd_per_fp8_tflop_hour"] is None
    assert figures["usd_per_fp32_tflop_hour"] == pytest.approx(0.658 / 8.1)


def test_training_ranks_by_mixed_precision_throughput_per_dollar(eng: Engine) -> None:
    result = _search(eng, workload="training", purchase="on_demand", min_gpus=8, region="us-east-1")
    assert [o.instance_type for o in result] == ["p5.48xlarge", "p4d.24xlarge"]
    assert result.scores[0] == pytest.approx(55.04 / (8 * 989.5))
    assert result.scores[1] == pytest.approx(21.957642 / (8 * 312))
    assert "8 × H100 at 0.006953 USD per effective BF16 TFLOP-hour" in result.details(0)["explanation"]
    assert "the next, aws p4d.24xlarge in us-east-1 (on_demand), scores 26.5 % higher" in result.details(0)[
        "explanation"]


def test_spot_pays_a_training_penalty(eng: Engine) -> None:
    result = _search(eng, workload="training", instance_type="p5.48xlarge", region="us-east-1",
                     purchase=["spot", "on_demand"])
    spot = next(i for i, o in enumerate(result) if o.price.purchase == "spot")
    assert result.scores[spot] == pytest.approx(14.582 * 1.15 / (8 * 989.5))


def test_rendering_and_scientific_presets(eng: Engine) -> None:
    rendering = _search(eng, workload="rendering", min_gpus=8, region="us-east-1", purchase="on_demand")
    assert [o.instance_type for o in rendering] == ["p4d.24xlarge", "p5.48xlarge"]  # 1.765 vs 2.054 per TB/s-h
    assert rendering.scores[0] == pytest.approx(21.957642 / (8 * 1.555))
    scientific = _search(eng, workload="scientific", min_gpus=8, region="us-east-1", purchase="on_demand")
    assert [o.instance_type for o in scientific] == ["p5.48xlarge", "p4d.24xlarge"]  # 0.202 vs 0.283 per FP64


def test_data_science_prefers_balanced_hosts(eng: Engine) -> None:
    result = _search(eng, workload="data-science", max_gpus=1)
    # g5.xlarge: 1.006 / (4/8 × 16/64) = 8.048; g4dn.xlarge: 0.658 / 0.125 = 5.264
    assert [o.instance_type for o in result] == ["g4dn.xlarge", "g5.xlarge"]
    assert result.scores == [pytest.approx(5.264), pytest.approx(8.048)]


def test_model_fit_70b_bf16_inference() -> None:
    fit = model_fit("70b", "bf16", "inference")
    assert fit.weights_gib * 2**30 == 140e9  # more than 140 GB of weights alone
    assert fit.total_gib == pytest.approx(156.46, abs=0.01)
    assert fit.gpus_needed(80) == 2 and fit.gpus_needed(40) == 4 and fit.gpus_needed(192) == 1
    assert model_fit("7B", "bf16", "training").total_gib == pytest.approx(7e9 * 16 * 1.2 / 2**30)
    assert model_fit(7e9, "int4", "fine-tuning").total_gib == pytest.approx((7e9 * 0.5 * 1.2 + 7e9 * 0.01 * 16)
                                                                             / 2**30)
    with pytest.raises(QueryError, match=r"precision.*allowed values: fp32"):
        model_fit("7b", "fp12")
    with pytest.raises(QueryError, match="model"):
        model_fit("seventy")


def test_inference_splits_a_model_over_a_power_of_two_of_an_instances_gpus() -> None:
    fit = model_fit("70b", "bf16", "inference")  # 156.5 GiB
    assert fit.gpus_needed(48) == 4 and fit.gpus_needed(24) == 8 and fit.gpus_needed(16) == 16
    assert model_fit("70b", "bf16", "fine-tuning").gpus_needed(48) == 4  # sharded: any count
    assert model_fit("7b", "bf16", "training").gpus_needed(24) == 6  # 125.2 GiB: six, not a power of two
    assert [tensor_parallel_gpus(n) for n in (0.5, 1, 3, 7, 8, 10, 16)] == [0.5, 1, 2, 4, 8, 8, 16]


def test_a_70b_model_is_not_served_on_gpus_a_tensor_parallel_degree_cannot_use() -> None:
    """Hyperstack's bundled n3-RTX-A4000x10 has 10 × 16 GiB = 160 GiB, more than 70B's 156.5 GiB, but one served
    copy runs on 8 of its GPUs (128 GiB): it was the answer to "serve a 70B model" before. RunPod's 5x_A40_SECURE
    serves it on 4 × 48 GiB = 192 GiB and stays."""
    served = gpuhub.search(model="70b", mode="inference", provider=["hyperstack", "runpod"], fetch="replay",
                           limit=None, distinct=False)
    kept = {(o.provider, o.instance_type) for o in served}
    assert ("hyperstack", "n3-RTX-A4000x10") not in kept and ("runpod", "5x_A40_SECURE") in kept
    assert ("runpod", "10x_RTX-A5000_SECURE") in kept  # 8 × 24 GiB = 192 GiB
    seven = {"provider": "runpod", "instance_type": "7x_RTX-A5000_SECURE", "fetch": "replay"}  # 7 × 24 GiB
    assert not gpuhub.search(model="70b", mode="inference", **seven).offers  # one copy on 4 GPUs: 96 GiB
    tuned = gpuhub.search(model="70b", mode="fine-tuning", **seven)  # 166.9 GiB sharded over all seven: 168 GiB
    assert tuned.offers and "must be split across 7 GPUs" in tuned.details(0)["explanation"]
    short = gpuhub.search(model="70b", mode="inference", provider="hyperstack", gpu="RTXA4000", instance_type=[
        "n3-RTX-A4000x10"], fetch="replay")
    assert not short.offers and any(
        "of which one served copy can use 128 GiB (8 of its 10 GPUs: tensor-parallel degrees are powers of two), "
        "28.5 GiB short of the model's need" in line for line in short.explain())


def test_model_filter_keeps_what_fits_and_says_when_split(eng: Engine) -> None:
    result = _search(eng, model="70b", precision="bf16", mode="inference", purchase="on_demand")
    assert sorted({o.instance_type for o in result}) == ["p4d.24xlarge", "p5.48xlarge"]
    a100 = next(i for i, o in enumerate(result) if o.instance_type == "p4d.24xlarge")
    assert result.details(a100)["model_split"] is True
    assert "must be split across 4 GPUs" in result.details(a100)["explanation"]
    single = _search(eng, model="70b", max_gpus=1)
    assert len(single) == 0 and single.removed_by["model"] == 2  # the A10G and T4; no single 80 GiB GPU here
    assert any("--model alone removed" in line and "GiB short of the model's need" in line
               for line in single.explain())


def test_frankfurt_is_closer_to_frankfurt_regions() -> None:
    frankfurt = resolve_place("Frankfurt")
    assert (frankfurt.latitude, frankfurt.longitude) == (50.11, 8.68) or abs(frankfurt.latitude - 50.11) < 0.01
    aws_fra = resolve_place("aws:eu-central-1")
    gcp_fra = resolve_place("europe-west3")
    virginia = resolve_place("us-east-1")
    near = rtt_ms(frankfurt, aws_fra.latitude, aws_fra.longitude)
    far = rtt_ms(frankfurt, virginia.latitude, virginia.longitude)
    km = distance_km(frankfurt.latitude, frankfurt.longitude, virginia.latitude, virginia.longitude)
    assert 6500 < km < 6600
    assert far == pytest.approx(2 * km * 1.5 / 200 + 2) and 95 < far < 105
    assert near < 3 and rtt_ms(frankfurt, gcp_fra.latitude, gcp_fra.longitude) < 3
    assert resolve_place("DE").label == "DE" and 47 < resolve_place("Germany").latitude < 55
    assert resolve_place("40.7,-74.0").latitude == 40.7


def test_unknown_place_lists_close_matches() -> None:
    with pytest.raises(QueryError, match=r"unknown place 'Frankfrut'.*Close matches: frankfurt"):
        resolve_place("Frankfrut")
    with pytest.raises(QueryError, match="latitude"):
        resolve_place("95,10")


def test_near_and_max_rtt(eng: Engine) -> None:
    result = _search(eng, instance_type="p5.48xlarge", purchase="on_demand", near="Frankfurt", sort="latency")
    assert [o.region.code for o in result] == ["eu-central-1", "us-east-1"]
    limited = _search(eng, instance_type="p5.48xlarge", purchase="on_demand", near="Frankfurt", max_rtt=30)
    assert [o.region.code for o in limited] == ["eu-central-1"]
    assert "ms from Frankfurt" in limited.details(0)["explanation"]
    too_tight = _search(eng, gpu="A100", near="Frankfurt", max_rtt=30)
    assert len(too_tight) == 0
    note = next(line for line in too_tight.explain() if "--max-rtt alone removed" in line)
    assert "aws p4d.24xlarge in us-east-1 (on_demand)" in note and "ms over your --max-rtt" in note
    with pytest.raises(QueryError, match=r"max_rtt: needs a place to measure from \(near, on the CLI --near"):
        _search(eng, max_rtt=10)


def test_inference_prefers_on_demand_and_nearby(eng: Engine) -> None:
    result = _search(eng, workload="inference", instance_type="p5.48xlarge", near="Frankfurt",
                     purchase="on_demand")
    assert [o.region.code for o in result] == ["eu-central-1", "us-east-1"]
    rtt_fra = result.details(0)["rtt_ms"]
    assert result.scores[0] == pytest.approx(55.04 * (1 + rtt_fra / 100), rel=1e-3)


def test_carbon_filter_and_ranker(eng: Engine) -> None:
    result = _search(eng, sort="carbon", instance_type="p5.48xlarge", purchase="on_demand")
    facts = {o.region.code: o.region.carbon_gco2e_per_kwh for o in result}
    assert all(v is not None for v in facts.values())
    first = result[0]
    assert result.scores[0] == pytest.approx(8 * 0.7 * 1.1 * first.region.carbon_gco2e_per_kwh)  # type: ignore[operator]
    assert result.scores[0] <= result.scores[1]  # type: ignore[operator]
    low = _search(eng, max_carbon=min(facts.values()))  # type: ignore[type-var]
    assert {o.region.code for o in low} == {first.region.code}


def test_job_cost_billing_spot_and_reserved(eng: Engine) -> None:
    offers = list(_search(eng, instance_type="p5.48xlarge", region="us-east-1"))
    by = {o.price.purchase: o for o in offers}
    job = estimate(by["on_demand"], 100)
    assert job.cost == Decimal("5504.00") and job.billed_hours == 100
    short = estimate(by["on_demand"], 0.005)  # 18 s: the 60 s minimum charge applies
    assert short.billed_seconds == 60 and "minimum charge" in short.notes[-1]
    spot = estimate(by["spot"], 100, interruption_overhead=0.2)
    assert spot.cost_rounded() == Decimal("1749.84")  # 14.582 × 120 h
    reserved = estimate(by["reserved_1y"], 100, on_demand=by["on_demand"])
    assert reserved.term_cost == Decimal("38.53") * 8760
    assert reserved.break_even_hours is not None and round(reserved.break_even_hours) == 6132  # 337522.8 / 55.04
    with pytest.raises(QueryError, match="hours"):
        estimate(by["on_demand"], -1)


def test_regional_price_spread(eng: Engine) -> None:
    spread = price_spread(_search(eng), "p5.48xlarge", "on_demand")
    assert [o.region.code for o in spread.offers] == ["eu-central-1", "us-east-1"] and spread.spread == 0


def test_cli_workload_explain_and_estimate(eng: Engine) -> None:
    reset_registry(eng.registry)
    reset_default_engine(eng)
    runner = CliRunner()
    try:
        result = runner.invoke(app, ["search", "--workload", "training", "--model", "70b", "--precision", "bf16",
                                     "--mode", "inference", "--near", "Frankfurt", "--format", "json",
                                     "--purchase", "on_demand", "--fetch", "live"])
        assert result.exit_code == 0, result.output
        offers = json.loads(result.stdout)
        assert offers[0]["instance_type"] == "p5.48xlarge" and offers[0]["region"] == "eu-central-1"
        assert {"score", "explanation", "usd_per_bf16_tflop_hour", "rtt_ms"} <= set(offers[0])
        bad = runner.invoke(app, ["search", "--workload", "gaming"])
        assert bad.exit_code == 2 and "--workload: 'gaming' is not a workload; allowed values: training" in bad.stderr
        est = runner.invoke(app, ["estimate", "--instance-type", "p5.48xlarge", "--hours", "10", "--format", "json",
                                  "--fetch", "live"])
        assert est.exit_code == 0, est.output
        jobs = json.loads(est.stdout)["jobs"]
        assert [(j["region"], j["cost"]) for j in jobs] == [("eu-central-1", 550.4), ("us-east-1", 550.4)]
    finally:
        reset_default_engine(None)
        reset_registry(None)
