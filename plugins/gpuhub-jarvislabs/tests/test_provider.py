"""gpuhub-jarvislabs end to end: the bundled recording's facts, the reference catalog, live answers and faults."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from gpuhub_jarvislabs.provider import JarvisLabs

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


def _pool(**fields: Any) -> dict[str, Any]:
    pool = {"gpu_type": "H100", "region": "india-noida-01", "workload_type": "vm", "num_gpus": 2,
            "price_per_hour": 2.69, "cpus_per_gpu": 24, "ram_per_gpu": 200, "vram": "80"}
    pool.update(fields)
    return pool


def _by(offers: Any, instance_type: str, purchase: str = "on_demand") -> Any:
    [offer] = [o for o in offers if o.instance_type == instance_type and o.price.purchase == purchase]
    return offer


# --- the bundled recording ----------------------------------------------------------------------------------------
def test_recording_facts_to_the_cent(replayed: Replayed) -> None:
    offers, status = replayed
    assert status.state == "ok" and status.offers == 19 and status.unknown_gpus == {}
    h100 = _by(offers, "8x_H100")
    assert h100.price.amount == Decimal("21.52") and h100.price.currency == "USD"
    assert h100.instance.vcpus == 192 and h100.instance.memory_gib == 1600 and h100.region.code == "IN2"
    assert h100.price_per_gpu_hour == Decimal("2.69")
    assert _by(offers, "1x_L4").price.amount == Decimal("0.44")
    assert _by(offers, "4x_A100-80GB").price.amount == Decimal("5.96")
    pro = _by(offers, "8x_RTX-PRO6000")
    assert pro.price.amount == Decimal("15.12") and pro.region.code == "IN1"
    assert pro.instance.gpu is not None and pro.instance.gpu.name == "RTXPRO6000" and pro.instance.gpu_count == 8
    h200 = _by(offers, "1x_H200")
    assert h200.price.amount == Decimal("3.99") and h200.instance.gpu is not None
    assert h200.instance.gpu.memory_gib == Decimal(141) and h200.instance.memory_gib == 300
    assert "8x_A100-80GB" not in {o.instance_type for o in offers}  # the A100 pool's ceiling is 4


def test_recording_counts_cpu_plans_and_says_availability_is_unknown(replayed: Replayed) -> None:
    offers, status = replayed
    assert status.skipped_reasons == {"CPU-only VM plan (no GPU)": 10}
    assert {o.available for o in offers} == {None}
    assert any("availability unknown" in w for w in status.warnings)
    assert {o.price.purchase for o in offers} == {"on_demand"}  # VM pools are not sold as spot


def test_regions_have_location_facts(replayed: Replayed) -> None:
    offers, _ = replayed
    chennai = _by(offers, "1x_RTX-PRO6000").region
    assert (chennai.city, chennai.country, chennai.continent) == ("Chennai", "IN", "Asia")
    assert _by(offers, "1x_H100").region.city == "Noida"


def test_search_through_the_public_api(registry: Registry) -> None:
    result = search("H200", provider="jarvislabs", engine=make_engine(registry), fetch="replay")
    assert {o.instance_type: o.price.amount for o in result.offers} == {
        "1x_H200": Decimal("3.99"), "2x_H200": Decimal("7.98"), "4x_H200": Decimal("15.96"),
        "8x_H200": Decimal("31.92")}


# --- against the reference catalog the recording was built from --------------------------------------------------
def test_every_gpu_row_of_the_reference_catalog_is_an_offer(reference: Callable[..., Path],
                                                            replayed: Replayed) -> None:
    offers, _ = replayed
    index = {(o.instance.gpu_count, o.instance.gpu.name if o.instance.gpu else None, o.region.code): o
             for o in offers}
    names = {"RTXPRO6000": "RTXPRO6000"}
    rows = 0
    with reference("skypilot-catalog", "jarvislabs", "vms.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            if not row["AcceleratorName"]:
                continue
            rows += 1
            gpu = names.get(row["AcceleratorName"], row["AcceleratorName"])
            offer = index[(float(row["AcceleratorCount"]), gpu, row["Region"])]
            assert offer.price.amount == Decimal(row["Price"]), row
            assert offer.instance.vcpus == float(row["vCPUs"]) and offer.instance.memory_gib == float(
                row["MemoryGiB"]), row
    assert rows == 19 == len(offers)


def test_build_script_reproduces_the_bundled_recording(reference: Callable[..., Path]) -> None:
    body, skipped = build_script(PLUGIN).build(reference("skypilot-catalog", "jarvislabs", "vms.csv"))
    bundled = json.loads((JarvisLabs().fixtures_dir() / "server-meta.json").read_text(encoding="utf-8"))
    assert body == bundled and not skipped


# --- live ----------------------------------------------------------------------------------------------------------
def test_live_equals_replay(live: Callable[..., Any], replayed: Replayed) -> None:
    offers, status, transport = live(replaying(JarvisLabs()), environ={"JL_API_KEY": "k"})
    assert status.state == "ok" and transport.calls == 1
    assert transport.requests[0].headers["authorization"] == "Bearer k"

    def key(o: Any) -> tuple[Any, ...]:
        return (o.instance_type, o.region.code, o.price.purchase, o.price.amount, o.instance.vcpus)

    assert sorted(map(key, offers)) == sorted(map(key, replayed[0]))


def test_live_capacity_container_spot_and_base_url(serve: Callable[..., Served]) -> None:
    body = {"currency": "USD", "server_meta": [
        _pool(num_free_devices=1, effective_num_free_devices=1),
        _pool(gpu_type="L4", workload_type="container", num_gpus=1, price_per_hour=0.44, spot_price=0.3,
              cpus_per_gpu=7, ram_per_gpu=32, vram="24", num_free_devices=0, effective_num_free_devices=2)]}
    offers, status, transport = serve(body, environ={"JL_API_KEY": "s3cret",
                                                     "GPUHUB_JARVISLABS_BASE_URL": "http://127.0.0.1:9/"})
    assert status.state == "ok", status.line()
    assert str(transport.requests[0].url) == "http://127.0.0.1:9/misc/server_meta"
    assert _by(offers, "1x_H100").available is True and _by(offers, "2x_H100").available is False
    assert _by(offers, "1x_L4-container").available is True
    assert {o.price.data_date for o in offers} == {None}  # the canned answer has no Date header
    spot = _by(offers, "1x_L4-container", "spot")
    assert spot.price.amount == Decimal("0.3") and spot.available is False


def test_fault_answer_without_currency_fails(serve: Callable[..., Served]) -> None:
    _, status, _ = serve({"server_meta": [_pool()]})
    assert status.state == "failed" and "currency" in (status.reason or "")


def test_fault_inr_prices_stay_inr(serve: Callable[..., Served]) -> None:
    offers, status, _ = serve({"currency": "INR", "server_meta": [_pool(price_per_hour=225)]})
    assert status.state == "ok" and {o.price.currency for o in offers} == {"INR"}
    assert _by(offers, "2x_H100").price.amount == Decimal(450)


def test_fault_bad_pools_are_skipped_and_counted(serve: Callable[..., Served]) -> None:
    body = {"currency": "USD", "server_meta": [
        _pool(), _pool(gpu_type="A100-80GB", price_per_hour=None), _pool(gpu_type="L4", price_per_hour=0),
        _pool(gpu_type="L40S", workload_type=None), "junk", _pool(gpu_type="H200", vram="143360"),
        _pool(gpu_type="A100-80GB", region="mars-01")]}
    offers, status, _ = serve(body)
    assert status.state == "ok", status.line()
    assert {o.instance_type for o in offers} == {"1x_H100", "2x_H100", "1x_A100-80GB", "2x_A100-80GB", "1x_H200",
                                                 "2x_H200"}
    assert status.skipped_records == 4, status.skipped_reasons
    assert status.skipped_reasons["zero or negative price (placeholder)"] == 1
    h200 = _by(offers, "1x_H200")
    assert h200.instance.gpu is not None and h200.instance.gpu.memory_gib == Decimal(141)
    assert any("143360" in w and "contradicts" in w for w in status.warnings)
    assert any("mars-01" in w for w in status.warnings) and _by(offers, "1x_A100-80GB").region.code == "mars-01"


def test_fault_rejected_key_names_the_variable(serve: Callable[..., Served]) -> None:
    _, status, _ = serve({"detail": "Invalid token"}, status=401)
    assert status.state == "failed" and "JL_API_KEY" in (status.reason or "")


def test_fault_server_error_is_retried_then_reported() -> None:
    transport = CountingTransport(lambda request, n: httpx.Response(502, text="bad gateway") if n == 1 else
                                  httpx.Response(200, json={"currency": "USD", "server_meta": [_pool()]}))
    import gpuhub_jarvislabs.plugin

    registry = Registry(entry_points=[], extra_plugins=[("jarvislabs", gpuhub_jarvislabs.plugin)], environ={})
    offers, status = run_provider(make_engine(registry, transport=transport, environ={"JL_API_KEY": "k"}),
                                  "jarvislabs", mode="live")
    assert status.state == "ok" and transport.calls == 2 and len(offers) == 2


def test_network_and_storage_are_not_published(replayed: Any) -> None:
    """Issue 28: JarvisLabs' server-meta API gives no network bandwidth, fabric or local disk (README):
    every offer leaves them unknown, with no source claimed."""
    offers = replayed[0]
    assert offers and [network_facts(o) for o in offers if network_facts(o)] == []
