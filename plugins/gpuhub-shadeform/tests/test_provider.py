"""gpuhub-shadeform: facts from the SkyPilot catalog's Shadeform file, seller and source of every offer, memory
figures checked against the GPU table (C37), and live mode against the recording."""

from __future__ import annotations

import csv
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from gpuhub_shadeform.provider import ShadeformProvider

from gpuhub.plugin import Offer, ProviderStatus, replaying

RECORDING = ShadeformProvider().fixtures_dir()
"""The bundled recording."""

Replayed = tuple[tuple[Offer, ...], ProviderStatus]


def test_facts_and_sellers_from_the_catalog(replayed: Replayed) -> None:
    offers, status = replayed
    assert status.state == "ok" and status.source_kind == "reconstructed" and status.data_date is None
    [h100] = [o for o in offers if (o.instance_type, o.region.code) == ("lambdalabs_H100-sxm5", "austin-usa-1")]
    assert (h100.price.amount, h100.price.purchase, h100.instance.gpu_count, h100.instance.vcpus,
            h100.instance.memory_gib) == (Decimal("3.29"), "on_demand", 1, 26, 225)
    assert h100.instance.gpu is not None and (h100.instance.gpu.name, h100.instance.gpu_memory_gib) == ("H100", 80)
    assert (h100.seller, h100.via, h100.provider, h100.instance.channel) == (
        "lambda", "shadeform", "shadeform", "lambda via shadeform")
    assert (h100.region.country, h100.region.continent, h100.available) == ("US", "North America", None)
    [a6000] = [o for o in offers if (o.instance_type, o.region.code) == ("imwt_A6000x8", "kansascity-usa-2")]
    # C37: the catalog's 'SizeInMiB': 48 is GB; 8 x RTX A6000 with 48 GB each, from the GPU table
    assert a6000.instance.gpu is not None and (a6000.instance.gpu.name, a6000.instance.gpu_memory_total_gib) == (
        "RTXA6000", 384)
    assert (a6000.price.amount, a6000.seller) == (Decimal("3.92"), "imwt")
    assert {o.seller for o in offers} >= {"massedcompute", "verda", "vultr", "cudo", "scaleway", "lambda",
                                          "hyperstack", "paperspace", "crusoe", "digitalocean", "latitude", "nebius",
                                          "imwt", "denvr", "horizon", "boostrun", "voltagepark", "evergreen"}
    assert not status.unknown_gpus and not any("contradicts" in w for w in status.warnings)


def test_every_catalog_row(replayed: Replayed, catalog: Path) -> None:
    with catalog.open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    got = sorted((o.instance_type, o.region.code, o.price.amount, o.instance.vcpus, o.instance.memory_gib)
                 for o in replayed[0])
    want = sorted((r["InstanceType"], r["Region"], Decimal(r["Price"]), float(r["vCPUs"]), float(r["MemoryGiB"]))
                  for r in rows)
    assert got == want and len(got) == 259


def _answer(**config: Any) -> dict[str, Any]:
    base = {"num_gpus": 8, "gpu_type": "A100", "vcpus": 124, "memory_in_gb": 1800, "vram_per_gpu_in_gb": 40,
            "storage_in_gb": 512, "interconnect": "sxm4"}
    return {"instance_types": [
        {"cloud": "lambdalabs", "shade_instance_type": "A100x8", "cloud_instance_type": "gpu_8x_a100",
         "hourly_price": 1032, "configuration": {**base, **config},
         "availability": [{"region": "dallas-usa-1", "available": True},
                          {"region": "mumbai-india-1", "available": False}]},
        {"cloud": "datacrunch", "shade_instance_type": "CPU", "hourly_price": 10,
         "configuration": {"num_gpus": 0, "gpu_type": "", "vcpus": 4, "memory_in_gb": 16},
         "availability": [{"region": "helsinki-finland-1", "available": True}]}]}


def test_live_answer_seller_availability_and_cpu_only(live: Callable[..., Any]) -> None:
    offers, status, _ = live(lambda request, n: httpx.Response(200, json=_answer()))
    assert status.state == "ok", status.line()
    by_region = {o.region.code: o for o in offers}
    dallas = by_region["dallas-usa-1"]
    assert (dallas.price.amount, dallas.seller, dallas.instance.seller_instance_type, dallas.instance.machine) == (
        Decimal("10.32"), "lambda", "gpu_8x_a100", "lambda:gpu_8x_a100")
    assert (dallas.available, by_region["mumbai-india-1"].available, by_region["mumbai-india-1"].region.country) \
        == (True, False, "IN")
    assert dallas.instance.gpu is not None and dallas.instance.gpu.name == "A100"
    assert status.skipped_reasons == {"CPU-only instance type (no GPU)": 1}


def test_c37_memory_contradicting_the_table_is_warned_about(live: Callable[..., Any]) -> None:
    offers, status, _ = live(lambda request, n: httpx.Response(200, json=_answer(gpu_type="H100",
                                                                               vram_per_gpu_in_gb=48)))
    assert offers and all(o.instance.gpu is not None and o.instance.gpu.memory_gib == 80 for o in offers)
    assert any("vram_per_gpu_in_gb 48" in w and "contradicts" in w for w in status.warnings), status.warnings


def test_live_gives_the_offers_of_replay(live: Callable[..., Any], replayed: Replayed) -> None:
    offers, status, transport = live(replaying(RECORDING))
    assert status.state == "ok" and transport.calls == 1, status.line()
    assert [(o.instance, o.region, o.price) for o in offers] == [(o.instance, o.region, o.price) for o in replayed[0]]
    assert all(o.available is True for o in offers)  # live, Shadeform's availability is taken as it says
    sent = transport.requests[0] if hasattr(transport, "requests") else None
    assert sent is None or sent.headers.get("X-API-KEY") == "test-key"


def test_storage_is_sourced_and_the_network_stays_unknown(live: Callable[..., Any], replayed: Any) -> None:
    """Issue 28: Shadeform states a machine's disk (``storage_in_gb``) and its inside interconnect, never a network
    bandwidth or an inter-node fabric: the disk carries its source, the network fields stay unknown."""
    offers, _, _ = live(lambda request, n: httpx.Response(200, json=_answer()))
    dallas = next(o for o in offers if o.region.code == "dallas-usa-1").instance
    assert (dallas.storage_gib, dallas.interconnect, dallas.network_source) == (
        512, "sxm4", "Shadeform instances/types: configuration.storage_in_gb (the machine's disk; no network fields)")
    assert (dallas.network_gbps, dallas.fabric, dallas.fabric_gbps, dallas.storage_disks) == (None, None, None, None)
    # the reconstructed recording has no storage_in_gb: nothing to source, nothing filled
    assert all(o.instance.storage_gib is None and o.instance.network_source is None for o in replayed[0])
