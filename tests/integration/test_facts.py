"""Real facts from every provider, all plugins installed, through the CLI and ``gpuhub.search()``."""

from __future__ import annotations

import csv
from decimal import Decimal
from typing import Any

import pytest

from tests.integration.conftest import PROVIDERS, SHARED, Run, search_json

# (provider, instance type, region, zone, purchase) -> (price per hour, GPU, GPUs, VRAM GiB per GPU, vCPUs, RAM GiB)
# Prices come from: CoreWeave's pricing page (2026-09-20), SkyPilot's Lambda and AWS catalogs, Google's Cloud Billing
# SKUs of 2024-09-16, Azure Retail Prices rows of 2026-08-20 (each plugin's README names the file).
FACTS: dict[tuple[str, str, str, str | None, str], tuple[float, str, int, float, float | None, float | None]] = {
    ("coreweave", "A100", "US-EAST-04", None, "on_demand"): (21.60, "A100-80GB", 8, 80.0, None, None),
    ("coreweave", "A100", "US-EAST-04", None, "spot"): (9.65, "A100-80GB", 8, 80.0, None, None),
    ("coreweave", "HGX H100", "RNO2", None, "on_demand"): (49.24, "H100", 8, 80.0, None, None),
    ("coreweave", "HGX B200", "US-WEST-01", None, "spot"): (34.11, "B200", 8, 180.0, 128, 2048.0),
    ("lambda", "gpu_8x_h100_sxm5", "us-east-1", None, "on_demand"): (23.92, "H100", 8, 80.0, 208, 1800.0),
    ("lambda", "gpu_1x_gh200", "us-east-1", None, "on_demand"): (1.49, "GH200", 1, 96.0, 64, 432.0),
    ("aws", "p5.48xlarge", "us-east-1", None, "on_demand"): (55.04, "H100", 8, 80.0, 192, 2048.0),
    ("aws", "p4de.24xlarge", "us-east-1", None, "on_demand"): (27.44705, "A100-80GB", 8, 80.0, 96, 1152.0),
    ("aws", "g6.48xlarge", "us-east-1", "use1-az1", "spot"): (2.7361, "L4", 8, 24.0, 192, 768.0),
    ("gcp", "a3-highgpu-8g", "us-central1", None, "on_demand"): (87.832465656, "H100", 8, 80.0, 208, 1872.0),
    # spot: the SkyPilot catalog's newer prices (host + GPU rows: 2.75246 + 22.8008, 0.34406 + 2.8501) replace the
    # 2024-09-16 SKUs' 48.306672 and 6.038334 (issue 26, gpuhub-gcp README); the core/RAM split rounds to nanos
    ("gcp", "a3-highgpu-8g", "us-central1", None, "spot"): (25.553259632, "H100", 8, 80.0, 208, 1872.0),
    ("gcp", "a3-highgpu-1g", "us-central1", None, "spot"): (3.194157454, "H100", 1, 80.0, 26, 234.0),
    ("azure", "Standard_ND96isr_H100_v5", "westeurope", None, "on_demand"): (127.816, "H100", 8, 80.0, 96, 1900.0),
    ("azure", "Standard_NC24ads_A100_v4", "westeurope", None, "spot"): (1.097295, "A100-80GB", 1, 80.0, 24, 220.0),
}


def _index(records: list[dict[str, Any]]) -> dict[tuple[Any, ...], dict[str, Any]]:
    return {(r["provider"], r["instance_type"], r["region"], r["zone"], r["purchase"]): r for r in records}


def test_every_plugin_is_installed_and_loaded(gpuhub_cli: Run) -> None:
    import json

    reports = {r["name"]: r for r in json.loads(gpuhub_cli("plugins", "--format", "json").stdout)}
    for name in PROVIDERS:
        assert reports[name]["status"] == "loaded" and reports[name]["providers"] == [name], reports[name]
        assert reports[name]["warnings"] == [], reports[name]  # no GPU alias conflicts between the plugins


def test_every_provider_answers(every_offer: tuple[list[dict[str, Any]], str]) -> None:
    records, stderr = every_offer
    # --provider matches the seller too: the aggregators' offers of these sellers come along, said to be resold
    assert {r["provider"] for r in records if r["via"] is None} == set(PROVIDERS)
    assert all(r["seller"] in PROVIDERS for r in records if r["via"] is not None)
    for name in PROVIDERS:
        assert f"{name}: ok" in stderr


@pytest.mark.parametrize("key", sorted(FACTS, key=str), ids=lambda k: f"{k[0]}-{k[1]}-{k[4]}")
def test_real_facts_to_the_cent(every_offer: tuple[list[dict[str, Any]], str], key: tuple[Any, ...]) -> None:
    record = _index(every_offer[0])[key]
    price, gpu, count, vram, vcpus, ram = FACTS[key]  # type: ignore[index]
    assert Decimal(str(record["price_per_hour"])) == Decimal(str(price))
    assert (record["gpu_name"], record["gpu_count"], record["gpu_memory_gib"]) == (gpu, count, vram)
    assert record["gpu_memory_total_gib"] == vram * count
    assert (record["vcpus"], record["memory_gib"]) == (vcpus, ram)
    assert record["currency"] == "USD" and record["gpu_known"] is True


def test_coreweave_a100_is_80_gb_with_every_plugin(gpuhub_cli: Run) -> None:
    records, _ = search_json(gpuhub_cli, "--gpu", "A100-80GB", "--provider", "coreweave", "--purchase", "on_demand")
    assert {r["region"] for r in records} >= {"US-EAST-04", "RNO2"} and len(records) == 14
    assert {(r["instance_type"], r["price_per_hour"], r["gpu_count"], r["gpu_memory_total_gib"]) for r in records} \
        == {("A100", 21.6, 8, 640.0)}
    none, _ = search_json(gpuhub_cli, "--gpu", "A100", "--provider", "coreweave")
    assert none == []  # never the 40 GB part


def test_a100_80gb_is_found_at_every_provider_that_sells_it(python_search: Any) -> None:
    result = python_search(gpu="A100-80GB", limit=None)
    assert {o.provider for o in result} >= {"aws", "azure", "coreweave", "lambda"}
    assert all(o.instance.gpu_memory_gib == 80.0 for o in result if not o.instance.fractional)
    coreweave = [o for o in result if o.provider == "coreweave" and o.price.purchase == "on_demand"]
    assert {o.price.amount for o in coreweave} == {Decimal("21.60")}


def test_python_search_gives_the_same_prices_as_the_cli(python_search: Any,
                                                        every_offer: tuple[list[dict[str, Any]], str]) -> None:
    def row(provider: str, itype: str, region: str, zone: str | None, purchase: str, price: float,
            gpu: str | None) -> tuple[Any, ...]:
        return (provider, itype, region, zone or "", purchase, price, gpu or "")

    cli = sorted(row(r["provider"], r["instance_type"], r["region"], r["zone"], r["purchase"], r["price_per_hour"],
                     r["gpu_name"]) for r in every_offer[0])
    result = python_search(limit=None, include_accelerators=True, provider=list(PROVIDERS))
    py = sorted(row(o.provider, o.instance_type, o.region.code, o.region.zone, o.price.purchase,
                    float(o.price.amount), o.gpu_name) for o in result)
    assert py == cli


def test_every_region_has_a_country_and_continent(every_offer: tuple[list[dict[str, Any]], str]) -> None:
    missing = sorted({(r["provider"], r["region"]) for r in every_offer[0] if not (r["country"] and r["continent"])})
    assert missing == []


def test_country_us_keeps_every_us_region(gpuhub_cli: Run, every_offer: tuple[list[dict[str, Any]], str]) -> None:
    from gpuhub.facts.regions import make_region

    assert (make_region("gcp", "us-west8").country, make_region("gcp", "us-west8").continent) == ("US",
                                                                                                  "North America")
    us, _ = search_json(gpuhub_cli, "--provider", "gcp", "--country", "US")
    gcp_us = [r for r in every_offer[0] if r["provider"] == "gcp" and r["region"].startswith("us-")]
    assert gcp_us and len(us) == len(gcp_us)


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/reference is not beside the repository")
def test_prices_agree_with_the_reference_catalogs(every_offer: tuple[list[dict[str, Any]], str]) -> None:
    offers = _index(every_offer[0])
    with (SHARED / "skypilot-catalog" / "lambda" / "vms.csv").open(newline="") as fh:
        lam = {(r["InstanceType"], r["Region"]): r["Price"] for r in csv.DictReader(fh)}
    assert Decimal(lam[("gpu_8x_h100_sxm5", "us-east-1")]) == Decimal(
        str(offers[("lambda", "gpu_8x_h100_sxm5", "us-east-1", None, "on_demand")]["price_per_hour"]))
    with (SHARED / "skypilot-catalog" / "aws" / "vms.csv").open(newline="") as fh:
        aws = {(r["InstanceType"], r["Region"]): r["Price"] for r in csv.DictReader(fh) if r["Price"]}
    for itype in ("p5.48xlarge", "p4de.24xlarge", "g6.48xlarge"):
        assert Decimal(aws[(itype, "us-east-1")]) == Decimal(
            str(offers[("aws", itype, "us-east-1", None, "on_demand")]["price_per_hour"])), itype
