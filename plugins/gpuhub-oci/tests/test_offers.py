"""OCI offers: the recording's facts to the cent, every reference shape, live equal to replay, faults, bad shapes."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from gpuhub_oci.provider import Oci, gpu_spelling, regions

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

RECORDING = Oci().fixtures_dir()
"""The bundled recording."""

Replayed = tuple[tuple[Offer, ...], ProviderStatus]


def _one(offers: tuple[Offer, ...], shape: str, region: str, purchase: str) -> Offer:
    found = [o for o in offers if (o.instance_type, o.region.code, o.price.purchase) == (shape, region, purchase)]
    assert len(found) == 1, (shape, region, purchase, len(found))
    return found[0]


def test_bundled_facts(replayed: Replayed) -> None:
    offers, status = replayed
    h100 = _one(offers, "BM.GPU.H100.8", "us-ashburn-1", "on_demand")
    assert (h100.price.amount, h100.gpu_name, h100.instance.gpu_count) == (Decimal("80"), "H100", 8)
    assert (h100.instance.vcpus, h100.instance.memory_gib, h100.instance.bare_metal) == (224, 2048, True)
    gb300 = _one(offers, "BM.GPU.GB300.4", "eu-frankfurt-1", "on_demand")
    assert (gb300.price.amount, gb300.gpu_name, gb300.instance.cpu_arch, gb300.instance.vcpus) == (
        Decimal("72"), "GB300", "arm64", 144)
    v100 = _one(offers, "VM.GPU3.1", "ap-tokyo-1", "spot")
    assert (v100.price.amount, v100.gpu_name, v100.instance.gpu_memory_gib) == (Decimal("1.475"), "V100", 16)
    a100 = _one(offers, "BM.GPU4.8", "uk-london-1", "on_demand")  # GPU4 names no GPU: 8 x A100 40 GB
    assert (a100.gpu_name, a100.instance.gpu_memory_gib, a100.price.amount) == ("A100", 40, Decimal("24.4"))
    assert _one(offers, "BM.GPU.A100-v2.8", "uk-london-1", "on_demand").gpu_name == "A100-80GB"
    assert status.state == "ok" and len(offers) == 1100 and len(regions()) == 44
    assert status.skipped_reasons == {"CPU-only shape (no GPU)": 2}
    assert h100.region.city == "Ashburn" and h100.region.country == "US"


def test_every_reference_shape_to_the_cent(replayed: Replayed, digest_csv: Path) -> None:
    offers, _ = replayed
    with digest_csv.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 21
    for row in rows:
        listed = {entry.split("/")[0] for entry in row["Regions"].split(";")}
        assert listed == set(regions())
        for region in ("af-casablanca-1", "us-phoenix-1", "eu-amsterdam-1"):
            offer = _one(offers, row["InstanceType"], region, "on_demand")
            assert offer.price.amount == Decimal(row["Price"]), row
            assert (offer.instance.gpu_count, offer.instance.vcpus, offer.instance.memory_gib) == (
                int(row["AcceleratorCount"]), int(row["vCPUs"]), float(row["MemoryGiB"]))
            assert offer.gpu_name == row["AcceleratorName"]
            if row["SpotPrice"]:
                assert _one(offers, row["InstanceType"], region, "spot").price.amount == Decimal(row["SpotPrice"])


def test_search_with_every_plugin_installed() -> None:
    result = gpuhub.search(gpu="MI355X", provider="oci", region="eu-paris-1", engine=make_engine(Registry()))
    assert [(o.instance_type, o.price.amount, o.instance.gpu_count, o.instance.vcpus, o.instance.memory_gib)
            for o in result if o.provider == "oci"] == [("BM.GPU.MI355X.8", Decimal("68.8"), 8, 256, 3072)]
    near = gpuhub.search(gpu="B200", provider="oci", near="Frankfurt", limit=1, engine=make_engine(Registry()))
    assert next(o for o in near if o.provider == "oci").region.code == "eu-frankfurt-1"


def test_gpu_spelling() -> None:
    assert [gpu_spelling(n) for n in ("BM.GPU.H100.8", "BM.GPU.A100-v2.8", "BM.GPU2.2", "VM.GPU3.4",
                                      "BM.GPU.RTXPRO.8")] == ["H100", "A100", "P100", "V100", "RTX PRO 6000"]
    with pytest.raises(ValueError):
        gpu_spelling("BM.Standard.E4.128")


def test_bad_shapes_are_skipped_and_counted(registry: Registry) -> None:
    shapes: dict[str, Any] = json.loads((RECORDING / "shapes.json").read_text(encoding="utf-8"))
    products: dict[str, Any] = json.loads((RECORDING / "products.json").read_text(encoding="utf-8"))
    h100 = next(s for s in shapes["items"] if s["name"] == "BM.GPU.H100.8")
    items = [h100, {**h100, "name": "BM.GPU.H100.8x", "hidden": True},
             {**h100, "name": "BM.GPU.H100.8y", "status": "DEPRECATED"},
             {**h100, "name": "BM.GPU.H100.8z", "products": [{"partNumber": "B000", "qty": 112,
                                                              "type": {"value": "ocpu"}}]},
             {**h100, "name": "BM.GPU.H100.8w", "gpuMemoryQty": 655360}]  # MiB where GB belong (C37)
    placeholder = {**products["items"][0], "partNumber": "ZERO"}
    placeholder["currencyCodeLocalizations"] = [{"currencyCode": "USD", "prices": [
        {"model": "PAY_AS_YOU_GO", "value": 0}]}]
    items.append({**h100, "name": "BM.GPU.H100.8v", "products": [{"partNumber": "ZERO", "qty": 112,
                                                                   "type": {"value": "ocpu"}}]})

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        if request.url.path.endswith("shapes.json"):
            return httpx.Response(200, json={"items": items})
        return httpx.Response(200, json={"items": [*products["items"], placeholder]})

    offers, status = run_provider(make_engine(registry, transport=CountingTransport(handler)), "oci", mode="live")
    assert {o.instance_type for o in offers} == {"BM.GPU.H100.8", "BM.GPU.H100.8w"}
    assert {o.instance.gpu_memory_gib for o in offers} == {80}
    assert any("MiB written in a field for GB total" in w for w in status.warnings), status.warnings
    assert status.skipped_reasons == {"hidden or inactive shape": 2, "GPU shape without a priced GPU part": 1,
                                      "placeholder price (zero or negative)": 1}


def test_roce_on_the_documented_cluster_network_shapes_only(replayed: Any) -> None:
    """Issue 28: OCI documents BM.GPU.A100-v2.8 and BM.GPU4.8 as cluster-network shapes, its RDMA being RoCE: they
    carry that fabric (no rate published) with the pages named; every other shape, H100 included, leaves network
    and disk unknown (the Cost Estimator data has none)."""
    offers = replayed[0]
    by_shape = {o.instance_type: network_facts(o) for o in offers}
    for shape in ("BM.GPU.A100-v2.8", "BM.GPU4.8"):
        facts = by_shape[shape]
        assert set(facts) == {"fabric", "network_source"} and facts["fabric"] == "RoCE", shape
        assert "managingclusternetworks.htm" in facts["network_source"] and "RoCE" in facts["network_source"]
    assert by_shape["BM.GPU.H100.8"] == {} and by_shape["BM.GPU.B200.8"] == {} and by_shape["VM.GPU.A10.1"] == {}
    assert {s for s, facts in by_shape.items() if facts} == {"BM.GPU.A100-v2.8", "BM.GPU4.8"}
