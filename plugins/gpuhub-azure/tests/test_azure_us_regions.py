"""The US regions of the bundled recording (issue 13): real values of the SkyPilot Azure catalog copy in
../shared, every priced row of a known size an offer at its price, placeholder spot rows left out."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from azure_helpers import NORMALIZED, find
from gpuhub_azure.parse import size_table
from gpuhub_azure.provider import retired_sizes

US_CATALOG = NORMALIZED.parents[2] / "skypilot-catalog" / "azure" / "vms.csv"


def catalog() -> list[dict[str, str]]:
    if not US_CATALOG.is_file():
        pytest.skip("../shared/reference is absent")
    with open(US_CATALOG, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_eastus_a100_and_h100_facts(replayed: Any) -> None:
    offers, _ = replayed
    a100 = find(offers, "Standard_NC24ads_A100_v4", region="eastus")
    assert (a100.price.amount, a100.price.currency) == (Decimal("3.673"), "USD")
    assert find(offers, "Standard_NC24ads_A100_v4", "spot", region="eastus").price.amount == Decimal("0.444433")
    inst = a100.instance
    assert inst.gpu is not None
    assert (inst.gpu.name, inst.gpu_count, inst.gpu.memory_gib, inst.vcpus, inst.memory_gib) == (
        "A100-80GB", 1, 80, 24, 220)
    assert a100.region.country == "US"
    eight = find(offers, "Standard_ND96amsr_A100_v4", region="eastus")
    assert eight.price.amount == Decimal("32.77") and eight.instance.gpu_count == 8
    h100 = find(offers, "Standard_ND96isr_H100_v5", region="eastus")
    # 8 H100 (the catalog says 12; Microsoft's size table and the bundled spec table say 8).
    assert h100.price.amount == Decimal("98.32") and h100.instance.gpu_count == 8
    # Its SkyPilot SpotPrice equals Price (98.32): a placeholder, never a spot offer.
    assert not [o for o in offers if o.instance_type == "Standard_ND96isr_H100_v5" and o.region.code == "eastus"
                and o.price.purchase == "spot"]


def test_every_priced_us_row_of_a_known_size_is_an_offer_at_its_price(replayed: Any) -> None:
    offers, _ = replayed
    by_key = {(o.instance_type, o.region.code, o.price.purchase): o.price.amount for o in offers}
    known = size_table()
    checked = 0
    for row in catalog():
        size = row["InstanceType"]
        if size.endswith("_Promo") or size.lower() not in known or size.lower() in retired_sizes():
            continue  # retired sizes: test_azure_recording
        if row["Price"]:
            assert by_key[(size, row["Region"], "on_demand")] == Decimal(row["Price"]), row
            checked += 1
        if row["SpotPrice"] and row["SpotPrice"] != row["Price"]:
            assert by_key[(size, row["Region"], "spot")] == Decimal(row["SpotPrice"]), row
            checked += 1
    assert checked == 313  # rows of all 8 US regions (some twice in the catalog: merged), retired sizes apart


def test_cli_region_eastus_returns_offers(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AZURE_", "GPUHUB_"))}
    env["GPUHUB_CACHE_DIR"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-m", "gpuhub.cli", "search", "--provider", "azure", "--region", "eastus",
                           "--format", "json", "--limit", "500"], capture_output=True, text=True, env=env, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    records = json.loads(done.stdout)
    assert len(records) == 51 and {r["region"] for r in records} == {"eastus"}
    a100 = [r for r in records if r["instance_type"] == "Standard_NC96ads_A100_v4" and r["purchase"] == "on_demand"]
    assert [(r["price_per_hour"], r["gpu_count"], r["gpu_name"]) for r in a100] == [(14.692, 4, "A100-80GB")]
