"""The live walk: request shape, NextPageLink, $skip fallback, loops, page cap, region policy, Resource SKUs."""

from __future__ import annotations

import sys
import types
from decimal import Decimal
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest
from azure_helpers import azure_registry, envelope, find, item, pages_handler, query, region_of, serve
from gpuhub_azure.provider import API_VERSION, IDENTITY_ENV, AzureProvider, price_filter

from gpuhub.plugin import (
    CountingTransport,
    ReplayTransport,
    known_regions,
    load_manifest,
    make_engine,
    run_provider,
)

LINK = "https://prices.azure.com:443/api/retail/prices?currencyCode='USD'&$filter=armRegionName%20eq%20'westeurope'"


def test_request_shape_per_region() -> None:
    offers, status, transport = serve(pages_handler({
        "westeurope": [envelope([item("Standard_NC6s_v3", 3.06)])],
        "eastus": [envelope([item("Standard_NC6s_v3", 3.06, region="eastus")])]}), regions="westeurope,eastus")
    assert status.state == "ok", status.line()
    assert [region_of(r) for r in transport.requests] == ["westeurope", "eastus"]
    first = transport.requests[0]
    assert (first.url.scheme, first.url.host, first.url.path) == ("https", "prices.azure.com", "/api/retail/prices")
    params = query(first)
    assert params["api-version"] == API_VERSION == "2023-01-01-preview"
    assert params["currencyCode"] == "USD"
    assert params["$filter"] == price_filter("westeurope")
    assert "serviceName eq 'Virtual Machines'" in params["$filter"] and "currencyCode" not in params["$filter"]
    assert sorted(o.region.code for o in offers) == ["eastus", "westeurope"]


def test_next_page_link_is_followed_until_null_and_the_last_page_is_read() -> None:
    pages = [envelope([item("Standard_NC6s_v3", 3.06)], link=f"{LINK}&$skip=100"),
             envelope([item("Standard_NC12s_v3", 6.12)], link=f"{LINK}&$skip=200"),
             envelope([item("Standard_NC24s_v3", 12.24)], link=None)]
    offers, status, transport = serve(pages_handler({"westeurope": pages}))
    assert status.state == "ok", status.line()
    assert transport.calls == 3
    assert [query(r).get("$skip") for r in transport.requests] == [None, "100", "200"]
    # The link's own parameters win (currencyCode='USD', its $filter); the api-version we need is kept.
    assert query(transport.requests[1])["currencyCode"] == "'USD'"
    assert query(transport.requests[1])["api-version"] == API_VERSION
    assert {o.instance_type: o.price.amount for o in offers} == {"Standard_NC6s_v3": Decimal("3.06"),
                                                                 "Standard_NC12s_v3": Decimal("6.12"),
                                                                 "Standard_NC24s_v3": Decimal("12.24")}


def test_links_are_rebased_on_the_configured_base_url() -> None:
    pages = [envelope([item("Standard_NC6s_v3", 3.06)], link=f"{LINK}&$skip=100"), envelope([])]
    _, status, transport = serve(pages_handler({"westeurope": pages}),
                                 environ={"GPUHUB_AZURE_BASE_URL": "http://mirror.internal:8080/azure"})
    assert status.state == "ok", status.line()
    assert {str(r.url).split("?")[0] for r in transport.requests} == {"http://mirror.internal:8080/azure/api/retail/prices"}


def test_skip_fallback_when_a_full_page_has_no_link() -> None:
    full = [item("Standard_NC6s_v3", 3.06, meter=f"NC6s v3 m{i}") for i in range(1000)]
    pages = [envelope(full, link=None), envelope([item("Standard_NC12s_v3", 6.12)], link=None)]
    offers, status, transport = serve(pages_handler({"westeurope": pages}))
    assert status.state == "ok", status.line()
    assert [query(r).get("$skip") for r in transport.requests] == [None, "1000"]
    assert query(transport.requests[1])["$filter"] == price_filter("westeurope")
    assert find(offers, "Standard_NC12s_v3").price.amount == Decimal("6.12")
    assert any("$skip=1000" in w for w in status.warnings), status.warnings
    assert status.skipped_reasons["duplicate meter for one size, region and purchase model (merged)"] == 999


def test_skip_fallback_stops_on_an_empty_page() -> None:
    full = [item("Standard_NC6s_v3", 3.06, meter=f"m{i}") for i in range(1000)]
    offers, status, transport = serve(pages_handler({"westeurope": [envelope(full), envelope([])]}))
    assert status.state == "ok" and transport.calls == 2
    assert find(offers, "Standard_NC6s_v3").price.amount == Decimal("3.06")


def test_a_short_page_without_link_ends_the_walk() -> None:
    _, status, transport = serve(pages_handler({"westeurope": [envelope([item("Standard_NC6s_v3", 3.06)] * 999)]}))
    assert status.state == "ok" and transport.calls == 1


def test_pagination_loop_fails_the_provider() -> None:
    looping = envelope([item("Standard_NC6s_v3", 3.06)], link=f"{LINK}&$skip=100")
    offers, status, transport = serve(pages_handler({"westeurope": [looping]}))
    assert status.state == "failed" and "pagination loop" in (status.reason or ""), status.line()
    assert offers == () and transport.calls == 2


def test_page_cap_with_a_pending_link_fails_the_provider() -> None:
    def handler(request: httpx.Request, n: int) -> httpx.Response:
        return httpx.Response(200, json=envelope([item("Standard_NC6s_v3", 3.06)], link=f"{LINK}&$skip={n * 100}"))

    offers, status, transport = serve(handler, environ={"GPUHUB_AZURE_MAX_PAGES": "3"})
    assert status.state == "failed" and "page cap of 3 pages" in (status.reason or ""), status.line()
    assert offers == () and transport.calls == 3


@pytest.mark.parametrize("body", [b"<html>maintenance</html>", b'{"error": {"code": "BadRequest"}}', b"[]"])
def test_a_page_that_is_not_an_envelope_fails_the_provider(body: bytes) -> None:
    offers, status, _ = serve(lambda req, n: httpx.Response(200, content=body))
    assert status.state == "failed" and offers == (), status.line()
    assert "westeurope" in (status.reason or "")


def test_http_400_is_not_retried_and_names_the_region() -> None:
    offers, status, transport = serve(lambda req, n: httpx.Response(400, json={"Error": "Invalid OData"}))
    assert status.state == "failed" and "HTTP 400" in (status.reason or "") and "region westeurope" in status.reason
    assert transport.calls == 1 and offers == ()


def test_region_failure_policy_fail_by_default_and_warn_on_request() -> None:
    pages = {"westeurope": [envelope([item("Standard_NC6s_v3", 3.06)])], "eastus": [503]}
    offers, status, _ = serve(pages_handler(pages), regions="westeurope,eastus")
    assert status.state == "failed" and offers == (), status.line()
    assert "region eastus" in (status.reason or "") and "503" in status.reason
    offers, status, _ = serve(pages_handler(pages), regions="westeurope,eastus",
                              environ={"GPUHUB_AZURE_ON_REGION_FAILURE": "warn"})
    assert status.state == "ok", status.line()
    assert [o.region.code for o in offers] == ["westeurope"]
    assert any(w.startswith("eastus: walk failed") and "PARTIAL" in w for w in status.warnings), status.warnings
    _, bad, _ = serve(pages_handler(pages), environ={"GPUHUB_AZURE_ON_REGION_FAILURE": "ignore"})
    assert bad.state == "failed" and "'fail' or 'warn'" in (bad.reason or "")


def test_malformed_items_are_skipped_and_counted() -> None:
    page = envelope([item("Standard_NC6s_v3", "three"), {"armSkuName": "Standard_NC12s_v3"}, "junk",
                     item("Standard_NC24s_v3", 12.24)])
    offers, status, _ = serve(pages_handler({"westeurope": [page]}))
    assert status.state == "ok"
    assert [o.instance_type for o in offers] == ["Standard_NC24s_v3"]
    assert status.skipped_records == 3, status.skipped_reasons
    assert all(reason.startswith("price item:") for reason in status.skipped_reasons)


def test_live_default_walks_every_known_azure_region() -> None:
    expected = sorted(f.region for f in known_regions("azure"))
    transport_regions: list[str] = []

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        transport_regions.append(region_of(request))
        return httpx.Response(200, json=envelope([]))


    offers, status = run_provider(make_engine(azure_registry(), transport=CountingTransport(handler), environ={}),
                                  "azure", mode="live")
    assert len(expected) > 40 and sorted(transport_regions) == expected and transport_regions[0] == expected[0]
    assert offers == () and status.state == "ok"
    assert sum("(empty region)" in w for w in status.warnings) == len(expected)


def test_sizes_without_specs_are_left_out_and_listed() -> None:
    page = envelope([item("Standard_ND96isf_H100_v5", 115.034), item("Standard_NV6ads_A10_v5", 0.454)])
    offers, status, _ = serve(pages_handler({"westeurope": [page]}))
    assert [o.instance_type for o in offers] == ["Standard_NV6ads_A10_v5"]
    assert status.skipped_reasons["size without known GPU specs (not in the bundled table)"] == 1
    assert any("Standard_ND96isf_H100_v5" in w for w in status.warnings)


# --- Resource SKUs (Azure identity configured) --------------------------------------------------------------------

def _skus_page(*skus: tuple[str, str, str, str | None]) -> dict[str, Any]:
    value = []
    for name, vcpus, memory, gpus in skus:
        caps = [{"name": "vCPUs", "value": vcpus}, {"name": "MemoryGB", "value": memory}]
        if gpus is not None:
            caps.append({"name": "GPUs", "value": gpus})
        value.append({"resourceType": "virtualMachines", "name": name, "capabilities": caps})
    return {"value": value}


def test_resource_skus_fill_specs_when_an_identity_is_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(AzureProvider, "_arm_token", lambda self, ctx, *a: "token-123")
    prices = envelope([item("Standard_NC24ads_A100_v4", 4.775), item("Standard_NV18ads_A10_v5", 1.0),
                       item("Standard_ND96isf_H100_v5", 115.034), item("Standard_NV9ads_A10_v5", 0.7)])
    arm_requests: list[httpx.Request] = []

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        if request.url.host == "management.azure.com":
            arm_requests.append(request)
            return httpx.Response(200, json=_skus_page(
                ("Standard_NC24ads_A100_v4", "24", "220", "1"), ("Standard_NV18ads_A10_v5", "18", "220", "1"),
                ("Standard_ND96isf_H100_v5", "96", "1900", "8"), ("Standard_NV9ads_A10_v5", "9", "110", "1")))
        return httpx.Response(200, json=prices)

    env = {name: f"dummy-{name}" for name in IDENTITY_ENV}
    offers, status, _ = serve(handler, environ=env)
    assert status.state == "ok", status.line()
    [arm] = arm_requests
    assert arm.headers["Authorization"] == "Bearer token-123"
    assert arm.url.path == "/subscriptions/dummy-AZURE_SUBSCRIPTION_ID/providers/Microsoft.Compute/skus"
    assert query(arm) == {"api-version": "2021-07-01", "$filter": "location eq 'westeurope'"}
    # A size the table lacks gets its count from Resource SKUs and its model from the family name.
    isf = find(offers, "Standard_ND96isf_H100_v5").instance
    assert (isf.gpu.name, isf.gpu_count, isf.vcpus, isf.memory_gib) == ("H100", 8, 96, 1900)
    # The table's fraction wins over Resource SKUs' "GPUs": "1" (C03) ...
    assert find(offers, "Standard_NV18ads_A10_v5").instance.gpu_count == 0.5
    # ... and a partial-GPU family size the table lacks is never priced as a whole GPU.
    assert not [o for o in offers if o.instance_type == "Standard_NV9ads_A10_v5"]
    assert not any("Resource SKUs not queried" in w for w in status.warnings)


def test_resource_skus_failure_falls_back_to_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(AzureProvider, "_arm_token", lambda self, ctx, *a: "token-123")

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        if request.url.host == "management.azure.com":
            return httpx.Response(403, json={"error": {"code": "AuthorizationFailed"}})
        return httpx.Response(200, json=envelope([item("Standard_NC24ads_A100_v4", 4.775)]))

    offers, status, _ = serve(handler, environ={name: "x" for name in IDENTITY_ENV})
    assert status.state == "ok"
    assert find(offers, "Standard_NC24ads_A100_v4").instance.memory_gib == 220
    assert any(w.startswith("Resource SKUs unavailable") and "Azure error AuthorizationFailed (HTTP 403)" in w
               and "AZURE_CLIENT_ID" in w for w in status.warnings), status.warnings


def test_without_azure_identity_package_specs_come_from_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_azure(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("azure"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_azure)
    _, status, transport = serve(pages_handler({"westeurope": [envelope([item("Standard_NC6s_v3", 3.06)])]}),
                                 environ={name: "x" for name in IDENTITY_ENV})
    assert status.state == "ok" and transport.calls == 1
    assert any("gpuhub-azure[identity]" in w for w in status.warnings), status.warnings


def test_skip_fallback_uses_the_page_size_seen_earlier_in_the_walk() -> None:
    # 100-item pages (the 2022 page size): the link vanishes on a full second page (2023 outage pattern).
    hundred = [item("Standard_NC6s_v3", 3.06, meter=f"m{i}") for i in range(100)]
    pages = [envelope(hundred, link=f"{LINK}&$skip=100"), envelope(hundred, link=None),
             envelope([item("Standard_NC12s_v3", 6.12)] * 40, link=None)]
    offers, status, transport = serve(pages_handler({"westeurope": pages}))
    assert status.state == "ok", status.line()
    assert [query(r).get("$skip") for r in transport.requests] == [None, "100", "200"]
    assert find(offers, "Standard_NC12s_v3").price.amount == Decimal("6.12")
    # A first page without a link is full only at 1000 items: 368 rows end the walk in one request.
    _, _, one = serve(pages_handler({"westeurope": [envelope([item("Standard_NC6s_v3", 3.06)] * 368)]}))
    assert one.calls == 1


def test_resource_skus_restrictions_mark_offers_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(AzureProvider, "_arm_token", lambda self, ctx, *a: "token")
    page = _skus_page(("Standard_NC24ads_A100_v4", "24", "220", "1"))
    page["value"][0]["restrictions"] = [{"type": "Location", "values": ["westeurope"],
                                         "restrictionInfo": {"locations": ["westeurope"]},
                                         "reasonCode": "NotAvailableForSubscription"}]

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        if request.url.host == "management.azure.com":
            return httpx.Response(200, json=page)
        region = region_of(request)
        return httpx.Response(200, json=envelope([item("Standard_NC24ads_A100_v4", 4.775, region=region)]))

    offers, status, _ = serve(handler, regions="westeurope,northeurope", environ={n: "x" for n in IDENTITY_ENV})
    assert status.state == "ok", status.line()
    assert find(offers, "Standard_NC24ads_A100_v4").available is False
    assert find(offers, "Standard_NC24ads_A100_v4", region="northeurope").available is None


class _FakeToken:
    token = "tok-from-azure-identity"


class _FakeCredential:
    calls: ClassVar[list[tuple[str, str, str]]] = []
    fail = False

    def __init__(self, tenant_id: str, client_id: str, client_secret: str) -> None:
        _FakeCredential.calls.append((tenant_id, client_id, client_secret))

    def get_token(self, scope: str) -> _FakeToken:
        if _FakeCredential.fail:
            raise RuntimeError("AADSTS7000215: Invalid client secret provided")
        assert scope == "https://management.azure.com/.default"
        return _FakeToken()


def _fake_azure_identity(monkeypatch: pytest.MonkeyPatch, fail: bool) -> None:
    azure, identity = types.ModuleType("azure"), types.ModuleType("azure.identity")
    identity.ClientSecretCredential = _FakeCredential  # type: ignore[attr-defined]
    azure.identity = identity  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "azure", azure)
    monkeypatch.setitem(sys.modules, "azure.identity", identity)
    monkeypatch.setattr(_FakeCredential, "fail", fail)
    _FakeCredential.calls.clear()


def test_azure_identity_token_is_used_for_resource_skus(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_azure_identity(monkeypatch, fail=False)

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        if request.url.host == "management.azure.com":
            assert request.headers["Authorization"] == "Bearer tok-from-azure-identity"
            return httpx.Response(200, json=_skus_page(("Standard_NC6s_v3", "6", "112", "1")))
        return httpx.Response(200, json=envelope([item("Standard_NC6s_v3", 3.06)]))

    env = {"AZURE_CLIENT_ID": "cid", "AZURE_TENANT_ID": "tid", "AZURE_CLIENT_SECRET": "sec",
           "AZURE_SUBSCRIPTION_ID": "sub"}
    _, status, transport = serve(handler, environ=env)
    assert status.state == "ok" and transport.calls == 2, status.line()
    assert _FakeCredential.calls == [("tid", "cid", "sec")]


def test_a_rejected_azure_identity_is_a_warning_and_the_table_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_azure_identity(monkeypatch, fail=True)
    offers, status, transport = serve(pages_handler({"westeurope": [envelope([item("Standard_NC6s_v3", 3.06)])]}),
                                      environ={n: "x" for n in IDENTITY_ENV})
    assert status.state == "ok" and transport.calls == 1
    assert find(offers, "Standard_NC6s_v3").instance.memory_gib == 112
    assert any(w.startswith("Azure identity rejected (RuntimeError)") and "AZURE_CLIENT_SECRET" in w
               for w in status.warnings), status.warnings
    assert not any("Invalid client secret" in w for w in status.warnings)  # no service text echoed


def test_record_then_replay_a_region_subset(tmp_path: Path) -> None:
    bundled = ReplayTransport(load_manifest(AzureProvider().fixtures_dir()))
    engine = make_engine(azure_registry(), transport=bundled, environ={"GPUHUB_AZURE_REGIONS": "westeurope"})
    [(recorded, status)] = engine.collect(["azure"], mode="record", record_dir=tmp_path)
    assert status.state == "ok", status.line()
    manifest = load_manifest(tmp_path / "azure")
    assert (manifest.kind, len(manifest.exchanges)) == ("live-capture", 4)
    # Replaying the user's recording walks the regions it holds (no GPUHUB_AZURE_REGIONS needed).
    replay = make_engine(azure_registry(), environ={})
    [(offers, replayed)] = replay.collect(["azure"], mode="replay", fixtures_dir=tmp_path)
    assert replayed.state == "ok", replayed.line()
    assert len(offers) == len(recorded) == 198
    assert {o.region.code for o in offers} == {"westeurope"}
    assert find(offers, "Standard_ND96isr_H100_v5").price.amount == Decimal("127.816")


def test_arm_error_bodies_name_azure_codes() -> None:
    provider = AzureProvider()
    throttled = provider.error_from_response(httpx.Response(
        429, json={"error": {"code": "TooManyRequests", "message": "Retry later"}}))
    assert throttled is not None and throttled.code == "TooManyRequests" and throttled.retryable
    assert str(throttled) == "Azure error TooManyRequests (HTTP 429): Retry later"
    assert provider.error_from_response(httpx.Response(400, text="<html>bad</html>")) is None
    assert provider.error_from_response(httpx.Response(401, json={"error": "invalid credentials"})) is None


def test_regions_after_the_first_are_walked_concurrently_and_keep_their_order() -> None:
    regions = ["westeurope", "northeurope", "swedencentral", "francecentral", "eastus", "westus3"]
    threads: set[str] = set()

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        import threading
        import time

        threads.add(threading.current_thread().name)
        time.sleep(0.02)
        region = region_of(request)
        return httpx.Response(200, json=envelope([item("Standard_NC6s_v3", 3.06, region=region)]))

    offers, status, transport = serve(handler, regions=",".join(regions), environ={"GPUHUB_AZURE_WORKERS": "3"})
    assert status.state == "ok" and transport.calls == 6
    assert region_of(transport.requests[0]) == "westeurope"  # the probe region goes first, alone
    assert [o.region.code for o in offers] == sorted(regions)  # offers come out sorted by size and region
    assert len({t for t in threads if t.startswith("gpuhub-azure")}) >= 2
    pages: dict[str, list[Any]] = {r: [envelope([item("Standard_NC6s_v3", 3.06, region=r)])] for r in regions}
    pages["eastus"] = [503]
    offers, status, _ = serve(pages_handler(pages), regions=",".join(regions), environ={"GPUHUB_AZURE_WORKERS": "3"})
    assert status.state == "failed" and "region eastus" in (status.reason or "") and offers == ()


@pytest.mark.parametrize("regions", ["westeurope' or serviceName eq 'x", "West Europe", "eastus,west-us"])
def test_region_codes_are_validated_before_they_reach_the_filter(regions: str) -> None:
    offers, status, transport = serve(pages_handler({"westeurope": [envelope([])]}), regions=regions)
    assert status.state == "failed" and "is not an Azure region code" in (status.reason or "")
    assert transport.calls == 0 and offers == ()


def test_empty_entries_in_the_region_list_are_ignored() -> None:
    _, status, transport = serve(pages_handler({"eastus": [envelope([])]}), regions=" eastus, ,")
    assert status.state == "ok" and transport.calls == 1
