"""gpuhub-hyperbolic end to end: the bundled recording's facts, the reference catalog, live answers and faults."""

from __future__ import annotations

import csv
import datetime as dt
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from gpuhub_hyperbolic.provider import Hyperbolic

from gpuhub.plugin import (
    CountingTransport,
    Offer,
    ProviderStatus,
    Registry,
    build_script,
    make_engine,
    replaying,
    run_provider,
    search,
)

PLUGIN = Path(__file__).resolve().parents[1]
Replayed = tuple[tuple[Offer, ...], ProviderStatus]
Served = tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]


def _vm(**fields: Any) -> dict[str, Any]:
    vm: dict[str, Any] = {
        "InstanceType": "1x-H100-75-722", "AcceleratorName": "H100", "AcceleratorCount": 1, "vCPUs": 75,
        "MemoryGiB": 722, "StorageGiB": 800, "Price": 1.29, "SpotPrice": None, "Region": "default",
        "GpuInfo": {"Gpus": [{"Name": "NVIDIA-H100-80GB-HBM3", "Manufacturer": "NVIDIA", "Count": 1,
                              "MemoryInfo": {"SizeInMiB": 81559}}], "TotalGpuMemoryInMiB": 81559}}
    vm.update(fields)
    return vm


def _by(offers: Any, instance_type: str, purchase: str = "on_demand") -> Any:
    [offer] = [o for o in offers if o.instance_type == instance_type and o.price.purchase == purchase]
    return offer


# --- the bundled recording ----------------------------------------------------------------------------------------
def test_recording_facts_to_the_cent(replayed: Replayed) -> None:
    offers, status = replayed
    assert status.state == "ok" and status.offers == 3 and status.unknown_gpus == {}
    one = _by(offers, "1x-H100-75-722")
    assert one.price.amount == Decimal("1.29") and one.price.currency == "USD"
    assert (one.instance.vcpus, one.instance.memory_gib, one.instance.storage_gib) == (75, 722, 800)
    assert one.instance.gpu is not None and one.instance.gpu.name == "H100" and one.instance.gpu.memory_gib == 80
    assert _by(offers, "2x-H100-149-1443").price.amount == Decimal("2.58")
    three = _by(offers, "3x-H100-224-2165")
    assert three.price.amount == Decimal("3.87") and three.instance.gpu_count == 3
    assert three.price_per_gpu_hour == Decimal("1.29") and three.instance.storage_gib == 2400
    assert {o.region.code for o in offers} == {"default"} and {o.price.purchase for o in offers} == {"on_demand"}
    assert any("no location" in w for w in status.warnings)


def test_search_through_the_public_api(registry: Registry) -> None:
    result = search("H100", provider="hyperbolic", min_gpus=2, engine=make_engine(registry), fetch="replay")
    assert {o.instance_type: o.price.amount for o in result.offers} == {
        "2x-H100-149-1443": Decimal("2.58"), "3x-H100-224-2165": Decimal("3.87")}


# --- against the reference catalog the recording was built from --------------------------------------------------
def test_every_reference_row_is_an_offer(reference: Callable[..., Path], replayed: Replayed) -> None:
    offers, _ = replayed
    with reference("skypilot-catalog", "hyperbolic", "vms.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 3 == len(offers)
    for row in rows:
        offer = _by(offers, row["InstanceType"])
        assert offer.price.amount == Decimal(row["Price"]) and offer.region.code == row["Region"]
        assert offer.instance.gpu_count == float(row["AcceleratorCount"]) and offer.instance.vcpus == float(
            row["vCPUs"])


def test_build_script_reproduces_the_bundled_recording(reference: Callable[..., Path]) -> None:
    body, skipped = build_script(PLUGIN).build(reference("skypilot-catalog", "hyperbolic", "vms.csv"))
    bundled = json.loads((Hyperbolic().fixtures_dir() / "catalog.json").read_text(encoding="utf-8"))
    assert body == bundled and not skipped


# --- live ----------------------------------------------------------------------------------------------------------
def test_live_equals_replay_and_is_dated_by_the_answer(registry: Registry, replayed: Replayed) -> None:
    replay = replaying(Hyperbolic())

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        answer = replay(request, n)
        answer.read()
        return httpx.Response(answer.status_code, content=answer.content,
                              headers={**answer.headers, "date": "Tue, 01 Dec 2026 20:00:00 GMT"})

    transport = CountingTransport(handler)
    engine = make_engine(registry, transport=transport, environ={"HYPERBOLIC_API_KEY": "k"})
    live, status = run_provider(engine, "hyperbolic", mode="live")
    assert status.state == "ok" and transport.calls == 1
    assert transport.requests[0].headers["authorization"] == "Bearer k"
    assert str(transport.requests[0].url) == "https://api.hyperbolic.xyz/v2/skypilot/catalog"

    def key(o: Any) -> tuple[Any, ...]:
        return (o.instance_type, o.region.code, o.price.purchase, o.price.amount, o.instance.vcpus)

    assert sorted(map(key, live)) == sorted(map(key, replayed[0]))
    assert {o.price.data_date for o in live} == {dt.date(2026, 12, 1)}


def test_fault_bad_items_are_skipped_and_counted(serve: Callable[..., Served]) -> None:
    body = {"vms": [
        _vm(), _vm(InstanceType="cpu-8", AcceleratorName="", AcceleratorCount=None, GpuInfo=None),
        _vm(InstanceType="2x-bad", AcceleratorCount=2), _vm(InstanceType="zero", Price=0),
        _vm(InstanceType="noprice", Price=None), _vm(InstanceType="spot", SpotPrice=0.9),
        _vm(InstanceType="c37", GpuInfo={"Gpus": [{"Name": "H100", "Count": 1, "MemoryInfo": {"SizeInMiB": 80}}]}),
        42]}
    offers, status, _ = serve(body)
    assert status.state == "ok", status.line()
    assert {(o.instance_type, o.price.purchase) for o in offers} == {
        ("1x-H100-75-722", "on_demand"), ("spot", "on_demand"), ("spot", "spot"), ("c37", "on_demand")}
    assert _by(offers, "spot", "spot").price.amount == Decimal("0.9")
    assert status.skipped_reasons["CPU-only VM (no GPU)"] == 1
    assert status.skipped_reasons["on_demand price 0 (placeholder)"] == 1
    assert status.skipped_records == 5, status.skipped_reasons  # CPU, count mismatch, zero, no price, not an object
    c37 = _by(offers, "c37")
    assert c37.instance.gpu is not None and c37.instance.gpu.memory_gib == 80
    assert any("SizeInMiB 80 is not a MiB figure" in w for w in status.warnings)


def test_fault_rejected_key_names_the_variable(serve: Callable[..., Served]) -> None:
    _, status, _ = serve({"error": "Unauthorized"}, status=401)
    assert status.state == "failed" and "HYPERBOLIC_API_KEY" in (status.reason or "")


def test_fault_wrong_shape_fails(serve: Callable[..., Served]) -> None:
    _, status, _ = serve([{"InstanceType": "x"}])
    assert status.state == "failed" and "vms" in (status.reason or "")


def test_storage_from_the_catalog_and_no_network(replayed: Replayed) -> None:
    """Issue 28: the catalog's ``StorageGiB`` per size (800, 1,600, 2,400 GiB) with its source; Hyperbolic names no
    network bandwidth or fabric, so those stay unknown."""
    offers = replayed[0]
    assert [_by(offers, t).instance.storage_gib for t in ("1x-H100-75-722", "2x-H100-149-1443",
                                                          "3x-H100-224-2165")] == [800, 1600, 2400]
    assert {o.instance.network_source for o in offers} == {
        "Hyperbolic catalog (GET /v2/skypilot/catalog): StorageGiB; the catalog names no network or fabric"}
    assert all(o.instance.network_gbps is None and o.instance.fabric is None and o.instance.storage_kind is None
               for o in offers)
