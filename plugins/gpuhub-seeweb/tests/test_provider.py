"""gpuhub-seeweb end to end: the bundled recording's facts, the reference catalog, live answers and faults."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from gpuhub_seeweb.provider import Seeweb

from gpuhub.plugin import (
    CountingTransport,
    Offer,
    ProviderStatus,
    Registry,
    build_script,
    make_engine,
    replaying,
    search,
)

PLUGIN = Path(__file__).resolve().parents[1]
Replayed = tuple[tuple[Offer, ...], ProviderStatus]
Served = tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]


def _plan(**fields: Any) -> dict[str, Any]:
    """A plan as Seeweb's API answers it (the ecsapi SDK's test payload shape)."""
    plan: dict[str, Any] = {
        "id": 49, "name": "ECS1GPU8", "cpu": "64", "ram": "1048576", "disk": "6000", "gpu": "4",
        "gpu_label": "H100 80 GB", "hourly_price": 8.4, "montly_price": 6048.0, "windows": False,
        "host_type": "ECSGPU8", "available": True,
        "available_regions": [{"id": 3, "location": "it-fr2", "description": "Frosinone"}]}
    plan.update(fields)
    return plan


def _by(offers: Any, instance_type: str) -> Any:
    [offer] = [o for o in offers if o.instance_type == instance_type]
    return offer


# --- the bundled recording ----------------------------------------------------------------------------------------
def test_recording_facts_to_the_cent(replayed: Replayed) -> None:
    offers, status = replayed
    assert status.state == "ok" and status.offers == 21 and status.unknown_gpus == {}
    h100 = _by(offers, "ECS1GPU8")
    assert h100.price.amount == Decimal("8.4") and h100.price.purchase == "on_demand"
    assert h100.instance.gpu is not None and h100.instance.gpu.name == "H100" and h100.instance.gpu_count == 4
    assert (h100.instance.vcpus, h100.instance.memory_gib) == (64, 1024) and h100.price_per_gpu_hour == Decimal("2.1")
    h200 = _by(offers, "ECS8GPU10")
    assert h200.price.amount == Decimal("20.8") and h200.instance.gpu_count == 8 and h200.instance.vcpus == 255
    assert _by(offers, "ECS1GPU6").price.amount == Decimal("0.38")  # 1 x L4
    a30 = _by(offers, "ECS1GPU11")
    assert a30.instance.gpu is not None and a30.instance.gpu.name == "A30" and a30.price.amount == Decimal("0.29")
    rtx = _by(offers, "ECS1GPU")  # the Quadro RTX 6000 (24 GB), not the RTX 6000 Ada
    assert rtx.instance.gpu is not None and rtx.instance.gpu.name == "RTX6000" and rtx.instance.gpu.memory_gib == 24
    a100 = _by(offers, "ECS3GPU3")
    assert a100.instance.gpu is not None and a100.instance.gpu.name == "A100-80GB"
    assert a100.price.amount == Decimal("7.56")


def test_recording_region_currency_and_skips(replayed: Replayed) -> None:
    offers, status = replayed
    region = offers[0].region
    assert {o.region.code for o in offers} == {"it-fr2"}
    assert (region.city, region.country, region.continent) == ("Frosinone", "IT", "Europe")
    assert {o.price.currency for o in offers} == {"USD"}
    assert any("states no currency" in w for w in status.warnings)
    assert status.skipped_reasons == {"CPU-only plan (no GPU)": 17}
    assert {o.available for o in offers} == {None}


def test_search_through_the_public_api(registry: Registry) -> None:
    result = search("L40S", provider="seeweb", engine=make_engine(registry), fetch="replay")
    assert {o.instance_type: o.price.amount for o in result.offers} == {
        "ECS1GPU7": Decimal("0.85"), "ECS2GPU7": Decimal("1.7"), "ECS3GPU7": Decimal("3.4"),
        "ECS4GPU7": Decimal("6.8")}


# --- against the reference catalog --------------------------------------------------------------------------------
def test_every_reference_gpu_row_is_an_offer(reference: Callable[..., Path], replayed: Replayed) -> None:
    offers, _ = replayed
    index = {(o.instance_type, o.region.code): o for o in offers}
    rows = 0
    with reference("skypilot-catalog", "seeweb", "vms.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            if not row["AcceleratorName"]:
                continue
            rows += 1
            offer = index[(row["InstanceType"], row["Region"])]
            assert offer.price.amount == Decimal(row["Price"]), row
            assert offer.instance.gpu_count == float(row["AcceleratorCount"]), row
            assert offer.instance.memory_gib == float(row["MemoryGiB"]) and offer.instance.vcpus == float(
                row["vCPUs"]), row
    assert rows == 21 == len(offers)


def test_build_script_reproduces_the_bundled_recording(reference: Callable[..., Path]) -> None:
    body, skipped = build_script(PLUGIN).build(reference("skypilot-catalog", "seeweb", "vms.csv"))
    bundled = json.loads((Seeweb().fixtures_dir() / "plans.json").read_text(encoding="utf-8"))
    assert body == bundled and not skipped


# --- live ----------------------------------------------------------------------------------------------------------
def test_live_equals_replay(live: Callable[..., Any], replayed: Replayed) -> None:
    offers, status, transport = live(replaying(Seeweb()), environ={"SEEWEB_API_TOKEN": "t0k"})
    assert status.state == "ok" and transport.calls == 1
    assert transport.requests[0].headers["x-apitoken"] == "t0k"
    assert str(transport.requests[0].url) == "https://api.seeweb.it/ecs/v2/plans"

    def key(o: Any) -> tuple[Any, ...]:
        return (o.instance_type, o.region.code, o.price.purchase, o.price.amount, o.instance.vcpus)

    assert sorted(map(key, offers)) == sorted(map(key, replayed[0]))


def test_live_sdk_shaped_answer_and_euro_setting(serve: Callable[..., Served]) -> None:
    body = {"status": "ok", "plans": [
        _plan(), _plan(name="ECS8GPU9", gpu="8", gpu_label="AMD MI300X", hourly_price=18.8, cpu="255",
                       ram="2097152", available=False),
        _plan(name="eCS1", gpu="0", gpu_label=None, hourly_price=0.019,
              available_regions=[{"id": 2, "location": "it-mi2", "description": "Milano"}])]}
    offers, status, _ = serve(body, environ={"SEEWEB_API_TOKEN": "t", "GPUHUB_SEEWEB_CURRENCY": "eur"})
    assert status.state == "ok", status.line()
    h100 = _by(offers, "ECS1GPU8")
    assert h100.price.currency == "EUR" and h100.instance.memory_gib == 1024 and h100.instance.storage_gib == 6000
    assert h100.available is True and _by(offers, "ECS8GPU9").available is False
    mi300x = _by(offers, "ECS8GPU9")
    assert mi300x.instance.gpu is not None and mi300x.instance.gpu.name == "MI300X"
    assert status.skipped_reasons == {"CPU-only plan (no GPU)": 1}


def test_fault_bad_plans_are_skipped_and_counted(serve: Callable[..., Served]) -> None:
    body = {"status": "ok", "plans": [
        _plan(), _plan(name="zero", hourly_price=0), _plan(name="text", hourly_price="n/a"),
        _plan(name="half", gpu="0.5"), _plan(name="nowhere", available_regions=[]),
        _plan(name="mars", available_regions=[{"id": 99, "location": "mars-1", "description": "?"}]), None]}
    offers, status, _ = serve(body)
    assert status.state == "ok", status.line()
    assert {o.instance_type for o in offers} == {"ECS1GPU8", "mars"}
    assert status.skipped_records == 5, status.skipped_reasons
    assert any("mars-1" in w for w in status.warnings)


def test_fault_bad_currency_setting_names_it(serve: Callable[..., Served]) -> None:
    _, status, _ = serve({"status": "ok", "plans": [_plan()]},
                         environ={"SEEWEB_API_TOKEN": "t", "GPUHUB_SEEWEB_CURRENCY": "euro"})
    assert status.state == "failed" and "GPUHUB_SEEWEB_CURRENCY" in (status.reason or "")


def test_fault_rejected_token_and_error_status(serve: Callable[..., Served]) -> None:
    _, rejected, _ = serve({"status": "error", "message": "invalid token"}, status=401)
    assert rejected.state == "failed" and "SEEWEB_API_TOKEN" in (rejected.reason or "")
    _, failed, _ = serve({"status": "ko", "plans": []})
    assert failed.state == "failed" and "'ko'" in (failed.reason or "")


def test_disk_is_sourced_and_the_network_stays_unknown(serve: Callable[..., Served], replayed: Replayed) -> None:
    """Issue 28: a plan's ``disk`` (GB) is its storage, with its source; Seeweb names no network bandwidth or
    fabric. The recording (SkyPilot's file) has no disk, so nothing is filled there."""
    offers, _, _ = serve({"status": "ok", "plans": [_plan()]}, environ={"SEEWEB_API_TOKEN": "t"})
    h100 = _by(offers, "ECS1GPU8").instance
    assert (h100.storage_gib, h100.network_gbps, h100.fabric) == (6000, None, None)
    assert h100.network_source == "Seeweb plans API: disk (GB) of the plan; the API names no network bandwidth or " \
                                  "fabric"
    assert all(o.instance.storage_gib is None and o.instance.network_source is None for o in replayed[0])
