"""The offers the bundled CoreWeave price table gives: prices to the cent, GPUs, regions, status, no network."""

from __future__ import annotations

from decimal import Decimal

import httpx
import pytest

import gpuhub
from gpuhub.plugin import CountingTransport, Offer, ProviderStatus, Registry, make_engine, run_provider

GENERAL_ACCESS_NA = {"US-EAST-01", "US-EAST-02", "US-EAST-04", "US-EAST-06", "US-EAST-08", "US-EAST-13",
                     "US-EAST-14", "RNO2", "US-WEST-01", "US-WEST-04", "US-WEST-09", "US-WEST-10", "US-CENTRAL-06",
                     "US-CENTRAL-07"}


def _one(offers: tuple[Offer, ...], instance_type: str, purchase: str, region: str = "US-EAST-04") -> Offer:
    found = [o for o in offers if o.instance_type == instance_type and o.price.purchase == purchase
             and o.region.code == region]
    assert len(found) == 1, f"{len(found)} offers for {instance_type} {purchase} in {region}"
    return found[0]


@pytest.mark.parametrize(("instance_type", "gpu", "count", "vram", "on_demand", "spot"), [
    ("HGX H100", "H100", 8, 80, "49.24", "19.71"),
    ("HGX H200", "H200", 8, 141, "50.44", "20.93"),
    ("HGX B200", "B200", 8, 180, "68.80", "34.11"),
    ("A100", "A100-80GB", 8, 80, "21.60", "9.65"),
    ("L40S", "L40S", 8, 48, "18.00", None),
    ("L40", "L40", 8, 48, "10.00", None),
    ("RTX PRO 6000 Blackwell Server Edition (High Memory)", "RTXPRO6000", 8, 96, "20.00", None),
    ("GH200", "GH200", 1, 96, "6.50", None),
    ("GB200 NVL72 (4-GPU slice)", "GB200", 4, 186, "42.00", None),
])
def test_page_prices_to_the_cent(offers: tuple[Offer, ...], instance_type: str, gpu: str, count: int, vram: int,
                                 on_demand: str, spot: str | None) -> None:
    offer = _one(offers, instance_type, "on_demand")
    assert offer.price.amount == Decimal(on_demand) and offer.price.currency == "USD"
    assert offer.instance.gpu is not None and offer.instance.gpu.known
    assert (offer.gpu_name, offer.gpu_count, offer.instance.gpu_memory_gib) == (gpu, count, vram)
    assert offer.price.billing_increment_s == 60
    spot_offers = [o for o in offers if o.instance_type == instance_type and o.price.purchase == "spot"]
    if spot is None:
        assert spot_offers == []
    else:
        assert {o.price.amount for o in spot_offers} == {Decimal(spot)}
        assert len(spot_offers) == len(GENERAL_ACCESS_NA)


def test_gb200_slice_is_ten_fifty_per_gpu_hour(offers: tuple[Offer, ...]) -> None:
    """The page prices GB200 NVL72 per 4-GPU slice (42.00) and lists 10.50 per single GPU: the two agree."""
    offer = _one(offers, "GB200 NVL72 (4-GPU slice)", "on_demand")
    assert offer.price_per_gpu_hour == Decimal("10.50")
    assert (offer.instance.vcpus, offer.instance.memory_gib, offer.instance.cpu_arch) == (144, 960, "arm64")
    assert offer.instance.storage_gib == 28610.2  # 30.72 TB local NVMe
    assert offer.instance.note is not None and "4-GPU slice" in offer.instance.note


def test_hgx_h100_per_gpu_hour(offers: tuple[Offer, ...]) -> None:
    assert _one(offers, "HGX H100", "on_demand").price_per_gpu_hour == Decimal("6.155")
    b200 = _one(offers, "HGX B200", "spot", region="RNO2")
    assert (b200.instance.vcpus, b200.instance.memory_gib, b200.instance.cpu_arch) == (128, 2048, "x86_64")


def test_grace_nodes_are_arm(offers: tuple[Offer, ...]) -> None:
    arch = {o.instance_type: o.instance.cpu_arch for o in offers}
    assert arch["GH200"] == arch["GB200 NVL72 (4-GPU slice)"] == "arm64"
    assert arch["HGX H100"] == arch["L40S"] == "x86_64"


def test_offered_in_general_access_north_america_regions(offers: tuple[Offer, ...]) -> None:
    assert {o.region.code for o in offers} == GENERAL_ACCESS_NA
    assert {o.region.continent for o in offers} == {"North America"}
    assert {o.region.country for o in offers} == {"US"}
    reno = _one(offers, "HGX H100", "on_demand", region="RNO2").region
    assert (reno.latitude, reno.longitude) == (39.53, -119.81)
    assert len(offers) == 9 * 14 + 5 * 14  # 9 on-demand node types; spot for 4 of them and the HGX B300
    assert all(o.available is None for o in offers)  # the page says nothing about capacity


def test_status_says_static_and_where_prices_apply(replayed: tuple[tuple[Offer, ...], ProviderStatus]) -> None:
    offers, status = replayed
    assert status.state == "ok" and status.mode == "static"
    assert status.reason == "static price table, verified 2026-09-20"
    assert any("North America" in w and "14 general-access" in w for w in status.warnings), status.warnings
    # HGX B300 (spot only) is offered, as the GPU table's B300.
    assert status.skipped_records == 0 and status.unknown_gpus == {}
    assert {o.instance.gpu.name for o in offers if o.instance_type == "HGX B300" and o.instance.gpu} == {"B300"}
    assert {(o.source.mode, o.source.recorded_at.isoformat() if o.source.recorded_at else None)
            for o in offers} == {("static", "2026-09-20")}
    assert all("North America" in (o.instance.note or "") for o in offers)
    assert {o.price.basis for o in offers} == {"CoreWeave list price for North America, the same in every region"}


def test_never_uses_the_network(registry: Registry) -> None:
    """Even when live mode is asked for, a static provider reads its table and sends no request."""
    transport = CountingTransport(lambda request, n: httpx.Response(500))
    offers, status = run_provider(make_engine(registry, transport=transport), "coreweave", mode="live")
    assert status.state == "ok" and len(offers) == 196
    assert transport.calls == 0


def test_search_h100_finds_coreweave(registry: Registry) -> None:
    result = gpuhub.search(gpu="H100", provider="coreweave", purchase="on_demand",
                           engine=make_engine(registry))
    assert {o.instance_type for o in result} == {"HGX H100"}
    assert {o.price.amount for o in result} == {Decimal("49.24")}
    assert len(result) == 14


def test_search_by_coreweave_label(registry: Registry) -> None:
    """A user may type CoreWeave's own label: H100_NVLINK_80GB finds the HGX H100 node."""
    result = gpuhub.search(gpu="H100_NVLINK_80GB", provider="coreweave", purchase="spot",
                           engine=make_engine(registry))
    assert {(o.instance_type, o.price.amount) for o in result} == {("HGX H100", Decimal("19.71"))}


def test_network_and_storage_facts_with_their_sources(offers: tuple[Offer, ...]) -> None:
    """Issue 28: the HGX H100 node (CKS type gd-8xh100ib-i128) has InfiniBand, rate not published; the GB200 slice
    has 30.72 TB of local storage (28,610.2 GiB) from the pricing page; the other nodes publish neither."""
    h100 = _one(offers, "HGX H100", "on_demand").instance
    assert (h100.fabric, h100.fabric_gbps, h100.fabric_interfaces, h100.network_gbps) == ("InfiniBand", None, None,
                                                                                          None)
    assert h100.network_source is not None and "gd-8xh100ib-i128" in h100.network_source
    assert "use-gpudirect-rdma" in h100.network_source
    gb200 = _one(offers, "GB200 NVL72 (4-GPU slice)", "on_demand").instance
    assert (gb200.storage_gib, gb200.fabric) == (28610.2, None)
    assert gb200.network_source == ("CoreWeave pricing page (the price table): local storage in TB (10^12 bytes), "
                                    "converted to GiB")
    for name in ("HGX B200", "HGX H200", "A100", "L40S", "L40", "GH200"):
        inst = _one(offers, name, "on_demand").instance
        assert (inst.fabric, inst.storage_gib, inst.network_source) == (None, None, None), name
