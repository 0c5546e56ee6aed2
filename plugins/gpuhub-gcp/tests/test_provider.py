"""The GCP provider end to end: the bundled recording's facts, the real samples in ../shared, the known faults
C11 and C14 (each with its whole kind), pagination and credentials."""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from gpuhub_gcp.parse import Component, Notes, build_index
from gpuhub_gcp.provider import MAX_PAGES

from gpuhub.plugin import (
    CountingTransport,
    Offer,
    ProviderStatus,
    Registry,
    make_engine,
    reset_state,
    run_cli,
    run_provider,
    scrub_url,
)

SAMPLES = Path(__file__).resolve().parents[3] / ".." / "shared" / "reference" / "provider-samples" / "gcp"
PAGE_2023 = SAMPLES / "cloudbilling-v1.services.6F81-5844-456A.skus.a2-gpu-core-ram.page-excerpt.opencost-test.json"
MIXED_11 = SAMPLES / ("cloudbilling-v1.skus-items.mixed-11.h100-plus-spot-commit3yr-l4-spot.2024-09-16"
                      ".cromwell-monitor-test.json")
BIG = SAMPLES / "cloudbilling-v1.skus-items.compute-engine.gpu-h100-a3-n1std.2024-09-16.cromwell-monitor-test.json"
MACHINE_TYPE_SAMPLE = SAMPLES / ("compute-v1.machineType-resources.a2-highgpu-1g-and-t2d-standard-8"
                                 ".cluster-toolkit-test.json")
ENV = {"GOOGLE_API_KEY": "test-key-123"}
MICRO = Decimal("0.000001")
CENT = Decimal("0.01")


def need(path: Path) -> Path:
    if not path.is_file():
        pytest.skip(f"{path.name} not available (../shared is absent)")
    return path


def replay() -> tuple[tuple[Offer, ...], ProviderStatus]:
    return run_provider(make_engine(Registry()), "gcp", mode="replay")


def live(pages: list[Any] | Any, environ: dict[str, str] | None = None,
         ) -> tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]:
    """Serve ``pages`` in order (dicts as JSON, ints as that HTTP status) through the live code path."""
    pages = list(pages)

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        body = pages[min(n, len(pages)) - 1]
        if isinstance(body, int):
            return httpx.Response(body, text="error")
        return httpx.Response(200, json=body)

    transport = CountingTransport(handler)
    engine = make_engine(Registry(), transport=transport, environ=ENV if environ is None else environ)
    offers, status = run_provider(engine, "gcp", mode="live")
    return offers, status, transport


def find(offers: tuple[Offer, ...], instance_type: str, region: str, purchase: str) -> Offer:
    hits = [o for o in offers if (o.instance_type, o.region.code, o.price.purchase) == (instance_type, region,
                                                                                      purchase)]
    assert len(hits) == 1, f"{len(hits)} offers for {instance_type} {region} {purchase}"
    return hits[0]


def sku(sku_id: str, description: str, group: str, usage: str | None, regions: list[str], units: str,
        nanos: int, unit: str = "h") -> dict[str, Any]:
    category: dict[str, Any] = {"resourceGroup": group}
    if usage is not None:
        category["usageType"] = usage
    return {"skuId": sku_id, "description": description, "category": category, "serviceRegions": regions,
            "pricingInfo": [{"pricingExpression": {"usageUnit": unit, "tieredRates": [
                {"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": units, "nanos": nanos}}]}}]}


# --- the bundled recording (real SKUs of 2024-09-16) ----------------------------------------------------------
def test_a3_highgpu_8g_us_central1_on_demand_and_spot() -> None:
    offers, status = replay()
    on_demand = find(offers, "a3-highgpu-8g", "us-central1", "on_demand")
    assert on_demand.price.amount.quantize(MICRO) == Decimal("87.832466")
    assert on_demand.price.currency == "USD"
    # Spot: the SkyPilot catalog's newer price (host 2.75246 + H100:8 22.8008) replaces the 2024-09-16 SKUs' 48.306672
    spot = find(offers, "a3-highgpu-8g", "us-central1", "spot")
    assert spot.price.amount.quantize(CENT) == Decimal("25.55") and spot.data_date == dt.date(2025, 8, 15)
    assert spot.price.replaced is not None and spot.price.replaced.startswith(
        "48.306672 USD of 2024-09-16 (Cloud Billing SKUs; A3 core 0.01402 USD of 2024-09-16 (SKU EEE5-1DA5-D9CF)")
    inst = on_demand.instance
    assert (inst.vcpus, inst.memory_gib, inst.gpu_count, inst.gpu and inst.gpu.name) == (208, 1872, 8, "H100")
    assert inst.gpu is not None and inst.gpu.memory_gib == 80
    assert on_demand.price_per_gpu_hour is not None
    assert on_demand.price_per_gpu_hour.quantize(MICRO) == Decimal("10.979058")
    assert status.skipped_records == 0 and not status.unknown_gpus


def test_reserved_prices_carry_their_term() -> None:
    offers, _ = replay()
    one = find(offers, "a3-highgpu-8g", "us-central1", "reserved_1y")
    three = find(offers, "a3-highgpu-8g", "us-central1", "reserved_3y")
    assert (one.price.term_hours, three.price.term_hours) == (8760, 26280)
    assert one.price.amount.quantize(MICRO) == Decimal("60.969426")
    assert three.price.amount.quantize(MICRO) == Decimal("38.568491")


def test_a3_mega_priced_from_a3plus_host_and_mega_or_plus_gpu() -> None:
    offers, _ = replay()
    # us-central1: "Nvidia H100 80GB Plus GPU running in Americas"; us-east4: "... Mega GPU running in Virginia".
    assert find(offers, "a3-megagpu-8g", "us-central1", "on_demand").price.amount == Decimal("92.74317856")
    east4 = find(offers, "a3-megagpu-8g", "us-east4", "on_demand")
    assert east4.price.amount == Decimal("92.743213488")  # GPU part 8 × 10.34428 ("Mega ... Virginia")


def test_types_not_sold_for_a_purchase_model_are_not_offered_that_way() -> None:
    offers, _ = replay()
    assert {o.price.purchase for o in offers if o.instance_type == "a3-highgpu-1g"} == {"spot"}
    # the catalog's a3-highgpu-1g spot: host 0.34406 + H100:1 2.8501 (newer than the 2024 SKUs' 3.9101)
    assert find(offers, "a3-highgpu-1g", "us-central1", "spot").price.amount.quantize(CENT) == Decimal("3.19")


def test_a4_is_not_offered_on_demand_even_when_on_demand_skus_exist() -> None:
    # Placeholder B200/A4 prices (no such SKUs in ../shared): the purchase-model table decides, not the SKUs.
    skus = []
    for usage, prefix, gpu_text in (("OnDemand", "", ""), ("Preemptible", "Spot Preemptible ",
                                                           " attached to Spot Preemptible VMs")):
        skus += [sku(f"A4C-{usage}", f"{prefix}A4 Instance Core running in Americas", "CPU", usage,
                     ["us-central1"], "0", 30000000),
                 sku(f"A4R-{usage}", f"{prefix}A4 Instance Ram running in Americas", "RAM", usage,
                     ["us-central1"], "0", 3000000, unit="GiBy.h"),
                 sku(f"B200-{usage}", f"Nvidia B200 GPU{gpu_text} running in Americas", "GPU", usage,
                     ["us-central1"], "5", 0)]
    offers, _, _ = live([{"skus": skus}])
    assert {(o.instance_type, o.price.purchase) for o in offers} == {("a4-highgpu-8g", "spot")}
    offer = offers[0]
    assert offer.price.amount == 224 * Decimal("0.03") + 3968 * Decimal("0.003") + 8 * 5
    assert offer.instance.gpu is not None and offer.instance.gpu.name == "B200"


def test_missing_components_are_named_in_the_status() -> None:
    offers, status = replay()
    # No source prices an RTX PRO 6000 GPU: the G4 types are left out and said so (G2 and N1 + T4/V100/P100/P4 are
    # priced from vms-g2-n1.csv: tests/test_g2_n1.py).
    assert not [o for o in offers if o.instance_type.startswith("g4-")]
    text = "\n".join(status.warnings)
    assert "no GPU SKU for nvidia-rtx-pro-6000 in the price list: g4-standard-192" in text
    assert "no GPU SKU for nvidia-tesla-t4" not in text and "no G2 core SKU" not in text
    # A2 Ultra is sold in us-central1 and us-east4, but the catalog's on-demand figures there are DWS (flex-start)
    # prices (below spot; us-east4: on the same DWS scale), not on-demand ones: not offered, and counted.
    assert "no on_demand GPU price in asia-east1, europe-north1, europe-west4, us-central1, us-east4 where Google " \
           "sells a2-ultragpu-1g, a2-ultragpu-2g, a2-ultragpu-4g, a2-ultragpu-8g and 1 more: not offered there" in text
    assert status.partial_reasons[
        "machine types sold in a region without a GPU price there (not offered there)"] >= 4
    assert "exclude the bundled local SSD" in text
    # Every real GPU SKU of the recording (H100 80GB, Mega, Plus, Tesla A100, L4) maps to a family.
    assert "maps to no machine family" not in text and "disagree" not in text


def test_replay_gives_every_priced_offer() -> None:
    # Parse speed is a benchmark (bench/), not a timed unit test: on a loaded 2-core machine it took 5 s.
    offers, _ = replay()
    # 346 A2/A3/A4 + DWS flex-start a3-highgpu-8g and a3-edgegpu-8g (gpuhub_gcp.obtain) + 288 G2 + 1144 N1 with GPUs
    # (a2-ultragpu-1g/2g/4g/8g us-east4 on-demand left out: a DWS figure, plugin README)
    assert len(offers) == 1780
    assert not [o for o in offers if (o.instance_type, o.region.code, o.price.purchase) == (
        "a2-ultragpu-1g", "us-east4", "on_demand")]


def test_the_recording_keeps_the_apis_shape_and_no_key() -> None:
    recording = Path(__file__).resolve().parents[1] / "gpuhub_gcp" / "recording"
    manifest = json.loads((recording / "manifest.json").read_text())
    assert manifest["kind"] == "reconstructed" and manifest["recorded_at"] == "2026-12-01"
    assert manifest["data_date"] is None and "SkyPilot" in manifest["data_date_note"]  # dated per price
    pages = [json.loads((recording / e["response"]["body_file"]).read_text()) for e in manifest["exchanges"]]
    assert [bool(p["nextPageToken"]) for p in pages] == [True] * (len(pages) - 1) + [False]
    assert all("key=" not in e["request"]["url"] for e in manifest["exchanges"])
    skus = [s for p in pages for s in p["skus"]]
    # 767 real SKUs + 562 rebuilt from the SkyPilot catalog + 4 DWS flex-start SKUs (gpuhub_gcp.obtain)
    assert len(skus) == 767 + 562 + 4
    # Rebuilt SKUs say so: made-up ids, and the catalog's date (CATALOG_DATE, evidence in the plugin README).
    made = [s for s in skus if s["skuId"].startswith("gpuhub-")]
    assert len(made) == 562 and {s["pricingInfo"][0]["effectiveTime"] for s in made} == {"2025-08-15T00:00:00Z"}
    assert sum(f.stat().st_size for f in recording.glob("*.json")) < 1_100_000


def test_recorded_skus_match_the_real_sample() -> None:
    real = {s["skuId"]: s for s in json.loads(need(BIG).read_text())}
    recording = Path(__file__).resolve().parents[1] / "gpuhub_gcp" / "recording"
    for page in sorted(recording.glob("skus-page-*.json")):
        for item in json.loads(page.read_text())["skus"]:
            if item["skuId"] in real:
                assert item == real[item["skuId"]]


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("GPUHUB_STORE", str(tmp_path / "store"))  # a fresh store: no snapshot of another run
    monkeypatch.setenv("GPUHUB_CACHE_DIR", str(tmp_path / "cache"))
    reset_state()
    yield
    reset_state()


def test_cli_json_shows_the_a3_facts(cli_env: None) -> None:
    result = run_cli(["search", "-v", "--provider", "gcp", "--region", "us-central1", "--gpu", "H100",
                                      "--min-gpus", "8", "--format", "json", "--limit", "1000"])
    assert result.exit_code == 0, result.output
    rows = {(r["instance_type"], r["purchase"]): r for r in json.loads(result.stdout)}
    row = rows[("a3-highgpu-8g", "on_demand")]
    assert round(row["price_per_hour"], 6) == 87.832466 and row["currency"] == "USD"
    assert (row["vcpus"], row["memory_gib"], row["gpu_count"], row["gpu_memory_gib"]) == (208, 1872, 8, 80)
    spot = rows[("a3-highgpu-8g", "spot")]
    assert round(spot["price_per_hour"], 2) == 25.55 and spot["data_date"] == "2025-08-15"
    assert "gcp: ok" in result.stderr


# --- the real samples in ../shared ----------------------------------------------------------------------------
def test_a2_highgpu_1g_from_the_real_2023_page() -> None:
    page = json.loads(need(PAGE_2023).read_text())
    offers, status, transport = live([page, {"skus": [], "nextPageToken": ""}])
    assert status.state == "ok", status.line()
    offer = find(offers, "a2-highgpu-1g", "us-central1", "on_demand")
    assert offer.price.amount == Decimal("3.673385")
    assert (offer.instance.vcpus, offer.instance.memory_gib, offer.instance.gpu_count) == (12, 85, 1)
    assert offer.instance.gpu is not None and offer.instance.gpu.name == "A100"
    assert offer.instance.gpu.memory_gib == 40
    assert {o.region.code for o in offers if o.instance_type == "a2-highgpu-1g"} == {
        "us-central1", "us-east1", "us-west1"}
    assert parse_qs(urlsplit(str(transport.requests[1].url)).query)["pageToken"] == [page["nextPageToken"]]


def test_a2_machine_type_matches_the_real_machine_type_resource() -> None:
    resources = {r["name"]: r for r in json.loads(need(MACHINE_TYPE_SAMPLE).read_text())}
    a2 = resources["a2-highgpu-1g"]
    offers, _, _ = live([json.loads(need(PAGE_2023).read_text()), {"skus": []}])
    inst = find(offers, "a2-highgpu-1g", "us-central1", "on_demand").instance
    assert inst.vcpus == a2["guestCpus"] and inst.memory_gib == a2["memoryMb"] / 1024
    assert inst.gpu is not None and inst.gpu.raw_name == a2["accelerators"][0]["guestAcceleratorType"]


def test_mixed_11_sample() -> None:
    skus = json.loads(need(MIXED_11).read_text())
    offers, status, _ = live([{"skus": skus, "nextPageToken": ""}])
    assert status.skipped_records == 0, status.skipped_reasons
    # Only spot A3Plus host + "H100 80GB Plus" spot GPU are complete in us-central1/us-east1/us-west1.
    assert {(o.instance_type, o.price.purchase) for o in offers} == {("a3-megagpu-8g", "spot")}
    mega = find(offers, "a3-megagpu-8g", "us-central1", "spot")
    assert mega.price.amount == 208 * Decimal("0.01481") + 1872 * Decimal("0.001289") + 8 * Decimal("4.1377")
    text = "\n".join(status.warnings)
    # The L4 spot SKU (Hong Kong, 0.2350321 per GPU-hour) is there but the zone table sells no G2 in asia-east2.
    assert not [o for o in offers if o.instance_type.startswith("g2-")]
    # The Commit3Yr "H100 80GB Plus" SKU (4.498983869) has no A3Plus commitment host SKUs in this file; of its
    # regions, A3 Mega is sold in us-central1 and us-west1 only (zone table), so us-east1 is not even tried.
    assert "no A3Plus core SKU for reserved_3y in us-central1, us-west1:" in text
    assert "no A2 core SKU for on_demand" in text


# --- known fault C11: a GPU price only under a multi-region SKU; the type vanished from a region ---------------
C11_INPUT = {"skus": [{"skuId": "DDDD-EEEE-FFFF",
                       "description": "Nvidia H100 80GB Mega GPU running in Americas",
                       "category": {"resourceGroup": "GPU", "usageType": "OnDemand"},
                       "serviceRegions": ["us-central1", "us-east4", "us-east5"],
                       "pricingInfo": [{"pricingExpression": {"usageUnit": "h", "tieredRates": [
                           {"startUsageAmount": 0,
                            "unitPrice": {"currencyCode": "USD", "units": "11", "nanos": 60000000}}]}}]}]}
# Real 2024-09-16 A3Plus on-demand host SKUs for the Americas multi-region and us-east4.
A3PLUS_HOST = [
    sku("219A-D213-4889", "A3Plus Instance Core running in Americas", "CPU", "OnDemand",
        ["us-central1", "us-east1", "us-west1"], "0", 26923597),
    sku("4DA1-178C-94E8", "A3Plus Instance Ram running in Americas", "RAM", "OnDemand",
        ["us-central1", "us-east1", "us-west1"], "0", 2344479, unit="GiBy.h"),
]


def test_c11_multi_region_gpu_sku_prices_a3_megagpu_8g_in_us_central1() -> None:
    offers, status, _ = live([{"skus": [*C11_INPUT["skus"], *A3PLUS_HOST], "nextPageToken": ""}])
    offer = find(offers, "a3-megagpu-8g", "us-central1", "on_demand")
    gpu_part = 8 * Decimal("11.06")
    assert gpu_part == Decimal("88.48")
    assert offer.price.amount == gpu_part + 208 * Decimal("0.026923597") + 1872 * Decimal("0.002344479")
    assert offer.instance.gpu_count == 8 and offer.instance.gpu is not None
    # us-east4 and us-east5 have the GPU but no host SKU here: named in the status, not silently dropped.
    assert "no A3Plus core SKU for on_demand in us-east4, us-east5: a3-megagpu-8g" in "\n".join(status.warnings)
    assert "no A3Plus ram SKU for on_demand in us-east4, us-east5" in "\n".join(status.warnings)


def test_c11_gpu_component_is_11_06_per_gpu_hour_in_each_listed_region() -> None:
    index = build_index(C11_INPUT["skus"], Notes())
    for region in ("us-central1", "us-east4", "us-east5"):
        assert index.lookup(Component("gpu", "nvidia-h100-mega-80gb"), region, "on_demand") == (
            Decimal("11.06"), "USD")


def test_c11_whole_kind_regions_only_from_service_regions() -> None:
    # The description names a place ("Iowa") and geoTaxonomy lists more; only serviceRegions count.
    gpu = dict(C11_INPUT["skus"][0], description="Nvidia H100 80GB Mega GPU running in Iowa",
               serviceRegions=["us-west1"], geoTaxonomy={"type": "MULTI_REGIONAL",
                                                         "regions": ["us-central1", "us-west1"]})
    offers, _, _ = live([{"skus": [gpu, *A3PLUS_HOST]}])
    assert {(o.instance_type, o.region.code) for o in offers} == {("a3-megagpu-8g", "us-west1")}


def test_c11_whole_kind_region_specific_and_multi_region_skus_agree_or_are_reported() -> None:
    regional = dict(C11_INPUT["skus"][0], skuId="REGIONAL-1", description="Nvidia H100 80GB Mega GPU running in Iowa",
                    serviceRegions=["us-central1"])
    offers, _, _ = live([{"skus": [*C11_INPUT["skus"], regional, *A3PLUS_HOST]}])
    assert find(offers, "a3-megagpu-8g", "us-central1", "on_demand")  # same price: no conflict
    pricier = json.loads(json.dumps(regional))
    pricier["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"]["units"] = "12"
    offers, status, _ = live([{"skus": [*C11_INPUT["skus"], pricier, *A3PLUS_HOST]}])
    assert not [o for o in offers if o.region.code == "us-central1"]
    assert any("ambiguous" in w and "DDDD-EEEE-FFFF" in w and "REGIONAL-1" in w for w in status.warnings)


# --- known fault C14: spot SKUs renamed; a description-prefix matcher finds nothing ---------------------------
C14_INPUT = {"skus": [
    {"skuId": "1111-2222-3333", "description": "Nvidia L4 GPU running in Belgium",
     "category": {"resourceGroup": "GPU", "usageType": "OnDemand"}, "serviceRegions": ["europe-west1"],
     "pricingInfo": [{"pricingExpression": {"usageUnit": "h", "tieredRates": [
         {"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": "0", "nanos": 620000000}}]}}]},
    {"skuId": "4444-5555-6666", "description": "Nvidia L4 GPU attached to Spot Preemptible VMs running in Belgium",
     "category": {"resourceGroup": "GPU", "usageType": "Preemptible"}, "serviceRegions": ["europe-west1"],
     "pricingInfo": [{"pricingExpression": {"usageUnit": "h", "tieredRates": [
         {"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": "0", "nanos": 250000000}}]}}]}]}


def g2_host(usage: str, core_nanos: int, ram_nanos: int, spot_words: bool) -> list[dict[str, Any]]:
    """G2 host SKUs for europe-west1 (placeholder prices: no G2 SKU in ../shared)."""
    prefix = "Spot Preemptible " if spot_words else ""
    return [sku(f"G2C-{usage}", f"{prefix}G2 Instance Core running in Belgium", "CPU", usage, ["europe-west1"],
                "0", core_nanos),
            sku(f"G2R-{usage}", f"{prefix}G2 Instance Ram running in Belgium", "RAM", usage, ["europe-west1"],
                "0", ram_nanos, unit="GiBy.h")]


def test_c14_l4_on_demand_and_spot_per_gpu_hour() -> None:
    skus = [*C14_INPUT["skus"], *g2_host("OnDemand", 25000000, 3000000, False),
            *g2_host("Preemptible", 10000000, 1000000, True)]
    offers, status, _ = live([{"skus": skus}])
    on_demand = find(offers, "g2-standard-4", "europe-west1", "on_demand")
    spot = find(offers, "g2-standard-4", "europe-west1", "spot")
    # GPU parts: 0.62 on-demand, 0.25 spot per GPU-hour (g2-standard-4: 4 vCPUs, 16 GiB, 1 L4).
    assert on_demand.price.amount == 4 * Decimal("0.025") + 16 * Decimal("0.003") + Decimal("0.62")
    assert spot.price.amount == 4 * Decimal("0.01") + 16 * Decimal("0.001") + Decimal("0.25")
    # g2-standard-48 has 4 L4: the GPU part is 4 × the per-GPU price (C08's rule for GCP GPU SKUs).
    assert find(offers, "g2-standard-48", "europe-west1", "spot").price.amount == (
        48 * Decimal("0.01") + 192 * Decimal("0.001") + 4 * Decimal("0.25"))
    assert not status.warnings or not any("disagree" in w for w in status.warnings)


def test_c14_l4_component_prices() -> None:
    notes = Notes()
    index = build_index(C14_INPUT["skus"], notes)
    l4 = Component("gpu", "nvidia-l4")
    assert index.lookup(l4, "europe-west1", "on_demand") == (Decimal("0.62"), "USD")
    assert index.lookup(l4, "europe-west1", "spot") == (Decimal("0.25"), "USD")
    assert not notes.usage_mismatches


def test_c14_whole_kind_spot_found_whatever_the_wording() -> None:
    # Preemptible usageType with no spot words in the text; spot host SKUs without usageType (text only).
    gpu = json.loads(json.dumps(C14_INPUT["skus"][1]))
    gpu["description"] = "Nvidia L4 GPU running in Belgium"
    host = g2_host("Preemptible", 10000000, 1000000, True)
    for item in host:
        del item["category"]["usageType"]
    offers, status, _ = live([{"skus": [gpu, *host]}])
    assert find(offers, "g2-standard-4", "europe-west1", "spot").price.amount == Decimal("0.306")
    assert any("usageType and description disagree" in w and "4444-5555-6666" in w for w in status.warnings)


def test_c14_whole_kind_spot_sku_mislabelled_on_demand_is_spot_and_logged() -> None:
    # skypilot PR #8125: spot SKUs carrying usageType OnDemand. Kept (as spot), logged, not dropped.
    mislabelled = json.loads(json.dumps(C14_INPUT["skus"][1]))
    mislabelled["category"]["usageType"] = "OnDemand"
    skus = [C14_INPUT["skus"][0], mislabelled, *g2_host("OnDemand", 25000000, 3000000, False),
            *g2_host("Preemptible", 10000000, 1000000, True)]
    offers, status, _ = live([{"skus": skus}])
    assert find(offers, "g2-standard-4", "europe-west1", "on_demand").price.amount == Decimal("0.768")
    assert find(offers, "g2-standard-4", "europe-west1", "spot").price.amount == Decimal("0.306")
    assert any("taken as spot" in w for w in status.warnings)


def test_c14_whole_kind_no_spot_gpu_price_where_on_demand_exists_is_a_warning() -> None:
    offers, status, _ = live([{"skus": [C14_INPUT["skus"][0], *g2_host("OnDemand", 25000000, 3000000, False)]}])
    assert {o.price.purchase for o in offers} == {"on_demand"}
    assert any("no spot GPU price in regions that have on-demand GPU prices: europe-west1" in w
               for w in status.warnings)


# --- the walk: pagination, failures, credentials --------------------------------------------------------------
def test_walk_follows_next_page_token_and_sends_the_key_in_the_query() -> None:
    page1 = {"skus": A3PLUS_HOST, "nextPageToken": "tok-2"}
    page2 = {"skus": C11_INPUT["skus"], "nextPageToken": ""}
    offers, status, transport = live([page1, page2])
    assert status.state == "ok" and transport.calls == 2
    queries = [parse_qs(urlsplit(str(r.url)).query) for r in transport.requests]
    assert queries[0]["key"] == ["test-key-123"] and "pageToken" not in queries[0]
    assert queries[1]["pageToken"] == ["tok-2"]
    assert str(transport.requests[0].url).startswith(
        "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus?")
    assert "test-key-123" not in scrub_url(str(transport.requests[0].url))
    assert find(offers, "a3-megagpu-8g", "us-central1", "on_demand")


def test_a_failed_page_fails_the_provider_no_partial_catalog() -> None:
    offers, status, transport = live([{"skus": A3PLUS_HOST, "nextPageToken": "tok-2"}, 503])
    assert status.state == "failed" and "503" in (status.reason or "") and offers == ()
    assert transport.calls == 4  # page 1, then page 2 three times


def test_a_pagination_loop_fails() -> None:
    offers, status, _ = live([{"skus": [], "nextPageToken": "same"}])
    assert status.state == "failed" and "pagination loop" in (status.reason or "") and offers == ()


def test_the_page_cap_with_a_next_token_fails() -> None:
    pages = [{"skus": [], "nextPageToken": f"t{n}"} for n in range(MAX_PAGES + 1)]
    _offers, status, transport = live(pages)
    assert status.state == "failed" and "page cap" in (status.reason or "")
    assert transport.calls == MAX_PAGES


def test_a_page_that_is_not_a_sku_page_fails() -> None:
    _offers, status, _ = live([{"skus": "nope"}])
    assert status.state == "failed" and "not a" in (status.reason or "")


def test_missing_key_names_the_variable() -> None:
    _offers, status, transport = live([{"skus": []}], environ={})
    assert status.state == "failed" and "GOOGLE_API_KEY" in (status.reason or "") and transport.calls == 0


@pytest.mark.network
@pytest.mark.skipif(not (os.environ.get("GPUHUB_NETWORK_TESTS") == "1" and os.environ.get("GOOGLE_API_KEY")),
                    reason="needs GPUHUB_NETWORK_TESTS=1 and GOOGLE_API_KEY")
def test_live_catalog_prices_a3_highgpu_8g() -> None:
    engine = make_engine(Registry(), environ={"GOOGLE_API_KEY": os.environ["GOOGLE_API_KEY"]})
    offers, status = run_provider(engine, "gcp", mode="live")
    assert status.state == "ok", status.line()
    assert find(offers, "a3-highgpu-8g", "us-central1", "on_demand").price.amount > 10
