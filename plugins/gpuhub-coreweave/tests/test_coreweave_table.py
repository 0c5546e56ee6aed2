"""The bundled price table: built from the real page transcription, parsed defensively, never a zero price."""

from __future__ import annotations

import copy
import csv
import json
import subprocess
import sys
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from gpuhub_coreweave.parse import (
    page_row,
    parse_money,
    parse_spot,
    read_transcription_plans,
    row_from_json,
    storage_tb_to_gib,
    table_meta,
)
from gpuhub_coreweave.provider import CoreWeave, load_table

from gpuhub.plugin import Offer, ProviderContext, ProviderError, Registry, Source

PLUGIN = Path(__file__).resolve().parents[1]
PAGE = "pricing-page-transcription.coreweave.com-pricing.2026-09-20.api-evangelist.yml"


def _ctx(registry: Registry) -> ProviderContext:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"network request {request.url}")

    return ProviderContext(CoreWeave(), httpx.Client(transport=httpx.MockTransport(refuse)), mode="replay",
                           source=Source(mode="static"), gpus=registry.gpus, environ={})


def _run(registry: Registry, table: dict[str, Any]) -> tuple[list[Offer], ProviderContext]:
    ctx = _ctx(registry)
    return list(CoreWeave().offers_from_table(ctx, table)), ctx


# --- provenance -----------------------------------------------------------------------------------------------

def test_manifest_and_table_agree() -> None:
    manifest = json.loads((PLUGIN / "gpuhub_coreweave" / "recording" / "manifest.json").read_text("utf-8"))
    table = load_table()
    assert (manifest["provider"], manifest["recorded_at"], manifest["kind"], manifest["exchanges"]) == (
        "coreweave", "2026-09-20", "static price table", [])
    meta = table_meta(table)
    assert meta.verified_at.isoformat() == "2026-09-20"
    assert (meta.source_url, meta.currency, meta.price_region) == (
        "https://www.coreweave.com/pricing", "USD", "North America")
    assert CoreWeave().fixtures_dir() == PLUGIN / "gpuhub_coreweave" / "recording"


def test_build_script_reproduces_bundled_files(shared_sample: Callable[[str], Path]) -> None:
    shared_sample(PAGE)
    done = subprocess.run([sys.executable, str(PLUGIN / "scripts" / "build_recording.py"), "--check"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_table_prices_match_the_page(shared_sample: Callable[[str], Path]) -> None:
    """Every priced GPU node on the page is in the table with the page's exact on-demand and spot text."""
    plans = read_transcription_plans(shared_sample(PAGE).read_text(encoding="utf-8"))
    rows = {r["page_name"]: r for r in load_table()["instances"]}
    b300 = rows.pop("NVIDIA GB300 NVL72 / HGX B300 (on-demand)")  # "Contact sales"; spot price kept
    assert (b300["instance_type"], b300["gpu_count"], b300["on_demand"], b300["spot"]) == ("HGX B300", 8, None,
                                                                                          "35.84")
    gpu_plans = [p for p in plans if "GPU" in p.get("included_quota", "") and p["price_text"].startswith("$")]
    assert len(gpu_plans) == len(rows) == 9
    for plan in gpu_plans:
        row = rows[plan["name"]]
        assert "$" + row["on_demand"] == plan["price_text"]
        if row["spot"] is not None:
            assert f"${row['spot']}" in plan["overage"]


def test_regions_are_the_general_access_north_america_ones(shared_reference: Path) -> None:
    with (shared_reference / "regions.csv").open(newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["provider"] == "coreweave"]
    expected = [r["region"] for r in rows if r["continent"] == "North America" and r["status"] == "general-access"]
    assert load_table()["regions"] == expected
    assert len(expected) == 14 and "US-CENTRAL-01" not in expected and "LGA1" not in expected
    assert len(rows) == 40


# --- the page's wording -----------------------------------------------------------------------------------------

def test_read_transcription_plans(shared_sample: Callable[[str], Path]) -> None:
    text = shared_sample(PAGE).read_text(encoding="utf-8")
    plans = read_transcription_plans(text)
    assert len(plans) == 25  # the file's own plan_count
    h100 = next(p for p in plans if p["name"] == "NVIDIA HGX H100 (on-demand)")
    assert (h100["price_text"], h100["included_quota"], h100["overage"]) == (
        "$49.24", "8 GPUs, 80 GB VRAM", "Spot Price: $19.71 / Hour (NA)")
    sunk = plans[-1]
    assert sunk["included_quota"] == "*Excludes CPU Resource Usage required to operate SUNK"


def test_read_transcription_quoting_and_continuations() -> None:
    text = ("note: 'a long note\n  that folds'\nplans:\n- name: 'It''s: quoted'\n  price_text: $1.50\n"
            "  overage: \"Spot $0.75/hour (NA)\"\n- name: Second\n  note: 'first line\n    second line'\n"
            "other: x\n- name: not a plan\n")
    assert read_transcription_plans(text) == [
        {"name": "It's: quoted", "price_text": "$1.50", "overage": "Spot $0.75/hour (NA)"},
        {"name": "Second", "note": "first line second line"}]


@pytest.mark.parametrize(("text", "amount"), [
    ("$49.24", Decimal("49.24")), ("$1,250", Decimal(1250)), ("$0.070/GB/mo", Decimal("0.070")),
    ("$4.00 per IP / month", Decimal("4.00")), ("Contact sales", None), ("Free", None), (None, None), ("", None),
])
def test_parse_money(text: str | None, amount: Decimal | None) -> None:
    assert parse_money(text) == amount


@pytest.mark.parametrize(("text", "spot"), [
    ("Spot Price: $34.11 / Hour (NA)", (Decimal("34.11"), "NA")),
    ("Spot $9.65/hour (NA)", (Decimal("9.65"), "NA")),
    ("Spot $3.50 (NA)", (Decimal("3.50"), "NA")),
    ("spot price $2", (Decimal(2), None)),
    ("Virtual DX: Not Available", None),
    ("Virtual DX 10G: $1,500", None),
    (None, None),
])
def test_parse_spot(text: str | None, spot: tuple[Decimal, str | None] | None) -> None:
    assert parse_spot(text) == spot


def test_page_row_leaves_out_what_is_not_a_priced_gpu_node() -> None:
    assert page_row({"name": "NVIDIA GB300 NVL72 / HGX B300 (on-demand)", "price_text": "Contact sales",
                     "overage": "HGX B300 Spot Price: $35.84 / Hour (NA)"}) is None
    assert page_row({"name": "CPU: AMD Genoa (9274F) High Performance", "price_text": "$6.42",
                     "included_quota": "96 vCPUs, 768 GB RAM", "overage": "Spot $3.50 (NA)"}) is None
    assert page_row({"name": "AI Object Storage Hot", "price_text": "$0.06/GB/mo", "unit": "GB"}) is None
    assert page_row({"name": "Odd", "price_text": "$1.00", "unit": "per month", "included_quota": "1 GPU"}) is None


def test_page_row_gb200_slice() -> None:
    row = page_row({"name": "NVIDIA GB200 NVL72 (on-demand, North America)", "price_text": "$42.00",
                    "unit": "per hour",
                    "included_quota": "4 GPUs, 186 GB VRAM, 144 vCPUs, 960 GB RAM, 30.72 TB local storage"})
    assert row is not None
    assert (row.instance_type, row.gpu, row.on_demand, row.spot, row.price_region_note) == (
        "GB200 NVL72 (4-GPU slice)", "GB200 NVL72", Decimal("42.00"), None, "North America")


def test_storage_units() -> None:
    assert storage_tb_to_gib(Decimal("30.72")) == 28610.2
    assert storage_tb_to_gib(1) == 931.3


# --- defensive parsing of the table -----------------------------------------------------------------------------

def test_bad_rows_are_skipped_and_counted(registry: Registry) -> None:
    table = copy.deepcopy(load_table())
    good = table["instances"]
    table["instances"] = [
        *good,
        {**good[2], "instance_type": "bad count", "gpu_count": "eight"},
        {**good[2], "instance_type": "float price", "on_demand": 49.24, "spot": None},
        {**good[2], "instance_type": "not a number", "on_demand": "n/a", "spot": None},
        {**good[2], "instance_type": "no gpu field", "gpu": None} | {"gpu": ""},
        "not an object",
    ]
    offers, ctx = _run(registry, table)
    assert len(offers) == 196
    assert ctx.report.skipped_total == 5
    assert any("gpu_count" in reason for reason in ctx.report.skipped)


def test_zero_price_is_never_an_offer(registry: Registry) -> None:
    table = copy.deepcopy(load_table())
    table["instances"] = [{**table["instances"][2], "on_demand": "0.00", "spot": "19.71"},
                          {**table["instances"][3], "on_demand": "0", "spot": None}]
    offers, ctx = _run(registry, table)
    assert {(o.instance_type, o.price.purchase, o.price.amount) for o in offers} == {
        ("HGX H100", "spot", Decimal("19.71"))}
    assert ctx.report.skipped_total == 3  # two zero prices, one row left without any price


def test_unknown_gpu_is_kept_and_counted(registry: Registry) -> None:
    table = copy.deepcopy(load_table())
    table["instances"] = [{**table["instances"][5], "instance_type": "HGX Z900", "gpu": "HGX Z900",
                           "gpu_memory_gb": 288.0}]
    offers, ctx = _run(registry, table)
    assert len(offers) == 14
    gpu = offers[0].instance.gpu
    assert gpu is not None and not gpu.known and gpu.name == "HGX Z900" and gpu.memory_gib == Decimal("288.0")
    assert ctx.report.unknown_gpus == {"HGX Z900": 1}  # counted once per node type


@pytest.mark.parametrize("breakage", ["no header", "bad date", "no regions", "regions not a list", "no instances"])
def test_unusable_table_is_a_provider_error(registry: Registry, breakage: str) -> None:
    table = copy.deepcopy(load_table())
    if breakage == "no header":
        del table["verified_at"]
    elif breakage == "bad date":
        table["verified_at"] = "last week"
    elif breakage == "no regions":
        table["regions"] = []
    elif breakage == "regions not a list":
        table["regions"] = "US-EAST-04"
    else:
        table["instances"] = []
    with pytest.raises(ProviderError):
        _run(registry, table)


def test_row_from_json_keeps_exact_digits() -> None:
    row = row_from_json({"instance_type": "HGX H100", "gpu": "HGX H100", "gpu_count": 8, "on_demand": "49.240",
                         "spot": "19.71"})
    assert row.prices == {"on_demand": Decimal("49.240"), "spot": Decimal("19.71")}
    assert (row.vcpus, row.ram_gb, row.cpu_arch) == (None, None, "x86_64")
    with pytest.raises(ValueError):
        row_from_json({"instance_type": "x", "gpu": "H100", "gpu_count": True})
    with pytest.raises(KeyError):
        row_from_json({"gpu": "H100", "gpu_count": 8})
