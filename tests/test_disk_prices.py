"""Attached-disk prices (issue 28): gpuhub/data/disk.csv read by gpuhub.facts.disk, each figure checked against the
source its row names (AWS's Price List excerpt in the shared reference, RunPod's and Hyperstack's pricing pages,
CoreWeave's pricing page transcription)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from gpuhub.facts.disk import GB_PER_GIB, disk_cost, disk_price
from gpuhub.facts.egress import egress_price

REFERENCE = next((p / "shared" / "reference" / "provider-samples" for p in Path(__file__).resolve().parents
                  if (p / "shared" / "reference").is_dir()), Path("/nonexistent"))
"""The shared reference beside the checkout (``../shared``; from a worktree, further up)."""


def test_aws_gp3_price_is_the_price_list_figure() -> None:
    sample = REFERENCE / "aws" / "price-list-bulk.AmazonEC2.us-east-2.excerpt.opencost-test.json"
    if not sample.is_file():
        pytest.skip("shared reference not present")
    data = json.loads(sample.read_text())
    [term] = data["terms"]["OnDemand"]["M6UGCCQ3CDJQAA37"].values()
    [dimension] = term["priceDimensions"].values()
    assert dimension["unit"] == "GB-Mo"
    price = disk_price("aws", "us-east-2")
    assert price is not None and price.price == Decimal(dimension["pricePerUnit"]["USD"]) == Decimal("0.08")
    assert (price.unit, price.period, price.date) == ("GB", "month", term["effectiveDate"][:10])


def test_region_rows_and_provider_rows() -> None:
    assert disk_price("aws", "us-east-1") is None  # no sourced row: unknown, never the us-east-2 figure
    runpod = disk_price("runpod", "EU-RO-1")
    assert runpod is not None and (runpod.region, runpod.price, runpod.period) == ("*", Decimal("0.10"), "month")
    hyperstack = disk_price("hyperstack", "CANADA-1")
    assert hyperstack is not None and (hyperstack.price, hyperstack.period) == (Decimal("0.000096774"), "hour")
    assert disk_price("lambda", "us-east-1") is None


def test_disk_cost_arithmetic_to_the_cent() -> None:
    monthly = disk_cost("coreweave", "RNO2", 730, Decimal(730))  # 730 GiB for a whole month
    assert monthly is not None and monthly.cost == 730 * GB_PER_GIB * Decimal("0.07")
    assert round(monthly.cost, 2) == Decimal("54.87")
    hourly = disk_cost("hyperstack", "NORWAY-1", 500, Decimal(24))
    assert hourly is not None and hourly.cost == 500 * GB_PER_GIB * Decimal("0.000096774") * 24
    assert hourly.note.endswith("= 1.25 USD (Cloud-SSD volume, hyperstack, Hyperstack GPU pricing page, 2026-08-26)")
    empty = disk_cost("runpod", "CA", 0, Decimal(10))
    assert empty is not None and empty.cost == 0


@pytest.mark.parametrize("provider", ["lambda", "runpod", "hyperstack", "coreweave", "nebius"])
def test_neoclouds_egress_is_free_with_a_source(provider: str) -> None:
    price = egress_price(provider, "any-region")
    assert price is not None and price.price_per_gb == 0 and price.free_gb_per_month is None
    assert price.label and ("http" in price.source or "page" in price.source)


def test_per_gib_rows_of_gcp_and_nebius() -> None:
    """GCP and Nebius publish per GiB (2^30 bytes): no GB conversion. GCP's row is us-central1's (0.17, pd-ssd,
    the same in Google's disk pricing page example and a Pricing Calculator estimate for Iowa); other GCP regions
    have none. Nebius's erasure-coded block volume (its Network SSD) is 0.071 for every region."""
    gcp = disk_price("gcp", "us-central1")
    assert gcp is not None and (gcp.price, gcp.unit, gcp.period, gcp.date) == (Decimal("0.17"), "GiB", "month",
                                                                               "2023-05-18")
    assert disk_price("gcp", "europe-west4") is None
    nebius = disk_cost("nebius", "eu-north1", 730, Decimal(730))
    assert nebius is not None and nebius.cost == 730 * Decimal("0.071")  # 51.83 for 730 GiB over a month
    mithril = disk_price("mithril", "us-central2-a")
    assert mithril is not None and (mithril.price, mithril.unit) == (Decimal("0.08"), "GB")

