"""gpuhub-mithril end to end: the bundled recording's facts, the reference catalog, live answers and faults."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import gpuhub_mithril.plugin
import httpx
from gpuhub_mithril.provider import Mithril

from gpuhub.plugin import (
    CountingTransport,
    Offer,
    ProviderStatus,
    Registry,
    build_script,
    make_engine,
    network_facts,
    replaying,
    run_provider,
    search,
)

PLUGIN = Path(__file__).resolve().parents[1]
Replayed = tuple[tuple[Offer, ...], ProviderStatus]
Served = tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]
TYPES = [{"fid": "it_1", "name": "h100-80gb.sxm.8x", "gpu_type": "H100", "num_gpus": 8, "gpu_memory_gb": 80,
          "num_cpus": 168, "ram_gb": 1814},
         {"fid": "it_2", "name": "a100-80gb.sxm.8x", "gpu_type": "A100", "num_gpus": 8, "gpu_memory_gb": 80,
          "num_cpus": 204, "ram_gb": 1520}]


def _live(answers: dict[str, Any], status: int = 200) -> tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]:
    """Run live against canned answers keyed by path (+ ``?instance_type=``); a value of None answers 500."""

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        key = request.url.path + (f"?{request.url.query.decode()}" if request.url.query else "")
        body = answers.get(key, answers.get(request.url.path))
        if body is None:
            return httpx.Response(500, text="boom")
        return httpx.Response(status, json=body)

    registry = Registry(entry_points=[], extra_plugins=[("mithril", gpuhub_mithril.plugin)], environ={})
    transport = CountingTransport(handler)
    offers, state = run_provider(make_engine(registry, transport=transport, environ={"MITHRIL_API_KEY": "k"}),
                                 "mithril", mode="live")
    return offers, state, transport


def _by(offers: Any, instance_type: str, region: str | None = None) -> Any:
    [offer] = [o for o in offers if o.instance_type == instance_type and region in (None, o.region.code)]
    return offer


# --- the bundled recording ----------------------------------------------------------------------------------------
def test_recording_facts_to_the_cent(replayed: Replayed) -> None:
    offers, status = replayed
    assert status.state == "ok" and status.offers == 2
    h100 = _by(offers, "h100-80gb.sxm.8x")
    assert h100.price.amount == Decimal("8.00") and h100.price.purchase == "spot" and h100.price.currency == "USD"
    assert h100.region.code == "us-central2-a" and h100.region.country == "US"
    assert (h100.instance.vcpus, h100.instance.memory_gib, h100.instance.gpu_count) == (168, 1814, 8)
    assert h100.price_per_gpu_hour == Decimal("1.00") and "floor" in (h100.price.basis or "")
    h200 = _by(offers, "h200.8x")
    assert h200.price.amount == Decimal("8.00") and h200.region.code == "us-central2-b"
    assert h200.instance.gpu is not None and h200.instance.gpu.name == "H200" and h200.instance.memory_gib == 1600
    assert {o.available for o in offers} == {None}


def test_placeholder_prices_are_skipped_and_counted(replayed: Replayed) -> None:
    offers, status = replayed
    # a100-80gb.sxm.1x/2x/4x/8x at 0.01/0.02/0.04/0.08 and neb-b200.sxm.8x at 0.08: one cent per GPU-hour
    assert status.skipped_reasons == {"placeholder price (below 0.05 USD per GPU-hour)": 5}
    assert not [o for o in offers if o.instance.gpu is not None and o.instance.gpu.name in ("A100-80GB", "B200")]


def test_search_through_the_public_api(registry: Registry) -> None:
    result = search("H200", provider="mithril", engine=make_engine(registry), fetch="replay")
    assert [(o.instance_type, o.price.amount) for o in result.offers] == [("h200.8x", Decimal("8.00"))]


# --- against the reference catalog --------------------------------------------------------------------------------
def test_reference_rows_are_offers_or_counted_placeholders(reference: Callable[..., Path],
                                                           replayed: Replayed) -> None:
    offers, status = replayed
    kept = placeholders = 0
    with reference("skypilot-catalog", "mithril", "vms.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            per_gpu = Decimal(row["Price"]) / Decimal(row["AcceleratorCount"])
            if per_gpu < Decimal("0.05"):
                placeholders += 1
                continue
            offer = _by(offers, row["InstanceType"], row["Region"])
            assert offer.price.amount == Decimal(row["Price"]) == Decimal(row["SpotPrice"])
            kept += 1
    assert (kept, placeholders) == (2, 5) and status.skipped_records == placeholders


def test_build_script_reproduces_the_bundled_recording(reference: Callable[..., Path]) -> None:
    bodies = build_script(PLUGIN).build(reference("skypilot-catalog", "mithril", "vms.csv"))
    for name, body in bodies.items():
        assert json.loads((Mithril().fixtures_dir() / name).read_text(encoding="utf-8")) == body, name


# --- live ----------------------------------------------------------------------------------------------------------
def test_live_equals_replay(live: Callable[..., Any], replayed: Replayed) -> None:
    offers, status, transport = live(replaying(Mithril()), environ={"MITHRIL_API_KEY": "k"})
    assert status.state == "ok" and transport.calls == 2 + 7  # types, availability, one price per type with capacity
    assert all(r.headers["authorization"] == "Bearer k" for r in transport.requests)

    def key(o: Any) -> tuple[Any, ...]:
        return (o.instance_type, o.region.code, o.price.purchase, o.price.amount)

    assert sorted(map(key, offers)) == sorted(map(key, replayed[0]))
    assert {o.available for o in offers} == {True}  # listed in the offers availability: capacity now


def test_live_last_instance_price_wins_per_region() -> None:
    offers, status, _ = _live({
        "/v2/instance-types": TYPES[:1],
        "/v2/spot/availability": [{"instance_type": "it_1", "region": "us-central1-a", "last_instance_price": "$14.40"},
                                  {"instance_type": "it_1", "region": "eu-central1-a"}],
        "/v2/pricing/current?instance_type=it_1": {"minimum_price_cents": 800}})
    assert status.state == "ok", status.line()
    assert _by(offers, "h100-80gb.sxm.8x", "us-central1-a").price.amount == Decimal("14.40")
    floor = _by(offers, "h100-80gb.sxm.8x", "eu-central1-a")
    assert floor.price.amount == Decimal("8") and "minimum" in (floor.price.basis or "")


def test_fault_one_unpriceable_type_does_not_stop_the_others() -> None:  # known fault C36
    offers, status, _ = _live({
        "/v2/instance-types": TYPES,
        "/v2/spot/availability": [{"instance_type": "it_1", "region": "r1"}, {"instance_type": "it_2", "region": "r1"}],
        "/v2/pricing/current?instance_type=it_1": {"minimum_price_cents": 1600},
        "/v2/pricing/current?instance_type=it_2": None})
    assert status.state == "ok" and status.partial, status.line()
    assert [(o.instance_type, o.price.amount) for o in offers] == [("h100-80gb.sxm.8x", Decimal("16"))]
    assert any("a100-80gb.sxm.8x" in w for w in status.warnings)


def test_fault_bad_records_are_skipped_and_counted() -> None:
    offers, status, _ = _live({
        "/v2/instance-types": [*TYPES[:1], {"fid": "it_3", "name": "cpu.32x", "gpu_type": None, "num_gpus": 0},
                               {"name": "no-fid"}, "junk"],
        "/v2/spot/availability": [{"instance_type": "it_1", "region": "r1"}, {"instance_type": "it_3", "region": "r1"},
                                  {"instance_type": "it_1", "region": "r2", "last_instance_price": "eight"},
                                  {"region": "r3"}],
        "/v2/pricing/current?instance_type=it_1": {"minimum_price_cents": 800}})
    assert status.state == "ok", status.line()
    assert [o.region.code for o in offers] == ["r1"]
    assert status.skipped_reasons["CPU-only instance type (no GPU)"] == 1
    assert status.skipped_records == 5, status.skipped_reasons


def test_fault_rejected_key_names_the_variable() -> None:
    _, status, _ = _live({"/v2/instance-types": {"detail": "unauthorized"}}, status=401)
    assert status.state == "failed" and "MITHRIL_API_KEY" in (status.reason or "")


def test_local_disk_comes_from_the_pricing_page(replayed: Any) -> None:
    """Issue 28: the instance-types API gives no disk; Mithril's pricing page (transcribed 2026-09-20) lists each
    8-GPU plan with vCPUs, RAM and disk: 12,500 GB for both, matched on GPUs, vCPUs and RAM. Three facts per family:
    vCPUs per GPU (21), RAM per GPU and the local disk; network and fabric stay unknown."""
    offers = replayed[0]
    facts = {o.instance_type: (o.instance.vcpus / o.instance.gpu_count,  # type: ignore[operator]
                               o.instance.memory_gib / o.instance.gpu_count,  # type: ignore[operator]
                               network_facts(o)) for o in offers}
    h100, h200 = facts["h100-80gb.sxm.8x"], facts["h200.8x"]
    assert (h100[0], h100[1], h100[2]["storage_gib"]) == (21, 226.75, 11641.5)  # 12,500 GB
    assert (h200[0], h200[1], h200[2]["storage_gib"]) == (21, 200, 11641.5)
    assert h100[2]["network_source"] == (
        "Mithril pricing page https://mithril.ai/pricing (transcription of 2026-09-20, api-evangelist/mithril "
        "plans/mithril-plans-pricing.yml): 'H100 SXM5 (8 GPUs, 168 vCPUs, 1,814 GB RAM, 12,500 GB disk)'; the page "
        "names no network bandwidth or fabric")
    assert set(h100[2]) == {"storage_gib", "network_source"}
