"""The marketplaces and aggregators (issue 25) with every plugin installed: facts to the cent from the reference
files through the CLI and ``gpuhub.search()``, seller and source of resold offers, one machine through two channels,
and the cheapest H100s of the whole covered market."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from typing import Any

import pytest

from tests.integration.conftest import SHARED, Run, search_json

MARKET = ("runpod", "vast", "shadeform", "primeintellect")

# (provider, instance type, region, zone, purchase) -> (price per hour, GPU, GPUs, VRAM GiB per GPU, vCPUs, RAM GiB,
# seller). Sources: SkyPilot catalog v8 runpod (digest), vast, shadeform and primeintellect files (each plugin's
# README names the commit).
FACTS: dict[tuple[str, str, str, str | None, str], tuple[str, str, int, float, float, float, str]] = {
    ("runpod", "1x_A100-PCIe_SECURE", "US", None, "on_demand"): ("1.64", "A100-80GB", 1, 80.0, 8, 117, "runpod"),
    ("runpod", "1x_A100-PCIe_SECURE", "US", None, "spot"): ("0.82", "A100-80GB", 1, 80.0, 8, 117, "runpod"),
    ("runpod", "8x_H100-SXM_SECURE", "RO", None, "on_demand"): ("21.52", "H100", 8, 80.0, 160, 1000, "runpod"),
    ("vast", "1x-H200-3", "fr-france", None, "on_demand"): ("2.82", "H200", 1, 141.0, 32, 64, "vast"),
    ("vast", "2x-H200-1", "fr-france", None, "on_demand"): ("4.71", "H200", 2, 141.0, 32, 64, "vast"),
    ("shadeform", "lambdalabs_H100-sxm5", "austin-usa-1", None, "on_demand"): ("3.29", "H100", 1, 80.0, 26, 225,
                                                                               "lambda"),
    ("shadeform", "imwt_A6000x8", "kansascity-usa-2", None, "on_demand"): ("3.92", "RTXA6000", 8, 48.0, 62, 384,
                                                                           "imwt"),
    ("primeintellect", "lambdalabs__8xA100_80GB__240__1800", "US", "us-midwest-1", "on_demand"): (
        "14.32", "A100-80GB", 8, 80.0, 240, 1800, "lambda"),
    ("primeintellect", "datacrunch__1xA100_80GB__22__120__SPOT", "FI", "FIN-01", "spot"): (
        "0.53", "A100-80GB", 1, 80.0, 22, 120, "verda"),
}


@pytest.fixture(scope="module")
def market(gpuhub_cli: Run) -> tuple[list[dict[str, Any]], str]:
    return search_json(gpuhub_cli, *[arg for name in MARKET for arg in ("--provider", name)])


def _index(records: list[dict[str, Any]]) -> dict[tuple[Any, ...], dict[str, Any]]:
    return {(r["provider"], r["instance_type"], r["region"], r["zone"], r["purchase"]): r for r in records}


def test_the_market_plugins_load_and_answer(gpuhub_cli: Run, market: tuple[list[dict[str, Any]], str]) -> None:
    reports = {r["name"]: r for r in json.loads(gpuhub_cli("plugins", "--format", "json").stdout)}
    for name in MARKET:
        assert reports[name]["status"] == "loaded" and reports[name]["providers"] == [name], reports[name]
        assert f"{name}: ok" in market[1]
    assert {r["provider"] for r in market[0]} >= set(MARKET)


@pytest.mark.parametrize("key", sorted(FACTS, key=str), ids=lambda k: f"{k[0]}-{k[1]}-{k[4]}")
def test_facts_to_the_cent(market: tuple[list[dict[str, Any]], str], key: tuple[Any, ...]) -> None:
    record = _index(market[0])[key]
    price, gpu, count, vram, vcpus, ram, seller = FACTS[key]  # type: ignore[index]
    assert Decimal(str(record["price_per_hour"])) == Decimal(price)
    assert (record["gpu_name"], record["gpu_count"], record["gpu_memory_gib"]) == (gpu, count, vram)
    assert (record["vcpus"], record["memory_gib"], record["currency"]) == (vcpus, ram, "USD")
    assert record["seller"] == seller and record["via"] == (key[0] if seller != key[0] else None)


def test_vast_recording_is_a_listing_statistic(market: tuple[list[dict[str, Any]], str]) -> None:
    vast = [r for r in market[0] if r["provider"] == "vast"]
    assert len(vast) == 63 and {(r["listing_stat"], r["listing_count"]) for r in vast} == {("median", None)}
    assert all(r["listing_stat"] is None for r in market[0] if r["provider"] != "vast")


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/reference is not beside the repository")
def test_aggregated_offers_name_the_sellers_of_the_reference_files(market: tuple[list[dict[str, Any]], str]) -> None:
    with (SHARED / "skypilot-catalog" / "shadeform" / "vms.csv").open(newline="", encoding="utf-8") as fh:
        shade = {(r["InstanceType"], r["Region"]): r for r in csv.DictReader(fh)}
    got = {(r["instance_type"], r["region"]): r for r in market[0] if r["provider"] == "shadeform"}
    assert set(got) == set(shade)
    for key, row in shade.items():
        assert Decimal(str(got[key]["price_per_hour"])) == Decimal(row["Price"]), key
    assert got[("lambdalabs_H100-sxm5", "austin-usa-1")]["seller"] == "lambda"
    assert got[("verda_H100-sxm5", "helsinki-finland-1")]["seller"] == "verda"
    with (SHARED / "skypilot-catalog" / "primeintellect" / "vms.csv").open(newline="", encoding="utf-8") as fh:
        prime = {(r["InstanceType"], r["AvailabilityZone"]): r["UpstreamCloudId"] for r in csv.DictReader(fh)
                 if r["AcceleratorName"]}
    pi = {(r["instance_type"], r["zone"]): r for r in market[0] if r["provider"] == "primeintellect"}
    assert set(pi) == set(prime)
    assert all(pi[key]["seller_instance_type"] == cloud for key, cloud in prime.items())


def test_provider_lambda_shows_one_machine_through_two_channels(gpuhub_cli: Run) -> None:
    records, _ = search_json(gpuhub_cli, "--provider", "lambda", "--gpu", "A100-80GB", "--purchase", "on_demand")
    machine = [r for r in records if r["machine"] == "lambda:gpu_8x_a100_80gb_sxm4"]
    channels = {(r["provider"], r["via"]) for r in machine}
    assert channels == {("lambda", None), ("primeintellect", "primeintellect")}
    assert {Decimal(str(r["price_per_hour"])) for r in machine} == {Decimal("14.32")}
    assert all(r["seller"] == "lambda" for r in records)
    table = gpuhub_cli("search", "--provider", "lambda", "--gpu", "A100-80GB", "--purchase", "on_demand",
                       "--limit", "50")
    assert "lambda via primeintellect" in table.stdout
    assert ("lambda gpu_8x_a100_80gb_sxm4 (on_demand) is one machine through 2 channels: lambda 14.32 USD/h, "
            "lambda via primeintellect 14.32 USD/h") in table.stderr


def test_python_search_matches_seller_or_source(python_search: Any) -> None:
    resold = python_search(provider="lambda", gpu="H100", limit=None)
    sources = {o.provider for o in resold}
    assert "lambda" in sources and sources <= {"lambda", "shadeform", "primeintellect"} and len(sources) == 3
    assert all(o.seller == "lambda" for o in resold)
    [sf] = [o for o in resold if o.instance_type == "lambdalabs_H100-sxm5" and o.region.code == "austin-usa-1"]
    assert (sf.price.amount, sf.instance.channel) == (Decimal("3.29"), "lambda via shadeform")
    through = python_search(provider="shadeform", limit=None)
    assert {o.provider for o in through} == {"shadeform"} and len({o.seller for o in through}) == 18


def test_cheapest_h100_of_the_covered_market(gpuhub_cli: Run, python_search: Any) -> None:
    records, _ = search_json(gpuhub_cli, "--gpu", "H100", "--purchase", "on_demand")
    cheapest = min(Decimal(str(r["price_per_hour"])) for r in records if r["gpu_count"] == 1)
    assert cheapest < Decimal("2.49")  # below Lambda's own cheapest H100 (gpu_1x_h100_pcie)
    shown = gpuhub_cli("search", "--gpu", "H100", "--purchase", "on_demand", "--limit", "10")
    first = shown.stdout.splitlines()[2]
    assert f"{cheapest:.2f} USD" in first
    result = python_search(gpu="H100", purchase="on_demand", limit=10)
    assert result[0].price.amount == cheapest
    assert {r["provider"] for r in records} >= set(MARKET)  # every market plugin sells H100s
