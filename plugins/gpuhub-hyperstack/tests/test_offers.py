"""Hyperstack offers from the bundled table: facts to the cent, every reference row, bad rows skipped and counted."""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from gpuhub_hyperstack.provider import Hyperstack, load_table

import gpuhub
from gpuhub.plugin import Offer, ProviderContext, ProviderStatus, Registry, Source, make_engine, network_facts

Replayed = tuple[tuple[Offer, ...], ProviderStatus]


def _one(offers: tuple[Offer, ...], flavor: str, region: str) -> Offer:
    found = [o for o in offers if (o.instance_type, o.region.code) == (flavor, region)]
    assert len(found) == 1, (flavor, region, len(found))
    return found[0]


def test_bundled_facts(replayed: Replayed) -> None:
    offers, status = replayed
    sxm = _one(offers, "n3-H100-SXM5x8", "CANADA-1")
    assert (sxm.price.amount, sxm.price.purchase, sxm.gpu_name, sxm.instance.gpu_count) == (
        Decimal("19.2"), "on_demand", "H100", 8)
    assert (sxm.instance.vcpus, sxm.instance.memory_gib, sxm.instance.gpu_memory_gib) == (192, 1800, 80)
    assert _one(offers, "n3-H100-SXM5x8", "US-1").instance.memory_gib == 960  # same flavor, other RAM per region
    nvlink = _one(offers, "n3-A100x8-NVLink", "CANADA-1")
    assert (nvlink.gpu_name, nvlink.instance.gpu.form_factor, nvlink.instance.interconnect) == (  # type: ignore[union-attr]
        "A100-80GB", "PCIe", "NVLink")
    a4000 = _one(offers, "n3-RTX-A4000x10", "NORWAY-1")
    assert (a4000.gpu_name, a4000.instance.gpu_count, a4000.price.amount) == ("RTXA4000", 10, Decimal("1.5"))
    assert status.state == "ok" and len(offers) == 25 and status.source_kind == "static"
    assert "static price table" in status.line() and "data date unknown" in status.line()


def test_every_reference_row_to_the_cent(replayed: Replayed, catalog_csv: Path) -> None:
    offers, _ = replayed
    with catalog_csv.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 25
    for row in rows:
        offer = _one(offers, row["InstanceType"], row["Region"])
        assert offer.price.amount == Decimal(row["Price"]), row
        assert offer.instance.gpu_count == int(row["AcceleratorCount"])
        assert (offer.instance.vcpus, offer.instance.memory_gib) == (int(row["vCPUs"]), float(row["MemoryGiB"]))


def test_search_with_every_plugin_installed() -> None:
    result = gpuhub.search(gpu="L40", provider="hyperstack", engine=make_engine(Registry()))
    assert [(o.instance_type, o.price.amount, o.instance.gpu_count, o.instance.vcpus, o.region.code)
            for o in result if o.provider == "hyperstack"] == [("n3-L40x1", Decimal("1.0"), 1, 28, "CANADA-1"),
                                 ("n3-L40x2", Decimal("2.0"), 2, 60, "CANADA-1"),
                                 ("n3-L40x4", Decimal("4.0"), 4, 124, "CANADA-1"),
                                 ("n3-L40x8", Decimal("8.0"), 8, 252, "CANADA-1")]
    assert next(o for o in result if o.provider == "hyperstack").region.country == "CA"


@pytest.mark.parametrize(("change", "reason"), [
    ({"on_demand": "0.0"}, "placeholder on_demand price (zero or negative)"),
    ({"region": "Canada"}, "region name that is not a Hyperstack region code"),
    ({"gpu": None, "gpu_count": 0}, "CPU-only flavor (no GPU)"),
    ({"on_demand": None}, "flavor row without a usable price"),
])
def test_bad_rows_are_skipped_and_counted(registry: Registry, change: dict[str, Any], reason: str) -> None:
    table = load_table()
    row = {**table["flavors"][0], **change}
    provider = Hyperstack()
    with httpx.Client() as client:
        ctx = ProviderContext(provider, client, mode="replay", source=Source(mode="static"), gpus=registry.gpus,
                              environ={})
        assert list(provider.offers_from_table(ctx, {**table, "flavors": [row]})) == []
    assert ctx.report.skipped == {reason: 1}


def test_h100_pcie_flavors_take_their_ephemeral_disk_from_the_flavors_page(replayed: Any) -> None:
    """Issue 28: Hyperstack's flavors page lists, for the H100-80GB-PCIe flavors, CPU cores, RAM and the ephemeral
    disk (GB): with the table's vCPUs and RAM that is three facts per flavor (cores per GPU, RAM per GPU, local
    disk). Every other flavor (no page table found) leaves network and disk unknown, with no source claimed."""
    offers = replayed[0]
    facts = {o.instance_type: network_facts(o) for o in offers}
    gib = 10**9 / 2**30
    assert {name: f["storage_gib"] for name, f in facts.items() if f} == {
        "n3-H100x1": round(750 * gib, 1), "n3-H100x2": round(1500 * gib, 1), "n3-H100x4": round(3200 * gib, 1),
        "n3-H100x8": round(6500 * gib, 1)}
    assert facts["n3-H100x8"]["storage_gib"] == 6053.6  # 6,500 GB
    assert facts["n3-H100x1"]["network_source"] == (
        "Hyperstack documentation, 'Flavors - GPU/CPU Configurations' (https://infrahub-doc.nexgencloud.com/docs/"
        "hardware/flavors/, read 2026-12-02), H100-80GB-PCIe in CANADA-1: n3-H100x1, 28 CPU cores, 180 GB RAM, root "
        "disk 100 GB, ephemeral disk 750 GB; the page names no network bandwidth")
    h100 = _one(offers, "n3-H100x1", "CANADA-1").instance
    assert (h100.vcpus, h100.memory_gib, h100.network_gbps, h100.fabric) == (28, 180, None, None)


def test_a_flavor_unlike_the_page_gets_no_disk() -> None:
    from gpuhub_hyperstack.provider import storage_fields

    assert storage_fields("n3-H100x1", 28, 180)["storage_gib"] == 698.5
    assert storage_fields("n3-H100x1", 32, 180) == {}  # other cores than the page's: not the page's flavor
    assert storage_fields("n3-A100x1", 28, 120) == {}  # no page table found for A100
