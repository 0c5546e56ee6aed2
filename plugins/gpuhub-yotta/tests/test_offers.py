"""gpuhub-yotta against its source: facts to the cent from the reference catalog and from the bundled table, and
rows that contradict their own pod type name."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from gpuhub_yotta.provider import Yotta, pod_shape

from gpuhub.plugin import Offer, ProviderStatus, Registry, build_script, make_engine, network_facts, run_provider

PLUGIN = Path(__file__).resolve().parents[1]
Replayed = tuple[tuple[Offer, ...], ProviderStatus]

# (pod type, region) -> USD per instance-hour, as in yotta/vms.csv.
FACTS = {("1x14v119g_NVIDIA_GeForce_RTX_5090_32G_SECURE", "us-east-2"): "0.65",
         ("2x28v238g_NVIDIA_GeForce_RTX_5090_32G_SECURE", "us-east-2"): "1.3",
         ("8x112v952g_NVIDIA_GeForce_RTX_5090_32G_SECURE", "us-east-2"): "5.2",
         ("4x120v460g_NVIDIA_GeForce_RTX_5090_32G_SECURE", "us-central-2"): "2.6",
         ("8x240v920g_NVIDIA_GeForce_RTX_5090_32G_SECURE", "us-central-2"): "5.2"}


def test_five_facts_from_the_reference_catalog(catalog: Path, replayed: Replayed) -> None:
    index = {(o.instance_type, o.region.code): o for o in replayed[0]}
    with catalog.open(newline="") as fh:
        rows = {(r["InstanceType"], r["Region"]): r for r in csv.DictReader(fh)}
    for key, price in FACTS.items():
        assert index[key].price.amount == Decimal(rows[key]["Price"]) == Decimal(price)
        assert index[key].instance.gpu_count == float(rows[key]["AcceleratorCount"])


def test_five_facts_from_the_bundled_table(replayed: Replayed) -> None:
    offers, status = replayed
    assert status.state == "ok" and status.mode == "static" and len(offers) == 8 and status.skipped_records == 0
    index = {(o.instance_type, o.region.code): o for o in offers}
    for key, price in FACTS.items():
        offer = index[key]
        assert offer.price.amount == Decimal(price) and offer.price.purchase == "on_demand"
        assert offer.instance.gpu is not None and offer.instance.gpu.name == "RTX5090"
        assert offer.instance.gpu.memory_gib == Decimal(32)  # 32607 MiB reported; the card is sold as 32 GB
    big = index[("8x240v920g_NVIDIA_GeForce_RTX_5090_32G_SECURE", "us-central-2")]
    assert (big.instance.gpu_count, big.instance.vcpus, big.instance.memory_gib) == (8, 240, 920)
    assert big.region.country == "US" and big.region.continent == "North America"


def test_pod_type_names_spell_out_their_shape() -> None:
    assert pod_shape("8x112v952g_NVIDIA_GeForce_RTX_5090_32G_SECURE") == (
        8, 112, 952, "NVIDIA GeForce RTX 5090 32G", "secure")
    assert pod_shape("rtx5090-large") is None


def test_build_script_reproduces_the_bundled_table(catalog: Path) -> None:
    module = build_script(PLUGIN)
    bundled = json.loads((Yotta().fixtures_dir() / "pod_types.json").read_text(encoding="utf-8"))
    assert module.build(catalog) == bundled


def _pod(**changes: Any) -> dict[str, Any]:
    pod: dict[str, Any] = {"instance_type": "2x28v238g_NVIDIA_GeForce_RTX_5090_32G_SECURE", "gpu_count": 2,
                           "vcpus": 28, "memory_gib": 238, "region": "us-east-2", "gpu_memory_mib": 32607,
                           "price": "1.3", "currency": "USD"}
    pod.update(changes)
    return pod


def test_fault_rows_contradicting_their_name_or_priced_zero_are_skipped(tmp_path: Path, registry: Registry) -> None:
    pods = [_pod(), _pod(gpu_count=1), _pod(region="us-central-2", price="0"), _pod(instance_type="big-pod"),
            "junk", _pod(region="us-central-2", price=None),
            _pod(region="eu-1", gpu_memory_mib=32)]  # GB in the MiB field (C37): warned, the table's 32 GB kept
    directory = tmp_path / "yotta"
    directory.mkdir()
    (directory / "pod_types.json").write_text(json.dumps({"pod_types": pods}))
    (directory / "manifest.json").write_text((Yotta().fixtures_dir() / "manifest.json").read_text())
    offers, status = run_provider(make_engine(registry), "yotta", fixtures_dir=tmp_path)
    assert status.state == "ok", status.line()
    assert sorted(o.region.code for o in offers) == ["eu-1", "us-east-2"]
    assert status.skipped_reasons == {"row contradicting its pod type name (GPUs, vCPUs or RAM)": 1,
                                      "missing, zero or negative price (placeholder)": 2,
                                      "pod type name that does not spell out its shape": 1,
                                      "pod type: TypeError: pod type is a str, not an object": 1}
    assert any("C37" in w for w in status.warnings), status.warnings


def test_network_and_storage_are_not_published(replayed: Any) -> None:
    """Issue 28: Yotta's pod types gives no network bandwidth, fabric or local disk (README):
    every offer leaves them unknown, with no source claimed."""
    offers = replayed[0]
    assert offers and [network_facts(o) for o in offers if network_facts(o)] == []
