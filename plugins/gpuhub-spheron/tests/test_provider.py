"""gpuhub-spheron against its sources: facts to the cent from the reference catalog and from the bundled recording,
the page walk, live equal to replay, sellers, and the answer's traps."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from gpuhub_spheron.provider import PAGE_CAP, Spheron

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
)

PLUGIN = Path(__file__).resolve().parents[1]
Replayed = tuple[tuple[Offer, ...], ProviderStatus]
Served = tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]

# (offer id, cluster, purchase) -> USD per instance-hour, as in spheron/vms.csv.
FACTS = {("1H100.80S.32V_FIN-03_500", "Finland 3", "on_demand"): "2.9124",
         ("1H100.80S.32V_FIN-03_500", "Finland 3", "spot"): "0.8015",
         ("n3-H100x4-bigroot__CANADA-1", "CANADA-1", "on_demand"): "8.0327",
         ("gpu_8x_l40s_us-central-2", "us-central-2", "on_demand"): "5.76",
         ("A16x2_668d6762247d03149a4c946b_chicago-usa-1", "chicago-usa-1", "on_demand"): "1.3464",
         ("n3-A100x1-spot__CANADA-1", "CANADA-1", "spot"): "1.1476"}


def _index(offers: tuple[Offer, ...]) -> dict[tuple[str, str, str], Offer]:
    return {(o.instance_type, o.region.code, o.price.purchase): o for o in offers}


def test_five_facts_from_the_reference_catalog(catalog: Path, replayed: Replayed) -> None:
    index = _index(replayed[0])
    with catalog.open(newline="") as fh:
        rows = {(r["InstanceType"], r["Region"]): r for r in csv.DictReader(fh)}
    for (offer_id, cluster, purchase), price in FACTS.items():
        row = rows[(offer_id, cluster)]
        column = "SpotPrice" if purchase == "spot" else "Price"
        assert index[(offer_id, cluster, purchase)].price.amount == Decimal(row[column]) == Decimal(price)
    assert len(rows) == 152


def test_five_facts_from_the_bundled_recording(replayed: Replayed) -> None:
    offers, status = replayed
    assert status.state == "ok" and status.skipped_records == 0 and not status.unknown_gpus
    index = _index(offers)
    for key, price in FACTS.items():
        assert index[key].price.amount == Decimal(price) and index[key].price.currency == "USD"
    assert len(offers) == 156
    verda = index[("1H100.80S.32V_FIN-03_500", "Finland 3", "on_demand")]
    assert verda.seller == "verda" and verda.via == "spheron"  # Verda's machine ("data-crunch") through Spheron
    assert verda.region.country == "FI" and verda.instance.gpu is not None and verda.instance.gpu.name == "H100"
    own = index[("n3-H100x4-bigroot__CANADA-1", "CANADA-1", "on_demand")]
    assert own.seller == "spheron" and own.via is None
    sesterce = index[("A16x2_668d6762247d03149a4c946b_chicago-usa-1", "chicago-usa-1", "on_demand")]
    assert sesterce.seller == "sesterce" and sesterce.region.city == "Chicago"
    assert sesterce.instance.gpu is not None and sesterce.instance.gpu.name == "A16"


def test_nvlink_h100_with_80_gb_is_an_h100_pcie_not_the_94_gb_nvl(replayed: Replayed) -> None:
    offer = _index(replayed[0])[("n3-H100x8-NVLink__CANADA-1", "CANADA-1", "on_demand")]
    assert offer.instance.gpu is not None and (offer.instance.gpu.name, offer.instance.gpu.form_factor) == (
        "H100", "PCIe")
    assert offer.instance.gpu_count == 8 and offer.price.amount == Decimal("16.4807")


def test_build_script_reproduces_the_bundled_recording(catalog: Path) -> None:
    module = build_script(PLUGIN)
    recording = Spheron().fixtures_dir()
    bundled = [json.loads((recording / f"gpu-offers-page{n}.json").read_text(encoding="utf-8")) for n in (1, 2)]
    assert module.build(catalog) == bundled


def test_live_walks_every_page_and_equals_replay(registry: Registry, replayed: Replayed) -> None:
    transport = CountingTransport(replaying(Spheron().fixtures_dir()))
    live, status = run_provider(make_engine(registry, transport=transport, environ={"SPHERON_API_KEY": "k"}),
                                "spheron", mode="live")
    assert status.state == "ok" and transport.calls == 2
    assert [str(r.url) for r in transport.requests] == [
        "https://app.spheron.ai/api/gpu-offers?page=1&limit=20", "https://app.spheron.ai/api/gpu-offers?page=2&limit=20"]
    assert transport.requests[0].headers["authorization"] == "Bearer k"

    def key(o: Offer) -> tuple[str, str, Decimal, str]:
        return o.instance_type, o.region.code, o.price.amount, o.price.purchase

    assert sorted(map(key, live)) == sorted(map(key, replayed[0]))


def _offer(**changes: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"offerId": "x1", "available": True, "maintenance": False, "gpuCount": 1, "vcpus": 16,
                            "memory": 64, "price": 2.5, "provider": "sesterce", "instanceType": "DEDICATED",
                            "gpu_memory": 80, "clusters": ["paris-france-1"]}
    item.update(changes)
    return item


def _page(*offers: Any, gpu_type: str = "H100_PCIE", total: int = 1) -> dict[str, Any]:
    return {"data": [{"gpuType": gpu_type, "offers": list(offers)}], "totalPages": total}


def test_fault_bad_offers_are_skipped_and_counted(serve: Callable[..., Served]) -> None:
    body = _page(_offer(), _offer(offerId="x2", price=0), _offer(offerId="x3", available=False),
                 _offer(offerId="x4", maintenance=True), _offer(offerId="x5", gpuCount=0), "junk",
                 _offer(offerId="x6", clusters=[]), _offer(offerId="x7", price="n/a"),
                 _offer(offerId="x8", gpu_memory=81920))
    offers, status, _ = serve(body)
    assert status.state == "ok", status.line()
    assert sorted(o.instance_type for o in offers) == ["x1", "x8"]
    assert status.skipped_records == 7, status.skipped_reasons
    assert status.skipped_reasons["placeholder on_demand price (zero or negative)"] == 1
    x8 = next(o for o in offers if o.instance_type == "x8")  # 81920 "GB": MiB in a GB field (C37)
    assert x8.instance.gpu is not None and x8.instance.gpu.memory_gib == Decimal(80)
    assert any("C37" in w for w in status.warnings), status.warnings


def test_fault_a_spot_offer_is_priced_as_spot(serve: Callable[..., Served]) -> None:
    offers, _, _ = serve(_page(_offer(instanceType="SPOT", price=0.9), _offer(offerId="x2", spot_price=1.1)))
    assert sorted((o.instance_type, o.price.purchase, o.price.amount) for o in offers) == [
        ("x1", "spot", Decimal("0.9")), ("x2", "on_demand", Decimal("2.5")), ("x2", "spot", Decimal("1.1"))]


def test_fault_a_page_walk_that_never_ends_is_an_error(registry: Registry) -> None:
    page = json.dumps(_page(_offer(), total=PAGE_CAP + 5)).encode()
    transport = CountingTransport(lambda request, n: httpx.Response(200, content=page))
    offers, status = run_provider(make_engine(registry, transport=transport, environ={"SPHERON_API_KEY": "k"}),
                                  "spheron", mode="live")
    assert status.state == "failed" and "pages" in (status.reason or "") and transport.calls == PAGE_CAP
    assert offers == ()


def test_network_and_storage_are_not_published(replayed: Any) -> None:
    """Issue 28: Spheron's GPU offers API gives no network bandwidth, fabric or local disk (README):
    every offer leaves them unknown, with no source claimed."""
    offers = replayed[0]
    assert offers and [network_facts(o) for o in offers if network_facts(o)] == []
