"""The offers of the bundled Nebius table: facts to the cent, skipped rows counted, bad rows never published."""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from gpuhub_nebius.provider import Nebius, load_table

import gpuhub
from gpuhub.plugin import Offer, ProviderContext, ProviderStatus, Registry, Source, make_engine, run_provider

Replayed = tuple[tuple[Offer, ...], ProviderStatus]


def _one(offers: tuple[Offer, ...], instance_type: str, region: str, purchase: str) -> Offer:
    found = [o for o in offers if (o.instance_type, o.region.code, o.price.purchase) == (instance_type, region,
                                                                                          purchase)]
    assert len(found) == 1, (instance_type, region, purchase, len(found))
    return found[0]


def test_bundled_h100_8gpu_facts(replayed: Replayed) -> None:
    offers, _ = replayed
    h100 = _one(offers, "gpu-h100-sxm 8gpu-128vcpu-1600gb", "eu-north1", "on_demand")
    assert h100.price.amount == Decimal("23.60") and h100.price.currency == "USD"
    assert h100.instance.gpu is not None and h100.instance.gpu.name == "H100" and h100.instance.gpu_count == 8
    assert h100.instance.gpu_memory_gib == 80 and h100.instance.vcpus == 128 and h100.instance.memory_gib == 1600
    assert _one(offers, "gpu-h100-sxm 8gpu-128vcpu-1600gb", "eu-north1", "spot").price.amount == Decimal("10.00")
    assert h100.source.mode == "static" and h100.available is None
    b200 = _one(offers, "gpu-b200-sxm 8gpu-160vcpu-1792gb", "us-central1", "on_demand")
    assert (b200.price.amount, b200.instance.gpu_count, b200.instance.vcpus) == (Decimal("44.00"), 8, 160)
    assert not [o for o in offers if o.instance_type.startswith("gpu-b200") and o.price.purchase == "spot"]


def test_bundled_counts_and_status(replayed: Replayed) -> None:
    offers, status = replayed
    assert status.state == "ok" and len(offers) == 29
    assert status.skipped_reasons == {"CPU-only preset (no GPU)": 40}
    assert status.source_kind == "static" and status.data_date is None
    assert "static price table" in status.line() and "data date unknown" in status.line()
    assert {o.region.code for o in offers} == {"eu-north1", "eu-west1", "us-central1"}
    assert {o.gpu_name for o in offers} == {"H100", "H200", "L40S", "B200"}


def test_every_reference_gpu_row_is_an_offer_to_the_cent(replayed: Replayed, catalog_csv: Path) -> None:
    """Each GPU row of the SkyPilot catalog: price (and spot), GPU, count, vCPUs, RAM and region."""
    offers, _ = replayed
    with catalog_csv.open(newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["AcceleratorName"]]
    assert len(rows) == 21
    for row in rows:
        offer = _one(offers, row["InstanceType"].replace("_", " ", 1), row["Region"], "on_demand")
        assert offer.price.amount == Decimal(row["Price"]), row
        assert offer.gpu_name == row["AcceleratorName"] and offer.instance.gpu_count == int(row["AcceleratorCount"])
        assert (offer.instance.vcpus, offer.instance.memory_gib) == (int(row["vCPUs"]), float(row["MemoryGiB"]))
        if row["SpotPrice"]:
            spot = _one(offers, offer.instance_type, row["Region"], "spot")
            assert spot.price.amount == Decimal(row["SpotPrice"])


def test_search_with_every_plugin_installed() -> None:
    """Through gpuhub.search() with the real registry (every installed plugin): the H200 in eu-west1."""
    result = gpuhub.search(gpu="H200", provider="nebius", region="eu-west1", purchase="spot",
                           engine=make_engine(Registry()))
    direct = [o for o in result if o.provider == "nebius"]  # not Nebius resold by an aggregator
    assert [(o.instance_type, o.price.amount, o.instance.gpu_count, o.instance.vcpus, o.instance.memory_gib)
            for o in direct] == [("gpu-h200-sxm 1gpu-16vcpu-200gb", Decimal("1.45"), 1, 16, 200),
                                 ("gpu-h200-sxm 8gpu-128vcpu-1600gb", Decimal("11.60"), 8, 128, 1600)]
    assert (direct[0].region.city, direct[0].region.country) == ("Paris", "FR")


def _table(**row: Any) -> dict[str, Any]:
    table = load_table()
    base = {"platform": "gpu-h100-sxm", "preset": "1gpu-16vcpu-200gb", "region": "eu-north1",
            "on_demand": "2.95", "preemptible": None}
    base.update(row)
    return {**table, "prices": [base]}


@pytest.mark.parametrize(("row", "reason"), [
    ({"on_demand": "0.00"}, "placeholder on_demand price (zero or negative)"),
    ({"region": "Finland"}, "region name that is not a Nebius region code"),
    ({"region": "eu-north1-a"}, "region name that is not a Nebius region code"),
    ({"platform": "gpu-x999"}, "price for a platform/preset the table does not describe"),
    ({"platform": "cpu-d3", "preset": "4vcpu-16gb"}, "CPU-only preset (no GPU)"),
    ({"on_demand": "n/a"}, "price row: ValueError: on_demand is not a number: 'n/a'"),
    ({"platform": "gpu-l40s-a", "preset": "1gpu-8vcpu-32gb", "preemptible": "0.70", "on_demand": None},
     "preemptible price for a platform that does not allow preemptible VMs"),
])
def test_bad_rows_are_skipped_and_counted(registry: Registry, row: dict[str, Any], reason: str) -> None:
    provider = Nebius()
    with httpx.Client() as client:
        ctx = ProviderContext(provider, client, mode="replay", source=Source(mode="static"), gpus=registry.gpus,
                              environ={})
        assert list(provider.offers_from_table(ctx, _table(**row))) == []
    assert reason in ctx.report.skipped


def test_memory_in_mib_is_warned_about(registry: Registry) -> None:
    table = load_table()
    platforms = [dict(p, gpu_memory_gigabytes=81920) if p["name"] == "gpu-h100-sxm" else p
                 for p in table["platforms"]]
    provider = Nebius()
    with httpx.Client() as client:
        ctx = ProviderContext(provider, client, mode="replay", source=Source(mode="static"), gpus=registry.gpus,
                              environ={})
        offers = list(provider.offers_from_table(ctx, {**table, "platforms": platforms}))
    h100 = [o for o in offers if o.gpu_name == "H100"]
    assert h100 and {o.instance.gpu_memory_gib for o in h100} == {80}
    assert any("MiB written in a field for GB per GPU" in w for w in ctx.report.warnings), ctx.report.warnings
    assert run_provider(make_engine(registry), "nebius")[1].state == "ok"


def _clustering(registry: Registry, rows: list[dict[str, Any]]) -> list[Offer]:
    """The offers of the bundled table with ``allow_gpu_clustering`` as Nebius's API gives it: true on the
    8-GPU presets, false on the 1-GPU ones, and only ``rows`` priced."""
    table = load_table()
    platforms = [dict(p, presets=[dict(s, allow_gpu_clustering=s["resources"]["gpu_count"] == 8)
                                  for s in p["presets"]]) for p in table["platforms"]]
    provider = Nebius()
    with httpx.Client() as client:
        ctx = ProviderContext(provider, client, mode="replay", source=Source(mode="static"), gpus=registry.gpus,
                              environ={})
        return list(provider.offers_from_table(ctx, {**table, "platforms": platforms, "prices": rows}))


def test_infiniband_where_the_preset_may_cluster_and_nebius_lists_a_fabric(registry: Registry) -> None:
    """Issue 28: an 8-GPU H100 VM in eu-north1 (fabrics 2, 3, 4, 6), an 8-GPU H200 VM in eu-west1 (fabric-5) and
    an 8-GPU B200 VM in us-central1 (us-central1-b) are on InfiniBand, each naming its fabric; a 1-GPU preset
    that may not cluster and an L40S platform without a fabric stay unknown."""
    rows = [{"platform": p, "preset": s, "region": r, "on_demand": "1.00", "preemptible": None} for p, s, r in (
        ("gpu-h100-sxm", "8gpu-128vcpu-1600gb", "eu-north1"), ("gpu-h200-sxm", "8gpu-128vcpu-1600gb", "eu-west1"),
        ("gpu-b200-sxm", "8gpu-160vcpu-1792gb", "us-central1"), ("gpu-h100-sxm", "1gpu-16vcpu-200gb", "eu-north1"),
        ("gpu-l40s-d", "4gpu-128vcpu-768gb", "eu-north1"))]
    got = {(o.instance.instance_type, o.region.code): o.instance for o in _clustering(registry, rows)}
    h100 = got[("gpu-h100-sxm 8gpu-128vcpu-1600gb", "eu-north1")]  # no rate published for H100: unknown
    assert (h100.fabric, h100.fabric_gbps, h100.fabric_interfaces, h100.network_gbps) == ("InfiniBand", None, None,
                                                                                          None)
    assert h100.network_source is not None and "fabric-2, fabric-3, fabric-4, fabric-6 for gpu-h100-sxm" \
        in h100.network_source and "docs.nebius.com/compute/clusters/gpu#fabrics" in h100.network_source
    h200 = got[("gpu-h200-sxm 8gpu-128vcpu-1600gb", "eu-west1")]  # 8 x ConnectX-7 NDR 400 Gb/s (nebius_h200_n64)
    assert (h200.fabric, h200.fabric_gbps, h200.fabric_interfaces) == ("InfiniBand", 3200, 8)
    assert "fabric-5 for gpu-h200-sxm in eu-west1" in (h200.network_source or "")
    assert "Nebius/systems/nebius_h200_n64.json" in (h200.network_source or "")
    b200 = got[("gpu-b200-sxm 8gpu-160vcpu-1792gb", "us-central1")]  # the same adapters (nebius_b200_n2)
    assert (b200.fabric, b200.fabric_gbps, b200.fabric_interfaces) == ("InfiniBand", 3200, 8)
    assert "us-central1-b" in (b200.network_source or "") and "nebius_b200_n2.json" in (b200.network_source or "")
    assert (h200.storage_gib, b200.storage_gib) == (None, None)  # Nebius's disks are network volumes
    for key in (("gpu-h100-sxm 1gpu-16vcpu-200gb", "eu-north1"), ("gpu-l40s-d 4gpu-128vcpu-768gb", "eu-north1")):
        assert (got[key].fabric, got[key].network_source) == (None, None), key


def test_the_bundled_table_does_not_say_which_presets_cluster(replayed: Replayed) -> None:
    """SkyPilot's file (the bundled table's source) has no allow_gpu_clustering: no fabric is claimed from it."""
    assert all(o.instance.fabric is None and o.instance.network_source is None for o in replayed[0])
