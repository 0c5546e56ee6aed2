"""Cudo offers: the recording's facts to the cent, every reference row, live equal to replay, faults, bad rows."""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx

import gpuhub
from gpuhub.plugin import (
    CountingTransport,
    Offer,
    ProviderStatus,
    Registry,
    make_engine,
    network_facts,
    run_provider,
)

Replayed = tuple[tuple[Offer, ...], ProviderStatus]
CANONICAL = {"A40": "A40", "RTXA5000": "RTXA5000", "RTXA6000": "RTXA6000", "A100": "A100-80GB", "L40S": "L40S",
             "H100-SXM": "H100", "A800": "A800", "V100": "V100"}


def _one(offers: tuple[Offer, ...], instance_type: str, region: str) -> Offer:
    found = [o for o in offers if (o.instance_type, o.region.code) == (instance_type, region)]
    assert len(found) == 1, (instance_type, region, len(found))
    return found[0]


def test_bundled_facts(replayed: Replayed) -> None:
    offers, status = replayed
    h100 = _one(offers, "sapphire-rapids-h100_8x96v192gb", "no-kristiansand-1")
    assert round(h100.price.amount, 2) == Decimal("15.83") and h100.price.purchase == "on_demand"
    assert (h100.gpu_name, h100.instance.gpu_count, h100.instance.vcpus, h100.instance.memory_gib) == (
        "H100", 8, 96, 192)
    a40 = _one(offers, "ice-lake-a40-compute_1x2v4gb", "ca-montreal-3")
    assert a40.price.amount == Decimal("0.3698") and a40.gpu_name == "A40" and a40.instance.gpu_memory_gib == 48
    a800 = _one(offers, "intel-ice-lake-a800-pci_4x48v96gb", "us-carlsbad-1")
    assert (a800.gpu_name, round(a800.price.amount, 2)) == ("A800", Decimal("3.76"))
    assert status.state == "ok" and len(offers) == 143 and not status.unknown_gpus
    assert _one(offers, "intel-broadwell-v100_1x2v4gb", "us-newyork-1").region.city == "New York City"


def test_every_reference_row_to_the_cent(replayed: Replayed, catalog_csv: Path) -> None:
    offers, _ = replayed
    with catalog_csv.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 143
    for row in rows:
        offer = _one(offers, row["InstanceType"], row["Region"])
        assert abs(offer.price.amount - Decimal(row["Price"])) < Decimal("0.000001"), row  # float artefacts only
        assert round(offer.price.amount, 2) == round(Decimal(row["Price"]), 2)
        assert offer.gpu_name == CANONICAL[row["AcceleratorName"]]
        assert (offer.instance.gpu_count, offer.instance.vcpus, offer.instance.memory_gib) == (
            float(row["AcceleratorCount"]), int(row["vCPUs"]), float(row["MemoryGiB"]))


def test_search_with_every_plugin_installed() -> None:
    result = gpuhub.search(gpu="A800", provider="cudo", min_gpus=8, engine=make_engine(Registry()))
    direct = [o for o in result if o.provider == "cudo"]  # not Cudo resold by an aggregator
    assert [(o.instance_type, round(o.price.amount, 2), o.instance.gpu_count, o.region.code) for o in direct] == [
        ("intel-ice-lake-a800-pci_8x64v128gb", Decimal("7.15"), 8, "us-carlsbad-1"),
        ("intel-ice-lake-a800-pci_8x96v192gb", Decimal("7.52"), 8, "us-carlsbad-1")]


def test_bad_machine_types_are_skipped_and_counted(registry: Registry) -> None:
    good = {"machineType": "epyc-genoa-l40s-graphics", "dataCenterId": "no-kristiansand-1",
            "gpuModel": "L40S (compute mode)", "gpuModelId": "l40s", "gpuPriceHr": {"value": "0.87"},
            "vcpuPriceHr": {"value": "0.0147"}, "memoryGibPriceHr": {"value": "0"}, "maxGpuFree": 2}
    body = {"machineTypes": [
        good,
        {**good, "gpuModel": "", "gpuModelId": ""},  # a CPU-only machine type
        {**good, "gpuPriceHr": {"value": "0"}},  # placeholder
        {**good, "dataCenterId": "Kristiansand, Norway"},  # a display name, not a data-centre id
        {**good, "vcpuPriceHr": {"value": "n/a"}},  # malformed
    ]}
    offers, status = run_provider(make_engine(registry, transport=CountingTransport(
        lambda request, n: httpx.Response(200, json=body))), "cudo", mode="live")
    assert len(offers) == 13 and {o.available for o in offers if o.instance.gpu_count <= 2} == {True}
    assert {o.available for o in offers if o.instance.gpu_count > 2} == {False}  # more GPUs than are free
    assert status.skipped_reasons == {
        "CPU-only machine type (no GPU)": 1, "placeholder GPU price (zero or negative)": 1,
        "data-centre name that is not a Cudo data-centre id": 1,
        "machine type: ValueError: vcpuPriceHr is not a number: 'n/a'": 1}


def test_network_and_storage_are_not_published(replayed: Any) -> None:
    """Issue 28: Cudo Compute's machine-types API gives no network bandwidth, fabric or local disk (README):
    every offer leaves them unknown, with no source claimed."""
    offers = replayed[0]
    assert offers and [network_facts(o) for o in offers if network_facts(o)] == []
