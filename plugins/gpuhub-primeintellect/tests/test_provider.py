"""gpuhub-primeintellect: facts from the SkyPilot catalog's Prime Intellect file, sellers and the sellers' own
instance types (one machine through two channels), stock status, and live mode against the recording."""

from __future__ import annotations

import csv
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from gpuhub_primeintellect.provider import PrimeIntellectProvider

from gpuhub.plugin import Offer, ProviderStatus, network_facts, replaying

RECORDING = PrimeIntellectProvider().fixtures_dir()
"""The bundled recording."""

Replayed = tuple[tuple[Offer, ...], ProviderStatus]


def test_facts_and_sellers_from_the_catalog(replayed: Replayed) -> None:
    offers, status = replayed
    assert status.state == "ok" and status.source_kind == "reconstructed" and status.data_date is None
    [a100] = [o for o in offers if o.instance_type == "lambdalabs__8xA100_80GB__240__1800" and o.region.zone ==
              "us-midwest-1"]
    assert (a100.price.amount, a100.price.purchase, a100.instance.gpu_count, a100.instance.vcpus,
            a100.instance.memory_gib) == (Decimal("14.32"), "on_demand", 8, 240, 1800)
    assert a100.instance.gpu is not None and (a100.instance.gpu.name, a100.instance.gpu_memory_gib) == (
        "A100-80GB", 80)
    assert (a100.seller, a100.via, a100.instance.seller_instance_type, a100.instance.machine) == (
        "lambda", "primeintellect", "gpu_8x_a100_80gb_sxm4", "lambda:gpu_8x_a100_80gb_sxm4")
    assert (a100.region.code, a100.region.country, a100.region.continent) == ("US", "US", "North America")
    [spot] = [o for o in offers if o.instance_type == "datacrunch__1xA100_80GB__22__120__SPOT"
              and o.region.zone == "FIN-01"]
    assert (spot.price.amount, spot.price.purchase, spot.seller, spot.instance.seller_instance_type) == (
        Decimal("0.53"), "spot", "verda", "1A100.22V_SPOT")
    assert status.skipped_reasons == {"CPU-only offer (no GPU)": 75}
    assert {o.seller for o in offers} >= {"lambda", "verda", "crusoe", "hyperstack", "nebius", "oblivus"}


def test_every_catalog_gpu_row(replayed: Replayed, catalog: Path) -> None:
    with catalog.open(newline="", encoding="utf-8") as file:
        rows = [r for r in csv.DictReader(file) if r["AcceleratorName"]]
    got = sorted((o.instance_type, o.region.code, o.region.zone or "", o.price.amount, o.instance.vcpus,
                  o.instance.memory_gib) for o in replayed[0])
    want = sorted((r["InstanceType"], r["Region"], r["AvailabilityZone"], Decimal(r["Price"] or r["SpotPrice"]),
                   float(r["vCPUs"]), float(r["MemoryGiB"])) for r in rows)
    assert got == want and len(got) == 115


def _entry(**fields: Any) -> dict[str, Any]:
    base = {"cloudId": "gpu_1x_h100_sxm5", "gpuType": "H100_80GB", "provider": "lambdalabs", "dataCenter":
            "us-south-2", "country": "US", "gpuCount": 1, "gpuMemory": 80, "vcpu": {"defaultCount": 26},
            "memory": {"defaultCount": 225}, "prices": {"onDemand": 3.29, "currency": "USD"}, "isSpot": False,
            "stockStatus": "Available"}
    return {**base, **fields}


def test_live_stock_status_and_memory_check(live: Callable[..., Any]) -> None:
    answer = {"H100_80GB": [_entry(), _entry(dataCenter="us-east-1", stockStatus="Unavailable"),
                            _entry(dataCenter="us-west-1", stockStatus=None, gpuMemory=40),
                            _entry(dataCenter="x", prices={"onDemand": 0})]}
    offers, status, _ = live(lambda request, n: httpx.Response(200, json=answer))
    assert status.state == "ok", status.line()
    assert {o.region.zone: o.available for o in offers} == {"us-south-2": True, "us-east-1": False,
                                                           "us-west-1": None}
    assert all(o.instance.gpu is not None and o.instance.gpu.memory_gib == 80 for o in offers)
    assert any("gpuMemory 40" in w and "contradicts" in w for w in status.warnings), status.warnings
    assert status.skipped_reasons == {"no prices.onDemand (missing or zero placeholder)": 1}


def test_live_gives_the_offers_of_replay(live: Callable[..., Any], replayed: Replayed) -> None:
    offers, status, transport = live(replaying(RECORDING))
    assert status.state == "ok" and transport.calls == 1, status.line()
    assert [(o.instance, o.region, o.price, o.available) for o in offers] == [
        (o.instance, o.region, o.price, o.available) for o in replayed[0]]


def test_a_broken_answer_fails(live: Callable[..., Any]) -> None:
    for body in (b'{"H100_80GB": {"x": 1}}', b"[]", b'{"H100_80GB": [{"gpuType": "H1'):
        offers, status, _ = live(lambda request, n, body=body: httpx.Response(200, content=body))
        assert status.state == "failed" and offers == (), status.line()


def test_network_and_storage_are_not_published(replayed: Any) -> None:
    """Issue 28: Prime Intellect's availability API gives no network bandwidth, fabric or local disk (README):
    every offer leaves them unknown, with no source claimed."""
    offers = replayed[0]
    assert offers and [network_facts(o) for o in offers if network_facts(o)] == []
