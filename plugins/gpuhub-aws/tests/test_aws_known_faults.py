"""Known faults C01, C04 and C09 (shared/cases/known-faults.md), each tested with its whole kind."""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
from gpuhub_aws.parse import (
    build_instance,
    bundled_specs,
    is_accelerated,
    on_demand_price,
    parse_offer_file,
    product_rejection,
    spec_from_api,
)

from gpuhub.plugin import Gpu, GpuTable, Registry, make_engine, run_provider

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared" / "reference" / "provider-samples" / "aws"


@lru_cache(maxsize=1)
def _table() -> GpuTable:
    return Registry().gpus


class Resolver:
    """Stands in for ctx.gpu/ctx.warn: resolves through the real GPU table, counts unknowns and warnings."""

    def __init__(self) -> None:
        self.unknown: Counter[str] = Counter()
        self.warnings: list[str] = []

    def gpu(self, raw: str, memory_gib: float | None) -> Gpu:
        gpu = _table().to_gpu(raw, memory_gib)
        if not gpu.known:
            self.unknown[raw] += 1
        return gpu

    def warn(self, message: str) -> None:
        self.warnings.append(message)


def _instance(item: dict[str, Any], resolver: Resolver | None = None) -> Any:
    resolver = resolver or Resolver()
    spec = spec_from_api(item)
    return build_instance(spec, {}, spec.instance_type, resolver.gpu, resolver.warn)


# --- C01: an instance description without GpuInfo must not crash the fetch ---------------------------------
C01_INPUT = {"InstanceTypes": [
    {"InstanceType": "inf2.8xlarge", "VCpuInfo": {"DefaultVCpus": 32}, "MemoryInfo": {"SizeInMiB": 131072},
     "NeuronInfo": {"NeuronDevices": [{"Name": "Inferentia2", "Count": 1}]}},
    {"InstanceType": "g5.xlarge", "VCpuInfo": {"DefaultVCpus": 4}, "MemoryInfo": {"SizeInMiB": 16384},
     "GpuInfo": {"Gpus": [{"Name": "A10G", "Manufacturer": "NVIDIA", "Count": 1,
                           "MemoryInfo": {"SizeInMiB": 24576}}], "TotalGpuMemoryInMiB": 24576}}]}


def test_c01_instance_without_gpuinfo_is_not_an_nvidia_gpu_and_does_not_crash() -> None:
    inf2, g5 = (_instance(item) for item in C01_INPUT["InstanceTypes"])
    assert inf2.gpu.name == "Inferentia2" and inf2.gpu.vendor == "AWS"
    assert not _table().is_gpu(inf2.gpu.name)
    assert "not a GPU" in inf2.note and inf2.gpu_count == 1
    assert (g5.gpu.name, g5.gpu_count, g5.gpu_memory_gib, g5.vcpus, g5.memory_gib) == ("A10G", 1, 24.0, 4, 16.0)


def test_c01_every_accelerator_kind_in_real_specs_parses_or_is_left_out_by_rule() -> None:
    """The whole kind: every bundled type (GPU, Neuron, Qualcomm, FPGA, media) gives an instance or a rule."""
    outcomes: Counter[str] = Counter()
    for name, spec in bundled_specs().items():
        resolver = Resolver()
        try:
            inst = build_instance(spec, {}, name, resolver.gpu, resolver.warn)
        except ValueError as exc:
            assert str(exc).startswith("left out:"), (name, exc)
            outcomes["left out"] += 1
            continue
        assert inst.gpu is not None and inst.gpu_count > 0, name
        outcomes[spec.accelerator.kind if spec.accelerator else "none"] += 1
    assert outcomes["neuron"] >= 12  # inf1, inf2, trn1, trn1n, trn2
    assert outcomes["inference"] == 1  # dl2q: Qualcomm AI100
    assert outcomes["left out"] >= 9  # f1, f2, vt1
    assert outcomes["gpu"] >= 60


def test_c01_qualcomm_accelerator_is_a_known_accelerator_that_is_not_a_gpu() -> None:
    resolver = Resolver()
    spec = bundled_specs()["dl2q.24xlarge"]
    inst = build_instance(spec, {}, "dl2q.24xlarge", resolver.gpu, resolver.warn)
    # The plugin registers the AI100 (gpuhub_aws.plugin.AI100): known, Qualcomm's, not a GPU.
    assert inst.gpu.name == "AI100" and inst.gpu.known and inst.gpu.vendor == "Qualcomm"
    assert not _table().is_gpu("AI100") and inst.gpu_count == 8 and resolver.unknown == {}


def test_c01_spec_without_any_accelerator_is_not_an_offer() -> None:
    spec = spec_from_api({"InstanceType": "m5.large", "VCpuInfo": {"DefaultVCpus": 2},
                          "MemoryInfo": {"SizeInMiB": 8192}})
    with pytest.raises(ValueError, match="no accelerator"):
        build_instance(spec, {}, "m5.large", Resolver().gpu, Resolver().warn)
    with pytest.raises(ValueError, match="no spec"):
        build_instance(None, {"gpu": "8"}, "p9.bogus", Resolver().gpu, Resolver().warn)


def test_c01_inferentia_offers_in_bundled_recording_are_accelerators_not_nvidia() -> None:
    offers, status = run_provider(make_engine(Registry()), "aws", mode="replay")
    assert status.state == "ok"
    neuron = [o for o in offers if o.instance_type.startswith(("inf", "trn"))]
    assert neuron and all(o.instance.gpu.vendor == "AWS" and "not a GPU" in o.instance.note for o in neuron)
    assert not any(o.instance.gpu.vendor == "NVIDIA" for o in neuron)
    inf2 = [o for o in neuron if o.instance_type == "inf2.8xlarge" and o.region.code == "us-east-1"
            and o.price.purchase == "on_demand"]
    assert len(inf2) == 1 and inf2[0].instance.gpu.name == "Inferentia2"


# --- C04: L4 VRAM from the MiB AWS reports ---------------------------------------------------------------
C04_INPUT = {"InstanceType": "g6.12xlarge",
             "GpuInfo": {"Gpus": [{"Name": "L4", "Manufacturer": "NVIDIA", "Count": 4,
                                   "MemoryInfo": {"SizeInMiB": 22888}}], "TotalGpuMemoryInMiB": 91552}}


def test_c04_l4_reported_22888_mib_is_24_gib_per_gpu() -> None:
    resolver = Resolver()
    inst = _instance(C04_INPUT, resolver)
    assert inst.gpu.name == "L4"
    assert inst.gpu_memory_gib == 24.0 and inst.gpu_memory_total_gib == 96.0
    assert "22888 MiB" in inst.note  # the raw figure is kept
    assert resolver.warnings == []


def test_c04_a10g_control_uses_1024_and_marketed_size() -> None:
    for mib in (24576, 22888):
        item = {"InstanceType": "g5.xlarge", "GpuInfo": {"Gpus": [
            {"Name": "A10G", "Manufacturer": "NVIDIA", "Count": 1, "MemoryInfo": {"SizeInMiB": mib}}]}}
        inst = _instance(item)
        assert inst.gpu_memory_gib == 24.0, mib  # not 25.8 (MiB read as MB) nor 22.35


def test_c04_reported_memory_far_from_marketed_warns() -> None:
    resolver = Resolver()
    item = {"InstanceType": "g6.xlarge", "GpuInfo": {"Gpus": [
        {"Name": "L4", "Manufacturer": "NVIDIA", "Count": 1, "MemoryInfo": {"SizeInMiB": 49152}}]}}
    inst = _instance(item, resolver)
    assert inst.gpu_memory_gib == 24.0
    assert len(resolver.warnings) == 1 and "49152 MiB" in resolver.warnings[0]


@pytest.mark.parametrize(("itype", "gpu", "per_gpu", "total"), [
    ("g6.48xlarge", "L4", 24.0, 192.0), ("g5.48xlarge", "A10G", 24.0, 192.0), ("g6e.12xlarge", "L40S", 48.0, 192.0),
    ("p4d.24xlarge", "A100", 40.0, 320.0), ("p4de.24xlarge", "A100-80GB", 80.0, 640.0),
    ("p5.48xlarge", "H100", 80.0, 640.0), ("p5e.48xlarge", "H200", 141.0, 1128.0),
    ("p6-b200.48xlarge", "B200", 180.0, 1440.0), ("p3dn.24xlarge", "V100-32GB", 32.0, 256.0),
    ("g7e.2xlarge", "RTXPRO6000", 96.0, 96.0), ("g6f.4xlarge", "L4", 12.0, 12.0),
])
def test_c04_every_gpu_model_maps_to_marketed_memory(itype: str, gpu: str, per_gpu: float, total: float) -> None:
    resolver = Resolver()
    inst = build_instance(bundled_specs()[itype], {}, itype, resolver.gpu, resolver.warn)
    assert (inst.gpu.name, inst.gpu_memory_gib, inst.gpu_memory_total_gib) == (gpu, per_gpu, total)
    assert resolver.warnings == []


# --- C09: capacity-reservation rows collide with the on-demand row ----------------------------------------
C09_INPUT: list[dict[str, Any]] = [
    {"product": {"attributes": {"instanceType": "p4d.24xlarge", "regionCode": "us-east-1",
                                "operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA",
                                "capacitystatus": "Used", "gpu": "8", "gpuMemory": "NA"}},
     "terms": {"OnDemand": {"T1": {"priceDimensions": {"D1": {"unit": "Hrs",
                                                              "pricePerUnit": {"USD": "21.9600000000"}}}}}}},
    {"product": {"attributes": {"instanceType": "p4d.24xlarge", "regionCode": "us-east-1",
                                "operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA",
                                "capacitystatus": "AllocatedCapacityReservation", "gpu": "8", "gpuMemory": "NA"}},
     "terms": {"OnDemand": {"T2": {"priceDimensions": {"D2": {"unit": "Hrs",
                                                              "pricePerUnit": {"USD": "0.0000000000"}}}}}}},
    {"product": {"attributes": {"instanceType": "p4d.24xlarge", "regionCode": "us-east-1",
                                "operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA",
                                "capacitystatus": "UnusedCapacityReservation", "gpu": "8", "gpuMemory": "NA"}},
     "terms": {"OnDemand": {"T3": {"priceDimensions": {"D3": {"unit": "Hrs",
                                                              "pricePerUnit": {"USD": "21.9600000000"}}}}}}}]


def _c09_offer_file() -> bytes:
    """The C09 products in the bulk-file shape (SKUs added; the case's attributes lack the licence and family
    fields, which a real file always has)."""
    products, on_demand = {}, {}
    for n, entry in enumerate(C09_INPUT, 1):
        sku = f"C09SKU{n}"
        attrs = dict(entry["product"]["attributes"], licenseModel="No License required", marketoption="OnDemand")
        products[sku] = {"sku": sku, "productFamily": "Compute Instance", "attributes": attrs}
        on_demand[sku] = entry["terms"]["OnDemand"]
    doc = {"formatVersion": "v1.0", "publicationDate": "2026-11-30T00:00:00Z", "products": products,
           "terms": {"OnDemand": on_demand, "Reserved": {}}}
    return json.dumps(doc).encode()


def test_c09_only_the_used_row_gives_the_on_demand_price() -> None:
    result = parse_offer_file([_c09_offer_file()], "us-east-1", is_accelerated)
    assert list(result.prices) == ["p4d.24xlarge"]
    price = result.prices["p4d.24xlarge"].on_demand
    assert price is not None and price.amount == Decimal("21.96") and price.currency == "USD"
    assert result.filtered == {"capacity status AllocatedCapacityReservation": 1,
                               "capacity status UnusedCapacityReservation": 1}
    assert result.malformed == {}
    inst = build_instance(bundled_specs()["p4d.24xlarge"], result.prices["p4d.24xlarge"].attributes,
                          "p4d.24xlarge", Resolver().gpu, Resolver().warn)
    assert (inst.gpu.name, inst.gpu_count, inst.gpu_memory_gib) == ("A100", 8, 40.0)  # gpuMemory "NA" is harmless


def test_c09_in_any_order_the_reservation_rows_never_replace_the_used_row() -> None:
    for order in ([2, 1, 0], [1, 0, 2], [0, 2, 1]):
        doc = json.loads(_c09_offer_file())
        keys = list(doc["products"])
        doc["products"] = {keys[i]: doc["products"][keys[i]] for i in order}
        result = parse_offer_file([json.dumps(doc).encode()], "us-east-1", is_accelerated)
        assert result.prices["p4d.24xlarge"].on_demand.amount == Decimal("21.96")


def test_c09_capacity_blocks_and_zero_prices_are_not_on_demand_offers() -> None:
    block = {"productFamily": "Compute Instance", "attributes": {
        "operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA",
        "licenseModel": "No License required", "capacitystatus": "Used", "marketoption": "CapacityBlock"}}
    assert product_rejection(block) == "market option CapacityBlock"
    with pytest.raises(ValueError, match="zero"):
        on_demand_price({"T": {"priceDimensions": {"D": {"unit": "Hrs", "pricePerUnit": {"USD": "0.0000000000"}}}}})


def test_c09_real_unused_capacity_reservation_item_is_rejected() -> None:
    path = SHARED / "pricing-getproducts.PriceList-items.unused-capacity-reservation.cloudcost-exporter-test.json"
    if not path.is_file():
        pytest.skip("../shared is absent")
    [text] = json.loads(path.read_text(encoding="utf-8"))
    item = json.loads(text)
    assert product_rejection(item["product"]) == "capacity status UnusedCapacityReservation"
    # its price looks like an on-demand price: only the capacity status tells it apart
    assert on_demand_price(item["terms"]["OnDemand"]).amount == Decimal("0.468")


def test_c09_bundled_recording_has_one_on_demand_offer_per_type_and_region() -> None:
    offers, _ = run_provider(make_engine(Registry()), "aws", mode="replay")
    on_demand = Counter((o.instance_type, o.region.code) for o in offers if o.price.purchase == "on_demand")
    assert max(on_demand.values()) == 1
    prices = {(o.instance_type, o.region.code): o.price.amount for o in offers if o.price.purchase == "on_demand"}
    assert prices[("p4d.24xlarge", "us-east-1")] == Decimal("21.957642")
    assert prices[("p5.48xlarge", "us-east-1")] == Decimal("55.04")
    assert all(o.price.amount > 0 for o in offers)
