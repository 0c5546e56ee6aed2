"""Pricing rules of the Cloud Billing Catalog, one test (or more) per rule. Inputs are SKU objects in the API's
shape; where a value is a placeholder (no real SKU for it in ../shared) the test says so."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from gpuhub_gcp.machines import ACCELERATORS, MACHINE_TYPES, MachineType
from gpuhub_gcp.parse import (
    Component,
    Notes,
    PricedType,
    Unpriced,
    build_index,
    classify_purchase,
    component_of,
    price_machine_type,
    unit_price,
)


def sku(sku_id: str, description: str, group: str, usage: str | None, regions: list[str], units: str, nanos: int,
        unit: str = "h", currency: str = "USD", tiers: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A SKU object in the Catalog API's shape."""
    category: dict[str, Any] = {"serviceDisplayName": "Compute Engine", "resourceFamily": "Compute",
                                "resourceGroup": group}
    if usage is not None:
        category["usageType"] = usage
    rates = tiers or [{"startUsageAmount": 0, "unitPrice": {"currencyCode": currency, "units": units,
                                                            "nanos": nanos}}]
    return {"name": f"services/6F81-5844-456A/skus/{sku_id}", "skuId": sku_id, "description": description,
            "category": category, "serviceRegions": regions,
            "pricingInfo": [{"summary": "", "pricingExpression": {"usageUnit": unit, "tieredRates": rates},
                             "effectiveTime": "2024-09-16T12:03:12.315165Z"}]}


MACHINES = {m.name: m for m in MACHINE_TYPES}
# Real 2024-09-16 us-central1 SKUs (from the big sample): A3 core/RAM and H100, on-demand and spot.
A3_US = [
    sku("A9CB-099C-53ED", "A3 Instance Core running in Americas", "CPU", "OnDemand",
        ["us-central1", "us-east1", "us-west1"], "0", 25498003),
    sku("9633-B98B-1CFD", "A3 Instance Ram running in Americas", "RAM", "OnDemand",
        ["us-central1", "us-east1", "us-west1"], "0", 2220340, unit="GiBy.h"),
    sku("D4E2-451A-15B9", "Nvidia H100 80GB GPU running in Americas", "GPU", "OnDemand",
        ["us-central1", "us-east1", "us-west1"], "9", 796550569),
    sku("EEE5-1DA5-D9CF", "Spot Preemptible A3 Instance Core running in Americas", "CPU", "Preemptible",
        ["us-central1", "us-east1", "us-west1"], "0", 14020000),
    sku("F619-87C3-D3BA", "Spot Preemptible A3 Instance Ram running in Americas", "RAM", "Preemptible",
        ["us-central1", "us-east1", "us-west1"], "0", 1221000, unit="GiBy.h"),
    sku("H100-SPOT-US", "Nvidia H100 80GB GPU attached to Spot Preemptible VMs running in Americas", "GPU",
        "Preemptible", ["us-central1", "us-east1", "us-west1"], "5", 388100000),
]


def priced(machine: str, region: str, purchase: str, skus: list[dict[str, Any]]) -> PricedType | Unpriced:
    return price_machine_type(MACHINES[machine], region, purchase, build_index(skus, Notes()))


# --- formula: vCPUs × core + RAM GiB × RAM + GPUs × GPU, same region and purchase -----------------------------
def test_price_is_the_sum_of_components_a3_highgpu_8g() -> None:
    result = priced("a3-highgpu-8g", "us-central1", "on_demand", A3_US)
    assert isinstance(result, PricedType)
    assert result.amount == 208 * Decimal("0.025498003") + 1872 * Decimal("0.00222034") + 8 * Decimal("9.796550569")
    assert result.amount.quantize(Decimal("0.000001")) == Decimal("87.832466")
    spot = priced("a3-highgpu-8g", "us-central1", "spot", A3_US)
    assert isinstance(spot, PricedType) and spot.amount == Decimal("48.306672")


def test_components_never_mix_purchase_models() -> None:
    # Without spot core/RAM SKUs, the spot GPU alone must not make a spot price from on-demand host parts.
    skus = [s for s in A3_US if not s["description"].startswith("Spot Preemptible A3")]
    result = priced("a3-highgpu-8g", "us-central1", "spot", skus)
    assert isinstance(result, Unpriced)
    assert set(result.missing) == {Component("core", "A3"), Component("ram", "A3")}


def test_components_never_mix_regions() -> None:
    gpu_eu = sku("X1", "Nvidia H100 80GB GPU running in Belgium", "GPU", "OnDemand", ["europe-west1"], "11", 0)
    result = priced("a3-highgpu-8g", "europe-west1", "on_demand", [*A3_US, gpu_eu])
    assert isinstance(result, Unpriced) and Component("core", "A3") in result.missing


def test_memory_is_gib_from_the_apis_mib() -> None:
    # The real machineTypes resource says memoryMb 87040 (MiB) for a2-highgpu-1g: 87040 / 1024 = 85 GiB.
    assert MACHINES["a2-highgpu-1g"].memory_gib == 87040 / 1024 == 85.0
    assert MACHINES["a3-highgpu-8g"].vcpus == 208 and MACHINES["a3-highgpu-8g"].memory_gib == 1872


def test_bundled_local_ssd_is_added_from_a_monthly_sku_when_priced() -> None:
    # Placeholder SSD price (no real Local SSD SKU in ../shared): 0.08 USD per GiB-month = 0.08/730 per GiB-hour.
    ssd = sku("SSD-1", "SSD backed Local Storage", "LocalSSD", "OnDemand", ["us-central1"], "0", 80000000,
              unit="GiBy.mo")
    result = priced("a3-highgpu-8g", "us-central1", "on_demand", [*A3_US, ssd])
    assert isinstance(result, PricedType) and result.ssd_included
    assert result.amount.quantize(Decimal("0.000001")) == (
        Decimal("87.832465656") + 6000 * Decimal("0.08") / 730).quantize(Decimal("0.000001")) == Decimal("88.49")
    without = priced("a3-highgpu-8g", "us-central1", "on_demand", A3_US)
    assert isinstance(without, PricedType) and not without.ssd_included


def test_currency_comes_from_the_data_and_is_never_mixed() -> None:
    eur = [dict(s, pricingInfo=[{"pricingExpression": {
        "usageUnit": s["pricingInfo"][0]["pricingExpression"]["usageUnit"],
        "tieredRates": [{"startUsageAmount": 0, "unitPrice": dict(
            s["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"], currencyCode="EUR")}]}}])
        for s in A3_US]
    result = priced("a3-highgpu-8g", "us-central1", "on_demand", eur)
    assert isinstance(result, PricedType) and result.currency == "EUR"
    mixed = [*eur[:2], A3_US[2]]
    assert isinstance(priced("a3-highgpu-8g", "us-central1", "on_demand", mixed), Unpriced)


# --- unit price: units (int64 string) + nanos / 1e9, the applicable tier, latest pricingInfo ------------------
def test_unit_price_is_units_plus_nanos() -> None:
    assert unit_price(A3_US[2]) == (Decimal("9.796550569"), "USD", "h")
    assert unit_price(sku("Y", "x", "GPU", "OnDemand", ["r"], "12", 5)) == (Decimal("12.000000005"), "USD", "h")


def test_unit_price_takes_the_last_tier_and_the_latest_pricing_info() -> None:
    tiers = [{"startUsageAmount": 1, "unitPrice": {"currencyCode": "USD", "units": "0", "nanos": 100000000}},
             {"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": "0", "nanos": 0}}]
    assert unit_price(sku("T", "x", "GPU", "OnDemand", ["r"], "0", 0, tiers=tiers))[0] == Decimal("0.1")
    item = sku("T", "x", "GPU", "OnDemand", ["r"], "2", 0)
    item["pricingInfo"].append({"pricingExpression": {"usageUnit": "h", "tieredRates": [
        {"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": "3", "nanos": 0}}]},
        "effectiveTime": "2025-01-01T00:00:00Z"})
    assert unit_price(item)[0] == Decimal(3)


@pytest.mark.parametrize("units, nanos", [("1.5", 0), ("x", 0), ("1", "5"), ("1", 10**9), (None, 0)])
def test_malformed_unit_prices_are_rejected(units: Any, nanos: Any) -> None:
    with pytest.raises((ValueError, TypeError)):
        unit_price(sku("M", "x", "GPU", "OnDemand", ["r"], units, nanos))


def test_malformed_and_zero_skus_are_skipped_and_counted() -> None:
    notes = Notes()
    bad_units = sku("B1", "Nvidia H100 80GB GPU running in Iowa", "GPU", "OnDemand", ["us-central1"], "abc", 0)
    no_regions = sku("B2", "Nvidia H100 80GB GPU running in Iowa", "GPU", "OnDemand", [], "1", 0)
    zero = sku("B3", "Nvidia H100 80GB GPU running in Iowa", "GPU", "OnDemand", ["us-central1"], "0", 0)
    no_pricing = {"skuId": "B4", "description": "A3 Instance Core running in Iowa", "category": {
        "resourceGroup": "CPU", "usageType": "OnDemand"}, "serviceRegions": ["us-central1"]}
    index = build_index([bad_units, no_regions, zero, no_pricing, "not a sku", *A3_US], notes)
    assert sum(notes.skipped.values()) == 5
    assert notes.skipped["SKU with a zero price (placeholder)"] == 1
    assert index.skus == len(A3_US)


# --- regions from serviceRegions ------------------------------------------------------------------------------
def test_regions_come_from_service_regions_and_each_is_priced() -> None:
    for region in ("us-central1", "us-east1", "us-west1"):
        result = priced("a3-highgpu-8g", region, "on_demand", A3_US)
        assert isinstance(result, PricedType) and result.amount == Decimal("87.832465656")


def test_description_place_and_geo_taxonomy_do_not_add_regions() -> None:
    gpu = dict(A3_US[2], geoTaxonomy={"type": "MULTI_REGIONAL", "regions": ["us-central1", "us-central2"]})
    index = build_index([*A3_US[:2], gpu], Notes())
    assert index.regions[(Component("gpu", "nvidia-h100-80gb"), "on_demand")] == {
        "us-central1", "us-east1", "us-west1"}


# --- usage types ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("usage, description, expected", [
    ("OnDemand", "Nvidia H100 80GB GPU running in Virginia", "on_demand"),
    ("Preemptible", "Nvidia H100 80GB GPU attached to Spot Preemptible VMs running in Belgium", "spot"),
    ("Preemptible", "Spot Preemptible A3 Instance Core running in Americas", "spot"),
    ("Commit1Yr", "Commitment v1: A3 Cpu in Toronto for 1 Year", "reserved_1y"),
    ("Commit3Yr", "Commitment v1: Nvidia H100 80GB GPU running in Paris for 3 Years", "reserved_3y"),
    (None, "Preemptible Nvidia Tesla T4 GPU running in Iowa", "spot"),
    (None, "SPOT a3 instance core running in Iowa", "spot"),
    (None, "Commitment v1: A3 Ram in Iowa for 3 Years", "reserved_3y"),
    (None, "A3 Instance Core running in Iowa", "on_demand"),
])
def test_usage_types_map_to_purchase_models(usage: str | None, description: str, expected: str) -> None:
    assert classify_purchase(usage, description) == (expected, None)


def test_other_usage_types_are_ignored() -> None:
    assert classify_purchase("CmtCudPremium", "Committed Use Discount Premium for G2 Custom Instance Core") == (
        None, None)


# --- GPU SKU names map to machine families explicitly ---------------------------------------------------------
@pytest.mark.parametrize("description, accelerator", [
    ("Nvidia Tesla A100 GPU running in Americas", "nvidia-tesla-a100"),
    ("Nvidia A100 80GB GPU running in Americas", "nvidia-a100-80gb"),
    ("Nvidia H100 80GB GPU running in Virginia", "nvidia-h100-80gb"),
    ("Nvidia H100 80GB Mega GPU running in Sydney", "nvidia-h100-mega-80gb"),
    ("Nvidia H100 80GB Plus GPU attached to Spot Preemptible VMs running in Americas", "nvidia-h100-mega-80gb"),
    ("Commitment v1: Nvidia H100 80GB Plus GPU running in Americas for 3 Years", "nvidia-h100-mega-80gb"),
    ("Nvidia L4 GPU attached to Spot Preemptible VMs running in Hong Kong", "nvidia-l4"),
    ("Nvidia Tesla T4 GPU running in Iowa", "nvidia-tesla-t4"),
])
def test_gpu_skus_map_to_accelerator_types(description: str, accelerator: str) -> None:
    assert component_of(sku("G", description, "GPU", "OnDemand", ["r"], "1", 0)) == Component("gpu", accelerator)


def test_a100_40_and_80_gb_families_are_distinct() -> None:
    ultra, high = MACHINES["a2-ultragpu-1g"], MACHINES["a2-highgpu-1g"]
    assert (ultra.accelerator, ACCELERATORS[ultra.accelerator].memory_gib) == ("nvidia-a100-80gb", 80)
    assert (high.accelerator, ACCELERATORS[high.accelerator].memory_gib) == ("nvidia-tesla-a100", 40)
    assert MACHINES["a3-megagpu-8g"].accelerator == "nvidia-h100-mega-80gb"
    assert MACHINES["a3-highgpu-8g"].accelerator == MACHINES["a3-edgegpu-8g"].accelerator == "nvidia-h100-80gb"


@pytest.mark.parametrize("description", ["Nvidia A100 GPU running in Iowa", "Nvidia H100 GPU running in Iowa",
                                         "Nvidia H100 80GB Ultra GPU running in Iowa"])
def test_unmatched_gpu_models_are_reported_not_guessed(description: str) -> None:
    notes = Notes()
    assert component_of(sku("U", description, "GPU", "OnDemand", ["r"], "1", 0), notes) is None
    assert sum(notes.unmatched_gpus.values()) == 1


def test_conflicting_prices_for_one_component_are_ambiguous() -> None:
    other = sku("Z9", "Nvidia H100 80GB GPU running in Iowa", "GPU", "OnDemand", ["us-central1"], "12", 0)
    result = priced("a3-highgpu-8g", "us-central1", "on_demand", [*A3_US, other])
    assert isinstance(result, Unpriced) and result.ambiguous
    assert "D4E2-451A-15B9" in result.ambiguous[0] and "Z9" in result.ambiguous[0]
    # The same price from two SKUs is not a conflict.
    same = dict(other, pricingInfo=A3_US[2]["pricingInfo"])
    assert isinstance(priced("a3-highgpu-8g", "us-central1", "on_demand", [*A3_US, same]), PricedType)


def test_core_and_ram_skus_name_their_family() -> None:
    def comp(description: str, group: str = "CPU") -> Component | None:
        return component_of(sku("C", description, group, "OnDemand", ["r"], "1", 0))

    assert comp("A3Plus Instance Core running in Americas") == Component("core", "A3Plus")
    assert comp("Spot Preemptible A3 Instance Ram running in Americas", "RAM") == Component("ram", "A3")
    assert comp("Commitment v1: A3 Cpu in Toronto for 1 Year") == Component("core", "A3")
    assert comp("N1 Predefined Instance Core running in Zurich", "N1Standard") == Component("core", "N1")
    assert comp("G2 Custom Instance Core running in Iowa") is None
    assert comp("Network Inter Region Data Transfer Out from Americas to Melbourne", "InterregionEgress") is None


# --- purchase models GCP does not sell ------------------------------------------------------------------------
def test_machine_types_not_sold_on_demand_are_not_offered_on_demand() -> None:
    assert "on_demand" not in MACHINES["a4-highgpu-8g"].purchases
    assert "on_demand" not in MACHINES["a3-ultragpu-8g"].purchases
    assert MACHINES["a3-highgpu-1g"].purchases == {"spot"}
    assert MACHINES["a3-highgpu-8g"].purchases == {"on_demand", "spot", "reserved_1y", "reserved_3y"}


# --- N1 with attachable GPUs ----------------------------------------------------------------------------------
def test_n1_gpu_combinations_follow_gcp_limits() -> None:
    n1 = [m for m in MACHINE_TYPES if m.family == "N1"]
    t4 = {(m.vcpus, m.gpu_count) for m in n1 if m.accelerator == "nvidia-tesla-t4"}
    assert {(8, 1), (8, 2), (8, 4), (96, 4)} <= t4
    assert not any(count == 8 for _, count in t4)  # at most 4 T4 per VM
    assert (64, 1) not in t4  # 1 T4 allows at most 48 vCPUs
    v100 = {(m.vcpus, m.gpu_count) for m in n1 if m.accelerator == "nvidia-tesla-v100"}
    assert (8, 1) in v100 and (16, 1) not in v100 and (96, 8) in v100
    n1_8_t4_2 = MACHINES["n1-standard-8+nvidia-tesla-t4x2"]
    assert (n1_8_t4_2.vcpus, n1_8_t4_2.memory_gib, n1_8_t4_2.gpu_count) == (8, 30.0, 2)


def test_n1_price_adds_attached_gpus_to_n1_core_and_ram() -> None:
    # Real N1 us-central1 core/RAM would do; these are placeholders, as is the T4 price (no T4 SKU in ../shared).
    skus = [sku("N1C", "N1 Predefined Instance Core running in Americas", "N1Standard", "OnDemand",
                ["us-central1"], "0", 31611000),
            sku("N1R", "N1 Predefined Instance Ram running in Americas", "N1Standard", "OnDemand",
                ["us-central1"], "0", 4237000, unit="GiBy.h"),
            sku("T4", "Nvidia Tesla T4 GPU running in Americas", "GPU", "OnDemand", ["us-central1"], "0", 350000000)]
    result = priced("n1-standard-8+nvidia-tesla-t4x2", "us-central1", "on_demand", skus)
    assert isinstance(result, PricedType)
    assert result.amount == 8 * Decimal("0.031611") + 30 * Decimal("0.004237") + 2 * Decimal("0.35") == Decimal(
        "1.079998")


def test_every_machine_type_uses_a_known_accelerator() -> None:
    assert all(isinstance(m, MachineType) and m.accelerator in ACCELERATORS for m in MACHINE_TYPES)
    assert len({m.name for m in MACHINE_TYPES}) == len(MACHINE_TYPES)


def test_mega_and_plus_skus_with_different_prices_in_one_region_are_ambiguous() -> None:
    mega = sku("M1", "Nvidia H100 80GB Mega GPU running in Iowa", "GPU", "OnDemand", ["us-central1"], "10", 344280000)
    plus = sku("P1", "Nvidia H100 80GB Plus GPU running in Americas", "GPU", "OnDemand", ["us-central1"], "11", 0)
    host = [sku("C", "A3Plus Instance Core running in Americas", "CPU", "OnDemand", ["us-central1"], "0", 26923597),
            sku("R", "A3Plus Instance Ram running in Americas", "RAM", "OnDemand", ["us-central1"], "0", 2344479,
                unit="GiBy.h")]
    result = priced("a3-megagpu-8g", "us-central1", "on_demand", [mega, plus, *host])
    assert isinstance(result, Unpriced) and "M1" in result.ambiguous[0] and "P1" in result.ambiguous[0]
    alone = priced("a3-megagpu-8g", "us-central1", "on_demand", [mega, *host])
    assert isinstance(alone, PricedType) and alone.amount == Decimal("92.74317856") + 8 * Decimal("0.000004288")


def test_virtual_workstation_gpu_skus_are_not_gpu_prices() -> None:
    notes = Notes()
    item = sku("VW", "Nvidia Tesla T4 Virtual Workstation GPU running in Iowa", "GPU", "OnDemand", ["r"], "0", 1)
    assert component_of(item, notes) is None and not notes.unmatched_gpus


def test_the_newest_dated_sku_wins_and_the_offer_says_what_it_replaced() -> None:
    # Issue 26: a newer (2025-08-15) spot H100 SKU for us-central1 beside the real 2024-09-16 one.
    newer = sku("gpuhub-h100-spot", "Nvidia H100 80GB GPU attached to Spot Preemptible VMs running in us-central1",
                "GPU", "Preemptible", ["us-central1"], "2", 850100000)
    newer["pricingInfo"][0]["effectiveTime"] = "2025-08-15T00:00:00Z"
    result = priced("a3-highgpu-8g", "us-central1", "spot", [*A3_US, newer])
    assert isinstance(result, PricedType)
    assert result.amount == 208 * Decimal("0.01402") + 1872 * Decimal("0.001221") + 8 * Decimal("2.8501")
    assert result.data_date == dt.date(2024, 9, 16)  # the oldest of its parts: the host SKUs are of 2024
    assert result.origin == "Cloud Billing SKUs + SkyPilot GCP catalog v8 @8427bbf"
    assert result.replaced is not None and Decimal(result.replaced.split()[0]) == Decimal("48.306672")
    assert " USD of 2024-09-16 (Cloud Billing SKUs; GPU nvidia-h100-80gb 5.3881 USD of 2024-09-16" in result.replaced
    # Two different prices of one date are never guessed between.
    same_day = dict(newer, skuId="other")
    same_day["pricingInfo"] = [dict(newer["pricingInfo"][0], effectiveTime="2024-09-16T00:00:00Z")]
    assert isinstance(priced("a3-highgpu-8g", "us-central1", "spot", [*A3_US, same_day]), Unpriced)
