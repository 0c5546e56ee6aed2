"""Each parsing rule of issue 4, on single Retail Prices items (pure functions, no HTTP).

Prices in synthetic items are test values unless a comment names the real row they come from.
"""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal

import pytest
from azure_helpers import item
from gpuhub_azure.parse import (
    PriceRow,
    classify_item,
    family_gpu,
    is_windows,
    page_items,
    purchase_of,
    resource_sku_capabilities,
    select_prices,
    size_table,
)


def rows_of(raw: dict, **kwargs: object) -> list[PriceRow]:
    result = classify_item(raw, **kwargs)  # type: ignore[arg-type]
    assert isinstance(result, list), result
    return result


def reason_of(raw: dict, **kwargs: object) -> str:
    result = classify_item(raw, **kwargs)  # type: ignore[arg-type]
    assert isinstance(result, str), result
    return result


# --- armSkuName is the key ---------------------------------------------------------------------------------------

def test_arm_sku_name_is_the_size_even_when_meter_and_sku_names_differ() -> None:
    # westeurope 2026-08: meter "ND96amsA100v4" (no r) belongs to Standard_ND96amsr_A100_v4 at 40.962.
    [row] = rows_of(item("Standard_ND96amsr_A100_v4", 40.962, meter="ND96amsA100v4", sku="ND96amsA100v4"))
    assert row.arm_sku_name == "Standard_ND96amsr_A100_v4"
    # meter "ND96asr_A100_v4" names the GPU; the ARM size is Standard_ND96asr_v4 (35.357).
    [row] = rows_of(item("Standard_ND96asr_v4", 35.357, meter="ND96asr_A100_v4"))
    assert row.arm_sku_name == "Standard_ND96asr_v4"


def test_missing_or_empty_arm_sku_name() -> None:
    raw = item("Standard_NC6s_v3", 3.06)
    del raw["armSkuName"]
    with pytest.raises(KeyError):
        classify_item(raw)
    assert reason_of(item("", 0.0072, product="Azure Front Door", serviceName="Azure Front Door Service")) \
        == "not a VM price (serviceName 'Azure Front Door Service')"
    assert reason_of(item("", 1.0)) == "no armSkuName (not a VM size)"


# --- Linux only -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("product", "windows"), [
    ("Virtual Machines NDsr H100 v5 Series", False),
    ("Virtual Machines NDsr H100 v5 Series Windows", True),
    ("Virtual Machines NDamsr A100 v4 Series Linux", False),
    ("Virtual Machines NCCadsv5 Srs", False),
    ("Virtual Machines NCCadsv5 Srs Win", True),
    ("ECasv5-series Windows", True),
    ("Lasv3 Series Windows", True),
    ("NCads A100 v4 Series Linux", False),
    ("Virtual Machines NCads H100 v5 Series Win", True),
    ("Virtual Machines NV Series Winter Edition", False),
])
def test_windows_product_names(product: str, windows: bool) -> None:
    assert is_windows(product) is windows


def test_windows_rows_are_skipped() -> None:
    # westeurope 2026-08: NCC40adsH100v5 Linux 8.9, "Srs Win" 10.74.
    assert reason_of(item("Standard_NCC40ads_H100_v5", 10.74, product="Virtual Machines NCCadsv5 Srs Win")) \
        == "Windows price (Linux only)"
    [row] = rows_of(item("Standard_NCC40ads_H100_v5", 8.9, product="Virtual Machines NCCadsv5 Srs"))
    assert row.amount == Decimal("8.9")


def test_devtest_dedicated_host_cloud_services_promo_and_expired_are_not_offers() -> None:
    assert reason_of(item("Standard_NC12s_v3", 7.646, kind="DevTestConsumption",
                          product="Virtual Machines NCSv3 Series")) == "Dev/Test price (DevTestConsumption)"
    assert reason_of(item("NDamsrA100v4_Type1", 50.0, product="NDamsr A100 v4 Series Dedicated Host")) \
        == "Dedicated Host price (not a VM size)"
    assert reason_of(item("Standard_NC4as_T4_v3", 0.612, product="Cloud Services NCasT4_v3 Series")) \
        == "Cloud Services price (not a VM)"
    assert reason_of(item("Standard_NC6_Promo", 1.0, product="Virtual Machines NC Promo Series")) == "promo SKU"
    assert reason_of(item("Standard_D14_v2_Promo", 1.0)) == "promo SKU"
    assert reason_of(item("Standard_NC6s_v3", 3.0, meter="NC6s v3 - Expired")) == "expired meter"
    ending = item("Standard_NC6s_v3", 3.0, effectiveEndDate="2022-06-30T23:59:00Z")
    assert reason_of(ending, today=dt.date(2022, 7, 1)) == "expired meter"
    assert rows_of(ending, today=dt.date(2022, 6, 30))[0].amount == Decimal("3.0")


def test_only_hourly_vm_rows() -> None:
    assert reason_of(item("Standard_NC6s_v3", 3.0, unitOfMeasure="1/Month")) \
        == "not an hourly price (unitOfMeasure '1/Month')"
    assert reason_of(item("Standard_NC6s_v3", 3.0, kind="Purchase")) == "unknown price type 'Purchase'"


# --- Spot and Low Priority ------------------------------------------------------------------------------------------

def test_spot_and_low_priority_suffixes() -> None:
    # westeurope 2026-08, Standard_ND96isr_H100_v5: on-demand 127.816, Spot 23.620397, Low Priority 25.563.
    rows = [item("Standard_ND96isr_H100_v5", 127.816, meter="ND96isrH100v5"),
            item("Standard_ND96isr_H100_v5", 23.620397, meter="ND96isrH100v5 Spot"),
            item("Standard_ND96isr_H100_v5", 25.563, meter="ND96isrH100v5 Low Priority")]
    assert [purchase_of(r) for r in rows] == ["on_demand", "spot", "low_priority"]
    # The mark may sit on skuName only ("Standard_NC24ads_A100_v4 Spot" with meter "NC24ads_A100_v4 Spot").
    assert purchase_of({"meterName": "NC24ads_A100_v4", "skuName": "Standard_NC24ads_A100_v4 Spot"}) == "spot"
    with pytest.raises(ValueError, match="disagree"):
        purchase_of({"meterName": "X Spot", "skuName": "X Low Priority"})


def test_purchase_models_never_mix_whatever_the_row_order() -> None:
    rows = [item("Standard_ND96isr_H100_v5", 127.816, meter="ND96isrH100v5"),
            item("Standard_ND96isr_H100_v5", 23.620397, meter="ND96isrH100v5 Spot"),
            item("Standard_ND96isr_H100_v5", 25.563, meter="ND96isrH100v5 Low Priority")]
    expected = {"on_demand": Decimal("127.816"), "spot": Decimal("23.620397"), "low_priority": Decimal("25.563")}
    for seed in range(6):
        random.Random(seed).shuffle(rows)
        chosen = select_prices(r for raw in rows for r in rows_of(raw)).rows
        assert {k[2]: v.amount for k, v in chosen.items()} == expected


# --- reservations and savings plans -----------------------------------------------------------------------------------

def test_reservation_total_becomes_per_hour_and_keeps_the_term() -> None:
    # Real 2022 rows: Standard_D5_v2 westus2 reservation 1 Year 4344, 3 Years 8448 (PAYG 0.916).
    [one] = rows_of(item("Standard_D5_v2", 4344, kind="Reservation", reservationTerm="1 Year"))
    [three] = rows_of(item("Standard_D5_v2", 8448, kind="Reservation", reservationTerm="3 Years"))
    assert (one.purchase, one.term_hours) == ("reserved_1y", 8760)
    assert (three.purchase, three.term_hours) == ("reserved_3y", 26280)
    assert round(one.amount, 6) == Decimal("0.495890")
    assert round(three.amount, 6) == Decimal("0.321461")
    assert one.amount * 8760 == Decimal(4344)
    assert reason_of(item("Standard_D5_v2", 1, kind="Reservation", reservationTerm="5 Years")) \
        == "unknown reservation term '5 Years'"


def test_savings_plans_are_hourly_and_only_on_on_demand_rows() -> None:
    # westeurope 2026-08: Standard_NC24ads_A100_v4 4.775, savings plan 1 year 3.97471.
    raw = item("Standard_NC24ads_A100_v4", 4.775, savingsPlan=[
        {"unitPrice": 3.97471, "retailPrice": 3.97471, "term": "1 Year"},
        {"unitPrice": 2.9, "retailPrice": 2.9, "term": "3 Years"},  # test value
        {"unitPrice": 0, "retailPrice": 0, "term": "3 Years"}])
    rows = {r.purchase: r for r in rows_of(raw)}
    assert rows["on_demand"].amount == Decimal("4.775")
    assert (rows["savings_plan_1y"].amount, rows["savings_plan_1y"].term_hours) == (Decimal("3.97471"), 8760)
    assert (rows["savings_plan_3y"].amount, rows["savings_plan_3y"].term_hours) == (Decimal("2.9"), 26280)
    spot = item("Standard_NC24ads_A100_v4", 1.097295, meter="NC24ads_A100_v4 Spot",
                savingsPlan=[{"retailPrice": 1.0, "term": "1 Year"}])
    assert [r.purchase for r in rows_of(spot)] == ["spot"]


# --- duplicates, zero prices, currency --------------------------------------------------------------------------------

def test_duplicate_meters_give_one_offer_and_primary_meters_win() -> None:
    # westeurope 2026-08: "ND96amsr A100 v4" and "ND96amsA100v4" both 40.962 for one size.
    rows = [r for raw in (item("Standard_ND96amsr_A100_v4", 40.962, meter="ND96amsr A100 v4"),
                          item("Standard_ND96amsr_A100_v4", 40.962, meter="ND96amsA100v4"),
                          item("Standard_ND96amsr_A100_v4", 39.0, meter="other", isPrimaryMeterRegion=False))
            for r in rows_of(raw)]
    selection = select_prices(rows)
    assert len(selection.rows) == 1 and selection.duplicates == 2 and not selection.conflicts
    assert next(iter(selection.rows.values())).amount == Decimal("40.962")
    # A size billed only through a non-primary meter (DS5 v2 in 2022) keeps that price.
    [only] = rows_of(item("Standard_DS5_v2", 0.916, isPrimaryMeterRegion=False))
    assert select_prices([only]).rows[only.key].amount == Decimal("0.916")


def test_two_different_prices_are_a_conflict_not_a_pick() -> None:
    rows = [r for raw in (item("Standard_NC4as_T4_v3", 0.526), item("Standard_NC4as_T4_v3", 0.612))
            for r in rows_of(raw)]
    selection = select_prices(rows)
    assert selection.rows == {}
    assert list(selection.conflicts.values()) == [[Decimal("0.526"), Decimal("0.612")]]


def test_zero_price_is_not_an_offer_and_bad_prices_raise() -> None:
    assert reason_of(item("Standard_NC40ads_H100_v5", 0.0)) == "zero price (placeholder)"
    assert reason_of(item("Standard_NC40ads_H100_v5", 0, kind="Reservation", reservationTerm="1 Year")) \
        == "zero price (placeholder)"
    for bad in ("n/a", None, True, "NaN", "Infinity"):
        with pytest.raises(ValueError):
            classify_item(item("Standard_NC40ads_H100_v5", bad))  # type: ignore[arg-type]


def test_currency_comes_from_the_data() -> None:
    [eur] = rows_of(item("Standard_NC6s_v3", 2.8, currency="EUR"))
    assert eur.currency == "EUR"
    raw = item("Standard_NC6s_v3", 2.8)
    del raw["currencyCode"]
    assert rows_of(raw, billing_currency="GBP")[0].currency == "GBP"
    with pytest.raises(ValueError, match="currency"):
        classify_item(raw)


def test_page_envelope() -> None:
    items, link, billing = page_items({"BillingCurrency": "USD", "Items": [{"a": 1}], "NextPageLink": "",
                                       "Count": 1})
    assert (items, link, billing) == ([{"a": 1}], None, "USD")
    for bad in ([], {"items": []}, {"Items": None}, "<html>"):
        with pytest.raises(ValueError, match="not a Retail Prices page"):
            page_items(bad)


def test_malformed_items_raise_for_the_guard() -> None:
    with pytest.raises(TypeError):
        classify_item(["not", "an", "object"])  # type: ignore[arg-type]
    with pytest.raises(KeyError):
        classify_item({"armSkuName": "Standard_NC6s_v3", "retailPrice": 1.0, "currencyCode": "USD"})


# --- specs -----------------------------------------------------------------------------------------------------------

def test_size_table_facts() -> None:
    table = size_table()
    h100 = table["standard_nd96isr_h100_v5"]
    assert (h100.gpu, h100.gpu_count, h100.gpu_memory_gib, h100.vcpus, h100.memory_gib) == ("H100", 8, 80, 96, 1900)
    a100 = table["standard_nc24ads_a100_v4"]
    assert (a100.gpu, a100.gpu_count, a100.gpu_memory_gib, a100.vcpus, a100.memory_gib) == ("A100-80GB", 1, 80, 24, 220)
    assert table["standard_nv6ads_a10_v5"].gpu_count == pytest.approx(1 / 6)
    assert table["standard_nv4as_v4"].gpu_count == 0.125 and table["standard_nv4as_v4"].fractional
    assert all(spec.source for spec in table.values())
    assert all(0 < spec.gpu_count <= 8 for spec in table.values())


def test_every_table_gpu_is_a_canonical_gpuhub_name() -> None:
    from azure_helpers import azure_registry

    names = set(azure_registry().gpus.names())
    assert {spec.gpu for spec in size_table().values()} <= names


def test_family_rules_mark_partial_gpu_families() -> None:
    assert family_gpu("Standard_ND96isf_H100_v5") == ("H100", 80, False)
    assert family_gpu("Standard_NC40ads_H100_v5") == ("H100-NVL", 94, False)
    assert family_gpu("Standard_NV9ads_A10_v5") == ("A10", 24, True)
    assert family_gpu("Standard_NV4as_v4") == ("MI25", 16, True)
    assert family_gpu("Standard_D4s_v3") is None


def test_resource_skus_page() -> None:
    page = {"value": [
        {"resourceType": "virtualMachines", "name": "Standard_NV6", "capabilities": [
            {"name": "vCPUs", "value": "6"}, {"name": "MemoryGB", "value": "56"}, {"name": "GPUs", "value": "1"}]},
        {"resourceType": "virtualMachines", "name": "Standard_DS2_v2", "capabilities": [
            {"name": "vCPUs", "value": "2"}, {"name": "MemoryGB", "value": "7"}]},
        {"resourceType": "disks", "name": "Premium_LRS"}], "nextLink": None}
    skus, link = resource_sku_capabilities(page)
    assert link is None and set(skus) == {"standard_nv6", "standard_ds2_v2"}
    assert (skus["standard_nv6"].vcpus, skus["standard_nv6"].memory_gib, skus["standard_nv6"].gpus) == (6, 56, 1)
    assert skus["standard_ds2_v2"].gpus is None
    with pytest.raises(ValueError):
        resource_sku_capabilities({"error": {"code": "AuthorizationFailed"}})
