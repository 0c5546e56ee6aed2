"""Known faults from ../shared/cases/known-faults.md that gpuhub-azure must not have, each with its whole kind.

C03 partial-GPU sizes counted as whole GPUs; C10 one size with two on-demand prices (Windows, "Srs Win", Cloud
Services meters); C12 an empty region aborting the walk; C19 a partial walk published as complete; C23 a $0
placeholder ranked cheapest; C25 the currency put inside ``$filter``.
"""

from __future__ import annotations

import inspect
from decimal import Decimal
from typing import Any

import httpx
import pytest
from azure_helpers import azure_registry, envelope, find, item, pages_handler, query, serve
from gpuhub_azure.parse import family_gpu
from gpuhub_azure.provider import IDENTITY_ENV, AzureProvider

import gpuhub
from gpuhub.plugin import CountingTransport, make_engine, run_provider


def _live() -> dict[str, str]:
    """The search keyword that asks for live data (the core renamed ``mode=`` to ``fetch=``)."""
    return {"fetch": "live"} if "fetch" in inspect.signature(gpuhub.search).parameters else {"mode": "live"}


C19_LINK = "https://prices.azure.com/api/retail/prices?$filter=armRegionName%20eq%20'eastus'&$skip=1000"


# --- C03 ------------------------------------------------------------------------------------------------------------

def test_c03_nvads_a10_v5_partial_sizes_are_fractions_even_when_skus_say_one_gpu(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(AzureProvider, "_arm_token", lambda self, ctx, *a: "token")
    page = envelope([item("Standard_NV18ads_A10_v5", 1.0), item("Standard_NV36ads_A10_v5", 2.0),  # test prices
                     item("Standard_NC24lds_xl_RTXPRO6000BSE_v6", 1.617)])
    skus = {"value": [  # the C03 input: Resource SKUs report "GPUs": "1" for both sizes
        {"resourceType": "virtualMachines", "name": "Standard_NV18ads_A10_v5",
         "capabilities": [{"name": "vCPUs", "value": "18"}, {"name": "MemoryGB", "value": "220"},
                          {"name": "GPUs", "value": "1"}]},
        {"resourceType": "virtualMachines", "name": "Standard_NV36ads_A10_v5",
         "capabilities": [{"name": "vCPUs", "value": "36"}, {"name": "MemoryGB", "value": "440"},
                          {"name": "GPUs", "value": "1"}]},
        # the same fault on the RTX PRO 6000 v6 family: a quarter card reported as "1 GPU(s)"
        {"resourceType": "virtualMachines", "name": "Standard_NC24lds_xl_RTXPRO6000BSE_v6",
         "capabilities": [{"name": "vCPUs", "value": "24"}, {"name": "MemoryGB", "value": "72"},
                          {"name": "GPUs", "value": "1"}]}]}

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        return httpx.Response(200, json=skus if request.url.host == "management.azure.com" else page)

    env = {"GPUHUB_AZURE_REGIONS": "westeurope", **{name: "x" for name in IDENTITY_ENV}}
    engine = make_engine(azure_registry(), transport=CountingTransport(handler), environ=env)
    offers, status = run_provider(engine, "azure", mode="live")
    assert status.state == "ok", status.line()
    half = find(offers, "Standard_NV18ads_A10_v5").instance
    assert (half.gpu.name, half.gpu_count, half.fractional, half.gpu_memory_gib) == ("A10", 0.5, True, 12.0)
    assert (half.vcpus, half.memory_gib) == (18, 220)
    whole = find(offers, "Standard_NV36ads_A10_v5").instance
    assert (whole.gpu_count, whole.fractional, whole.gpu_memory_gib) == (1, False, 24.0)
    quarter = find(offers, "Standard_NC24lds_xl_RTXPRO6000BSE_v6").instance
    assert (quarter.gpu.name, quarter.gpu_count, quarter.gpu_memory_gib) == ("RTXPRO6000", 0.25, 24.0)
    # "1x A10 24GB" returns only the NV36ads row.
    result = gpuhub.search(gpu="A10", min_gpus=1, max_gpus=1, min_vram=24, provider="azure", engine=engine,
                           **_live())
    assert [o.instance_type for o in result] == ["Standard_NV36ads_A10_v5"]


def test_c03_every_partial_gpu_size_in_the_recording_is_fractional(replayed: Any) -> None:
    offers, _ = replayed
    expected = {"Standard_NV6ads_A10_v5": (1 / 6, 4.0), "Standard_NV12ads_A10_v5": (1 / 3, 8.0),
                "Standard_NV18ads_A10_v5": (0.5, 12.0), "Standard_NC8ads_A10_v4": (0.5, 12.0),
                "Standard_NG8ads_V620_v1": (0.25, 8.0),
                "Standard_NG16ads_V620_v1": (0.5, 16.0), "Standard_NV4ads_V710_v5": (1 / 6, 4.0),
                "Standard_NC24lds_xl_RTXPRO6000BSE_v6": (0.25, 24.0),
                "Standard_NC36ds_xl_RTXPRO6000BSE_v6": (0.25, 24.0),
                "Standard_NC72ds_xl_RTXPRO6000BSE_v6": (0.5, 48.0),
                "Standard_NV4as_v4": (0.125, 2.0), "Standard_NV16as_v4": (0.5, 8.0)}
    seen = set()
    for offer in offers:
        inst = offer.instance
        if inst.instance_type in expected:
            count, vram = expected[inst.instance_type]
            assert inst.gpu_count == pytest.approx(count) and inst.fractional, inst
            assert inst.gpu_memory_gib == pytest.approx(vram), inst
            seen.add(inst.instance_type)
        family = family_gpu(inst.instance_type)
        if family and family[2] and not inst.fractional:  # a whole card of a partial family: the table says so
            assert inst.gpu_memory_gib == family[1], inst
    assert seen == set(expected)


# --- C10 ------------------------------------------------------------------------------------------------------------

C10_PAGE: dict[str, Any] = {"Items": [
    {"armSkuName": "Standard_NC4as_T4_v3", "armRegionName": "westus3", "type": "Consumption",
     "productName": "Virtual Machines NCasT4_v3 Series", "skuName": "NC4as T4 v3", "retailPrice": 0.526,
     "currencyCode": "USD"},
    {"armSkuName": "Standard_NC4as_T4_v3", "armRegionName": "westus3", "type": "Consumption",
     "productName": "Virtual Machines NCasT4_v3 Series Windows", "skuName": "NC4as T4 v3", "retailPrice": 0.710,
     "currencyCode": "USD"},
    {"armSkuName": "Standard_NC4as_T4_v3", "armRegionName": "westus3", "type": "Consumption",
     "productName": "Cloud Services NCasT4_v3 Series", "skuName": "NC4as T4 v3", "retailPrice": 0.612,
     "currencyCode": "USD"},
    {"armSkuName": "Standard_NC40ads_H100_v5", "armRegionName": "westus3", "type": "Consumption",
     "productName": "Virtual Machines NCads H100 v5 Series Win", "skuName": "NC40ads H100 v5", "retailPrice": 8.90,
     "currencyCode": "USD"}],
    "NextPageLink": None}


def test_c10_windows_win_and_cloud_services_rows_give_no_second_price() -> None:
    offers, status, _ = serve(pages_handler({"westus3": [C10_PAGE]}), regions="westus3")
    assert status.state == "ok", status.line()
    assert [(o.instance_type, o.price.purchase, o.price.amount) for o in offers] == [
        ("Standard_NC4as_T4_v3", "on_demand", Decimal("0.526"))]
    assert status.skipped_reasons == {"Windows price (Linux only)": 2, "Cloud Services price (not a VM)": 1}


def test_c10_two_remaining_prices_are_reported_not_picked() -> None:
    page = envelope([item("Standard_NC4as_T4_v3", 0.526, meter="NC4as T4 v3"),
                     item("Standard_NC4as_T4_v3", 0.55, meter="NC4as T4 v3 other"),  # test value
                     item("Standard_NC4as_T4_v3", 0.1, meter="NC4as T4 v3 Spot")])
    offers, status, _ = serve(pages_handler({"westeurope": [page]}))
    assert [(o.price.purchase, o.price.amount) for o in offers] == [("spot", Decimal("0.1"))]
    assert any("Standard_NC4as_T4_v3 on_demand: 2 different prices (0.526, 0.55)" in w for w in status.warnings)


def test_c10_recording_has_one_linux_price_per_size_and_never_the_windows_one(replayed: Any) -> None:
    offers, _ = replayed
    h100 = [o for o in offers if o.instance_type == "Standard_ND96isr_H100_v5" and o.region.code == "westeurope"]
    assert sorted((o.price.purchase, o.price.amount) for o in h100) == [
        ("low_priority", Decimal("25.563")), ("on_demand", Decimal("127.816")), ("spot", Decimal("23.620397"))]
    ncc = find(offers, "Standard_NCC40ads_H100_v5")
    assert ncc.price.amount == Decimal("8.9")  # the "Srs Win" row is 10.74
    assert all(o.price.amount not in (Decimal("132.232"), Decimal("10.74")) for o in offers)


# --- C12 ------------------------------------------------------------------------------------------------------------

def test_c12_an_empty_region_is_a_warning_and_the_others_are_kept_and_cached() -> None:
    pages = {"eastus": [{"BillingCurrency": "USD", "Items": [
                {"armSkuName": "Standard_NC6s_v3", "armRegionName": "eastus", "type": "Consumption",
                 "productName": "Virtual Machines NCSv3 Series", "skuName": "NC6s v3", "retailPrice": 3.06,
                 "currencyCode": "USD"}], "NextPageLink": None, "Count": 1}],
             "centraluseuap": [{"BillingCurrency": "USD", "Items": [], "NextPageLink": None, "Count": 0}]}
    transport = CountingTransport(pages_handler(pages))
    engine = make_engine(azure_registry(), transport=transport,
                         environ={"GPUHUB_AZURE_REGIONS": "eastus,centraluseuap"})
    offers, status = run_provider(engine, "azure", mode="live")
    assert status.state == "ok", status.line()
    [offer] = offers
    assert (offer.instance_type, offer.region.code, offer.gpu_name, offer.gpu_count, offer.price.amount) == (
        "Standard_NC6s_v3", "eastus", "V100", 1, Decimal("3.06"))
    assert "centraluseuap: no GPU VM price rows (empty region)" in status.warnings
    calls = transport.calls
    again, _ = run_provider(engine, "azure", mode="live")
    assert again == offers and transport.calls == calls  # served from the cache


# --- C19 ------------------------------------------------------------------------------------------------------------

C19_A = [envelope([item("Standard_NC6s_v3", 3.06, region="eastus", skuName="NC6s v3")], link=C19_LINK),
         envelope([item("Standard_NC12s_v3", 6.12, region="eastus", skuName="NC12s v3")], link=None)]


def test_c19_case_a_follows_the_link_and_reads_the_last_page() -> None:
    offers, status, transport = serve(pages_handler({"eastus": C19_A}), regions="eastus")
    assert status.state == "ok", status.line()
    assert {o.instance_type: o.price.amount for o in offers} == {"Standard_NC6s_v3": Decimal("3.06"),
                                                                 "Standard_NC12s_v3": Decimal("6.12")}
    assert query(transport.requests[1])["$skip"] == "1000"
    assert query(transport.requests[1])["$filter"] == "armRegionName eq 'eastus'"  # the link's, not an offset


def test_c19_case_b_a_failed_page_fails_the_walk_and_keeps_the_previous_catalog() -> None:
    answers: dict[str, Any] = {"pages": C19_A}
    served = {"n": 0}

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        page = answers["pages"][min(served["n"], len(answers["pages"]) - 1)]
        served["n"] += 1
        return httpx.Response(page, text="unavailable") if isinstance(page, int) else httpx.Response(200, json=page)

    transport = CountingTransport(handler)
    engine = make_engine(azure_registry(), transport=transport, environ={"GPUHUB_AZURE_REGIONS": "eastus"})
    good, status = run_provider(engine, "azure", mode="live")
    assert status.state == "ok" and len(good) == 2
    answers["pages"], served["n"] = [C19_A[0], 503], 0
    kept, stale = run_provider(engine, "azure", mode="live", refresh=True)
    assert stale.state == "stale" and "503" in (stale.reason or "") and "partial" in stale.reason, stale.line()
    assert kept == good
    # Without a previous catalog: no offers at all, never the one page that did arrive.
    served["n"] = 0
    fresh = make_engine(azure_registry(), transport=CountingTransport(handler),
                        environ={"GPUHUB_AZURE_REGIONS": "eastus"})
    none, failed = run_provider(fresh, "azure", mode="live")
    assert failed.state == "failed" and none == ()


def test_c19_page_cap_and_loops_are_errors_not_silent_stops() -> None:
    always = envelope([item("Standard_NC6s_v3", 3.06, region="eastus")], link=C19_LINK)
    offers, status, _ = serve(pages_handler({"eastus": [always]}), regions="eastus")
    assert status.state == "failed" and "pagination loop" in (status.reason or "") and offers == ()

    def growing(request: httpx.Request, n: int) -> httpx.Response:
        return httpx.Response(200, json=envelope([item("Standard_NC6s_v3", 3.06, region="eastus")],
                                                 link=f"{C19_LINK}{n}"))

    offers, status, _ = serve(growing, regions="eastus", environ={"GPUHUB_AZURE_MAX_PAGES": "5"})
    assert status.state == "failed" and "page cap" in (status.reason or "") and offers == ()


# --- C23 ------------------------------------------------------------------------------------------------------------

def test_c23_a_zero_price_is_never_an_offer_nor_the_cheapest() -> None:
    page = envelope([
        {"armSkuName": "Standard_NC40ads_H100_v5", "armRegionName": "eastus", "type": "Consumption",
         "productName": "Virtual Machines NCads H100 v5 Series", "skuName": "NC40ads H100 v5", "retailPrice": 0.0,
         "currencyCode": "USD"},
        item("Standard_NC40ads_H100_v5", 1.547885, region="eastus", meter="NC40adsH100v5 Spot"),
        item("Standard_ND96isr_H100_v5", 0, region="eastus", meter="ND96isrH100v5", savingsPlan=[
            {"retailPrice": 0.0, "term": "1 Year"}])])
    transport = CountingTransport(pages_handler({"eastus": [page]}))
    engine = make_engine(azure_registry(), transport=transport, environ={"GPUHUB_AZURE_REGIONS": "eastus"})
    offers, status = run_provider(engine, "azure", mode="live")
    assert [(o.instance_type, o.price.purchase, o.price.amount) for o in offers] == [
        ("Standard_NC40ads_H100_v5", "spot", Decimal("1.547885"))]
    assert status.skipped_reasons["zero price (placeholder)"] == 2
    ranked = gpuhub.search(gpu=["H100", "H100-NVL"], provider="azure", sort="price", engine=engine, **_live())
    assert [o.price.amount for o in ranked] == [Decimal("1.547885")]


# --- C25 ------------------------------------------------------------------------------------------------------------

def test_c25_currency_is_a_parameter_and_read_back_from_the_data() -> None:
    page = envelope([item("Standard_NC6s_v3", 2.81, currency="EUR")], billing="EUR")  # test price in EUR
    offers, status, transport = serve(pages_handler({"westeurope": [page]}),
                                      environ={"GPUHUB_AZURE_CURRENCY": "eur"})
    params = query(transport.requests[0])
    assert params["currencyCode"] == "EUR" and "currencyCode" not in params["$filter"]
    assert "EUR" not in params["$filter"]
    assert [(o.price.currency, o.price.amount) for o in offers] == [("EUR", Decimal("2.81"))]
    assert not any("BillingCurrency" in w for w in status.warnings)


def test_c25_an_empty_answer_in_another_billing_currency_is_flagged() -> None:
    empty_usd = {"BillingCurrency": "USD", "CustomerEntityId": "Default", "CustomerEntityType": "Retail",
                 "Items": [], "NextPageLink": None, "Count": 0}
    offers, status, _ = serve(pages_handler({"westeurope": [empty_usd]}), environ={"GPUHUB_AZURE_CURRENCY": "EUR"})
    assert offers == ()
    assert "westeurope: no GPU VM price rows (empty region)" in status.warnings
    assert any("asked for EUR" in w and "BillingCurrency USD" in w for w in status.warnings), status.warnings


def test_c25_an_unknown_currency_code_is_rejected_before_any_request() -> None:
    offers, status, transport = serve(pages_handler({"westeurope": [envelope([])]}),
                                      environ={"GPUHUB_AZURE_CURRENCY": "EURO"})
    assert status.state == "failed" and "'EURO' is not an ISO 4217" in (status.reason or "")
    assert transport.calls == 0 and offers == ()


def test_nc_a10_v4_and_v710_sizes_follow_microsofts_size_lists(replayed: Any) -> None:
    """Issue 26 item 6. NC A10 v4: Microsoft's size list (aspire.dev, StandardNCADSA10v4) gives 8/16/32 vCPUs,
    100/200/400 GB RAM and 1/1/2 GPUs (a partial GPU shown as 1); the retail prices are linear in size, so the
    8-vCPU size is half an A10. NVads V710 v5: Microsoft Learn gives 24 GB of accelerator memory per whole GPU."""
    offers, _ = replayed
    sizes = {o.instance.instance_type: o.instance for o in offers}
    facts = {name: (i.gpu_count, i.fractional, i.gpu_memory_gib, i.vcpus, i.memory_gib) for name, i in sizes.items()
             if name.endswith(("_A10_v4", "_V710_v5"))}
    assert facts["Standard_NC8ads_A10_v4"] == (0.5, True, 12.0, 8, 100)
    assert facts["Standard_NC16ads_A10_v4"] == (1, False, 24.0, 16, 200)
    assert facts["Standard_NC32ads_A10_v4"] == (2, False, 24.0, 32, 400)  # two whole A10s of 24 GB
    assert facts["Standard_NV24ads_V710_v5"][:3] == (1, False, 24.0)
    assert facts["Standard_NV12ads_V710_v5"][:3] == (0.5, True, 12.0)
    westeurope = {o.instance.instance_type: o.price.amount for o in offers
                  if o.region.code == "westeurope" and o.price.purchase == "on_demand"
                  and o.instance.instance_type.endswith("_A10_v4")}
    assert westeurope == {"Standard_NC8ads_A10_v4": Decimal("1.43"), "Standard_NC16ads_A10_v4": Decimal("2.86"),
                          "Standard_NC32ads_A10_v4": Decimal("5.72")}
