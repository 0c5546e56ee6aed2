"""gpuhub-lium against its sources: facts to the cent from the reference catalog and from the bundled recording,
live equal to replay, and the feed's traps (partly rented nodes, spot, placeholders, several nodes of one shape)."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from gpuhub_lium.provider import Lium

from gpuhub.plugin import (
    CountingTransport,
    Offer,
    ProviderStatus,
    build_script,
    network_facts,
    replaying,
)

PLUGIN = Path(__file__).resolve().parents[1]
Replayed = tuple[tuple[Offer, ...], ProviderStatus]
Served = tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]


def _offer(offers: tuple[Offer, ...], gpu: str, count: int, region: str, vcpus: int) -> Offer:
    [offer] = [o for o in offers if o.instance.gpu is not None and o.instance.gpu.name == gpu
               and o.instance.gpu_count == count and o.region.code == region and o.instance.vcpus == vcpus]
    return offer


# (GPU, count, country, vCPUs) -> USD per node-hour, as in lium/vms.csv.
FACTS = {("B200", 8, "FI", 240): "52.2544", ("B300", 8, "US", 256): "63.76", ("H100", 8, "RU", 192): "14.0",
         ("RTX5090", 1, "UA", 32): "0.5", ("RTXPRO6000-WS", 1, "RO", 64): "1.45", ("RTX3090", 3, "DE", 32): "0.66"}


def test_five_facts_from_the_reference_catalog(catalog: Path, replayed: Replayed) -> None:
    offers, _ = replayed
    with catalog.open(newline="") as fh:
        rows = {(r["AcceleratorName"], int(float(r["AcceleratorCount"])), r["Region"], int(float(r["vCPUs"]))): r
                for r in csv.DictReader(fh)}
    names = {"H100": "H100-SXM", "RTXPRO6000-WS": "RTXPRO6000-WK"}  # gpuhub's canonical name -> SkyPilot's
    for (gpu, count, region, vcpus), price in FACTS.items():
        row = rows[(names.get(gpu, gpu), count, region, vcpus)]
        offer = _offer(offers, gpu, count, region, vcpus)
        assert offer.price.amount == Decimal(row["Price"]) == Decimal(price)
        assert offer.instance.memory_gib == float(row["MemoryGiB"])


def test_five_facts_from_the_bundled_recording(replayed: Replayed) -> None:
    offers, status = replayed
    assert status.state == "ok" and len(offers) == 34 and status.skipped_records == 0
    for (gpu, count, region, vcpus), price in FACTS.items():
        offer = _offer(offers, gpu, count, region, vcpus)
        assert offer.price.amount == Decimal(price) and offer.price.currency == "USD"
        assert offer.price.purchase == "on_demand" and offer.price.listing_stat is None
    b300 = _offer(offers, "B300", 8, "US", 256)
    assert b300.instance_type == "B300-SXM6-AC_8x_256c_3024g" and b300.instance.memory_gib == 3024
    assert b300.instance.gpu is not None and b300.instance.gpu.memory_gib == Decimal(288)
    assert b300.region.country == "US" and b300.region.continent == "North America"
    assert not status.unknown_gpus
    assert any("cheapest free secure node" in w for w in status.warnings)


def test_build_script_reproduces_the_bundled_recording(catalog: Path) -> None:
    module = build_script(PLUGIN)
    bundled = json.loads((Lium().fixtures_dir() / "nodes.json").read_text(encoding="utf-8"))
    assert module.build(catalog) == bundled


def test_live_equals_replay(live: Callable[..., Any], replayed: Replayed) -> None:
    offers, status, transport = live(replaying(Lium()), environ={})
    assert status.state == "ok" and transport.calls == 1
    assert str(transport.requests[0].url) == "https://lium.io/api/public/v1/nodes"

    def key(o: Offer) -> tuple[str, str, Decimal, str]:
        return o.instance_type, o.region.code, o.price.amount, o.price.purchase

    assert sorted(map(key, offers)) == sorted(map(key, replayed[0]))
    assert {o.available for o in offers} == {True} and {o.available for o in replayed[0]} == {None}


def _node(**changes: Any) -> dict[str, Any]:
    node: dict[str, Any] = {"gpu_model": "RTX 5090", "gpu_count": 1, "available_gpu_count": 1, "tier": "secure",
                            "cpu_count": 16, "ram_gb": 30, "price_per_node_hour": 0.65, "gpu_memory_gb": 32,
                            "country_code": "US"}
    node.update(changes)
    return node


def test_fault_bad_nodes_are_skipped_and_counted(serve: Callable[..., Served]) -> None:
    body = {"nodes": [_node(), _node(available_gpu_count=0), _node(price_per_node_hour=0), _node(gpu_count=0),
                      _node(tier="reserved"), _node(price_per_node_hour="n/a"), "junk", _node(gpu_count=1.5),
                      _node(gpu_model="RTX 5090", gpu_memory_gb=32768, cpu_count=8)]}
    offers, status, _ = serve(body)
    assert status.state == "ok", status.line()
    assert sorted(o.instance_type for o in offers) == ["RTX-5090_1x_16c_30g", "RTX-5090_1x_8c_30g"]
    assert status.skipped_records == 7, status.skipped_reasons
    assert status.skipped_reasons["zero or negative price (placeholder)"] == 1
    assert status.skipped_reasons["node partly rented (Lium rents whole nodes)"] == 1
    mib = next(o for o in offers if o.instance.vcpus == 8)  # 32768 "GB": MiB in a GB field (C37), table's 32 GiB
    assert mib.instance.gpu is not None and mib.instance.gpu.memory_gib == Decimal(32)
    assert any("C37" in w for w in status.warnings), status.warnings


def test_fault_several_nodes_of_one_shape_are_a_minimum_never_one_listing(serve: Callable[..., Served]) -> None:
    body = {"nodes": [_node(price_per_node_hour=0.71), _node(price_per_node_hour=0.65), _node(),
                      _node(tier="spot", price_per_node_hour=0.30)]}
    offers, status, _ = serve(body)
    assert status.state == "ok", status.line()
    by_purchase = {o.price.purchase: o for o in offers}
    assert set(by_purchase) == {"on_demand", "spot"} and len(offers) == 2
    secure = by_purchase["on_demand"]
    assert secure.price.amount == Decimal("0.65")
    assert (secure.price.listing_stat, secure.price.listing_count) == ("min", 3)
    spot = by_purchase["spot"]
    assert spot.instance_type.endswith("-spot") and spot.price.listing_stat is None


def test_fault_answer_of_another_shape_fails(serve: Callable[..., Served]) -> None:
    _, status, _ = serve([_node()])
    assert status.state == "failed" and "nodes" in (status.reason or "")


def test_network_and_storage_are_not_published(replayed: Any) -> None:
    """Issue 28: Lium's nodes API gives no network bandwidth, fabric or local disk (README):
    every offer leaves them unknown, with no source claimed."""
    offers = replayed[0]
    assert offers and [network_facts(o) for o in offers if network_facts(o)] == []
