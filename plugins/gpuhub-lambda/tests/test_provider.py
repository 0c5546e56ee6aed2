"""The Lambda provider end to end: the bundled recording's facts, live answers, availability, errors, rate limit."""

from __future__ import annotations

import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from gpuhub_lambda.provider import LambdaProvider, sold_regions

from gpuhub.plugin import (
    CountingTransport,
    Offer,
    ProviderContext,
    ProviderStatus,
    Registry,
    Source,
    make_engine,
    run_provider,
    search,
)

Served = tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]
Replayed = tuple[tuple[Offer, ...], ProviderStatus]
CATALOG_REGIONS = 17


def _entry(name: str, description: str, cents: Any, specs: dict[str, Any], regions: list[str],
           gpu_description: str | None = None) -> dict[str, Any]:
    instance: dict[str, Any] = {"name": name, "description": description, "price_cents_per_hour": cents,
                                "specs": specs}
    if gpu_description is not None:
        instance["gpu_description"] = gpu_description
    return {"instance_type": instance,
            "regions_with_capacity_available": [{"name": r, "description": r} for r in regions]}


def _by_type(offers: tuple[Offer, ...], instance_type: str) -> list[Offer]:
    return [o for o in offers if o.instance_type == instance_type]


# --- the bundled recording --------------------------------------------------------------------------------------
def test_recording_gpu_8x_h100_sxm5(replayed: Replayed) -> None:
    offers, _ = replayed
    h100 = _by_type(offers, "gpu_8x_h100_sxm5")
    assert len(h100) == CATALOG_REGIONS
    first = h100[0]
    assert first.price.amount == Decimal("23.92") and first.price.currency == "USD"
    assert first.price.purchase == "on_demand"
    assert first.instance.gpu is not None and first.instance.gpu.name == "H100"
    assert first.instance.gpu.memory_gib == Decimal(80) and first.instance.gpu.form_factor == "SXM"
    assert first.instance.gpu_count == 8
    assert first.instance.vcpus == 208 and first.instance.memory_gib == 1800
    assert first.price_per_gpu_hour == Decimal("2.99")
    assert {o.price.amount for o in h100} == {Decimal("23.92")}  # prices are global
    assert "us-east-1" in {o.region.code for o in h100}


def test_recording_gpu_1x_h100_pcie(replayed: Replayed) -> None:
    offers, _ = replayed
    pcie = _by_type(offers, "gpu_1x_h100_pcie")
    assert {o.price.amount for o in pcie} == {Decimal("2.49")}
    assert pcie[0].instance.gpu is not None and pcie[0].instance.gpu.form_factor == "PCIe"
    assert pcie[0].instance.gpu.name == "H100" and pcie[0].instance.gpu_count == 1


def test_recording_covers_every_type_and_region(replayed: Replayed) -> None:
    offers, status = replayed
    assert status.state == "ok" and status.offers == 340
    assert len({o.instance_type for o in offers}) == 20
    assert len({o.region.code for o in offers}) == CATALOG_REGIONS
    assert status.unknown_gpus == {} and status.skipped_records == 0
    assert all(o.instance.gpu is not None and o.instance.gpu.known for o in offers)
    eu = next(o for o in offers if o.region.code == "europe-central-1")
    assert eu.region.country == "DE" and eu.region.continent == "Europe"


def test_recording_availability_is_unknown_and_says_why(replayed: Replayed) -> None:
    offers, status = replayed
    assert {o.available for o in offers} == {None}
    assert any("availability unknown" in w for w in status.warnings), status.warnings
    assert any("reconstructed" in w for w in status.warnings)
    assert {o.source.kind for o in offers} == {"reconstructed"}


def test_gh200_is_arm_and_others_are_x86(replayed: Replayed) -> None:
    offers, _ = replayed
    gh200 = _by_type(offers, "gpu_1x_gh200")
    assert gh200 and {o.instance.cpu_arch for o in gh200} == {"arm64"}
    assert gh200[0].instance.gpu is not None and gh200[0].instance.gpu.name == "GH200"
    assert gh200[0].price.amount == Decimal("1.49") and gh200[0].instance.vcpus == 64
    assert {o.instance.cpu_arch for o in offers if o.instance_type != "gpu_1x_gh200"} == {"x86_64"}


def test_recording_b200_v100_a6000_rtx6000(replayed: Replayed) -> None:
    offers, _ = replayed
    facts = {o.instance_type: o for o in offers}
    b200 = facts["gpu_8x_b200_sxm6"]
    assert b200.instance.gpu is not None and b200.instance.gpu.name == "B200"
    assert b200.price.amount == Decimal("39.92") and b200.instance.memory_gib == 2900
    assert facts["gpu_8x_v100"].instance.gpu.name == "V100"  # type: ignore[union-attr]
    assert facts["gpu_8x_v100"].price.amount == Decimal("4.40")
    assert facts["gpu_4x_a6000"].instance.gpu.name == "RTXA6000"  # type: ignore[union-attr]
    assert facts["gpu_1x_rtx6000"].instance.gpu.name == "RTX6000"  # type: ignore[union-attr]
    assert facts["gpu_1x_a10"].instance.gpu.name == "A10"  # type: ignore[union-attr]
    assert facts["gpu_1x_a10"].price.amount == Decimal("0.75")


def test_search_h100_finds_lambda_prices(registry: Registry) -> None:

    result = search("H100", provider="lambda", engine=make_engine(registry), fetch="replay", region="us-east-1")
    prices = {o.instance_type: o.price.amount for o in result.offers}
    assert prices == {"gpu_1x_h100_pcie": Decimal("2.49"), "gpu_1x_h100_sxm5": Decimal("3.29"),
                      "gpu_2x_h100_sxm5": Decimal("6.38"), "gpu_4x_h100_sxm5": Decimal("12.36"),
                      "gpu_8x_h100_sxm5": Decimal("23.92")}


# --- live answers -------------------------------------------------------------------------------------------------
def test_live_request_is_authenticated_and_uses_base_url(serve: Callable[..., Served]) -> None:
    body = {"data": {"gpu_1x_a10": _entry("gpu_1x_a10", "1x A10 (24 GB PCIe)", 75,
                                          {"vcpus": 30, "memory_gib": 200, "storage_gib": 1400, "gpus": 1},
                                          ["us-east-1"], "A10 (24 GB PCIe)")}}
    offers, status, transport = serve(body, environ={"LAMBDA_API_KEY": "secret-123",
                                                     "GPUHUB_LAMBDA_BASE_URL": "http://127.0.0.1:9/"})
    assert status.state == "ok", status.line()
    [request] = transport.requests
    assert str(request.url) == "http://127.0.0.1:9/api/v1/instance-types"
    assert request.method == "GET" and request.headers["authorization"] == "Bearer secret-123"
    assert all(o.source.mode == "live" for o in offers)
    assert offers[0].instance.storage_gib == 1400


def test_default_base_url() -> None:
    assert LambdaProvider.base_url == "https://cloud.lambdalabs.com"
    assert LambdaProvider.min_request_interval_s == 1.0


def test_capacity_marks_available_and_sold_out_stays_visible(serve: Callable[..., Served]) -> None:
    body = {"data": {
        "gpu_8x_h100_sxm5": _entry("gpu_8x_h100_sxm5", "8x H100 (80 GB SXM5)", 2392,
                                   {"vcpus": 208, "memory_gib": 1800, "gpus": 8}, ["us-east-1", "us-west-3"],
                                   "H100 (80 GB SXM5)"),
        "gpu_1x_h100_pcie": _entry("gpu_1x_h100_pcie", "1x H100 (80 GB PCIe)", 249,
                                   {"vcpus": 26, "memory_gib": 200, "gpus": 1}, [], "H100 (80 GB PCIe)"),
    }}
    offers, status, _ = serve(body)
    assert status.state == "ok", status.line()
    h100 = _by_type(offers, "gpu_8x_h100_sxm5")
    assert len(h100) == CATALOG_REGIONS
    assert {o.region.code for o in h100 if o.available} == {"us-east-1", "us-west-3"}
    assert sum(o.available is False for o in h100) == CATALOG_REGIONS - 2
    sold_out = _by_type(offers, "gpu_1x_h100_pcie")
    assert len(sold_out) == CATALOG_REGIONS and {o.available for o in sold_out} == {False}
    assert {o.price.amount for o in sold_out} == {Decimal("2.49")}


def test_capacity_in_a_region_outside_the_catalog_is_offered(serve: Callable[..., Served]) -> None:
    body = {"data": {"gpu_1x_new": _entry("gpu_1x_new", "1x H200 (141 GB SXM5)", 399,
                                          {"vcpus": 44, "memory_gib": 225, "gpus": 1}, ["us-midwest-2"])}}
    offers, status, _ = serve(body)
    assert status.state == "ok"
    assert {o.region.code for o in offers if o.available} == {"us-midwest-2"}
    assert len(offers) == CATALOG_REGIONS + 1  # unknown type: every catalog region, plus the one with capacity
    assert offers[0].instance.gpu is not None and offers[0].instance.gpu.name == "H200"


def test_sold_regions_from_catalog() -> None:
    assert len(sold_regions("gpu_8x_h100_sxm5")) == CATALOG_REGIONS
    assert "me-west-1" in sold_regions("gpu_1x_gh200")
    assert len(sold_regions("gpu_1x_brand_new")) == CATALOG_REGIONS


def test_malformed_records_are_skipped_and_counted(serve: Callable[..., Served]) -> None:
    good = _entry("gpu_1x_a10", "1x A10 (24 GB PCIe)", 75, {"vcpus": 30, "memory_gib": 200, "gpus": 1},
                  ["us-east-1"])
    body = {"data": {
        "gpu_1x_a10": good,
        "broken": "not an object",
        "no_price": {"instance_type": {"name": "no_price", "description": "1x A10 (24 GB)"}},
        "bad_price": _entry("bad_price", "1x A10 (24 GB)", "call us", {"gpus": 1}, []),
        "zero": _entry("zero", "1x A10 (24 GB)", 0, {"gpus": 1}, ["us-east-1"]),
        "cpu_4x_general": _entry("cpu_4x_general", "4x CPU General", 20, {"vcpus": 4, "memory_gib": 16,
                                                                          "gpus": 0}, ["us-east-1"]),
    }}
    offers, status, _ = serve(body)
    assert status.state == "ok", status.line()
    assert {o.instance_type for o in offers} == {"gpu_1x_a10"}
    assert status.skipped_records == 5, status.skipped_reasons
    assert status.skipped_reasons["zero price (placeholder)"] == 1
    assert status.skipped_reasons["CPU-only instance type (no GPU)"] == 1


def test_unknown_gpu_is_kept_and_counted(serve: Callable[..., Served]) -> None:
    body = {"data": {"gpu_2x_mystery": _entry("gpu_2x_mystery", "2x Mystery X9 (64 GB)", 300,
                                              {"vcpus": 16, "memory_gib": 128, "gpus": 2}, ["us-east-1"])}}
    offers, status, _ = serve(body)
    assert status.unknown_gpus == {"Mystery X9 (64 GB)": 1}
    gpu = offers[0].instance.gpu
    assert gpu is not None and not gpu.known and gpu.memory_gib == Decimal(64)
    assert offers[0].price.amount == Decimal("3.00")


@pytest.mark.parametrize("body", [{"instances": []}, {"data": ["gpu_1x_a10"]}, [], "just text"])
def test_unexpected_answer_shape_fails_not_empty(serve: Callable[..., Served], body: Any) -> None:
    offers, status, _ = serve(body)
    assert status.state == "failed" and offers == ()
    assert "unexpected /instance-types answer" in (status.reason or ""), status.line()


def test_html_answer_fails(serve: Callable[..., Served]) -> None:
    offers, status, _ = serve(b"<html>maintenance</html>")
    assert offers == ()
    assert status.state == "failed" and "did not return JSON" in (status.reason or "")


# --- errors -------------------------------------------------------------------------------------------------------
def test_invalid_key_names_code_and_how_to_set_it(serve: Callable[..., Served],
                                                  reference: Callable[..., Path]) -> None:
    body = reference("provider-samples", "lambda",
                     "error.401-global-invalid-api-key.openapi-1.4.0-doc-example.json").read_bytes()
    offers, status, transport = serve(body, status=401)
    assert status.state == "failed" and offers == ()
    reason = status.reason or ""
    assert "global/invalid-api-key" in reason and "LAMBDA_API_KEY" in reason, reason
    assert transport.calls == 1  # a rejected key is not retried


def test_missing_key_says_how_to_set_it(serve: Callable[..., Served]) -> None:
    offers, status, transport = serve({"data": {}}, environ={})
    assert offers == ()
    assert status.state == "failed" and "LAMBDA_API_KEY" in (status.reason or "")
    assert transport.calls == 0


@pytest.mark.parametrize(("http", "code"), [(400, "global/invalid-parameters"),
                                            (404, "global/object-does-not-exist"),
                                            (403, "global/account-inactive")])
def test_error_answers_name_the_code(serve: Callable[..., Served], http: int, code: str) -> None:
    offers, status, _ = serve({"error": {"code": code, "message": "Something.", "suggestion": "Do a thing."}},
                              status=http)
    assert status.state == "failed" and offers == ()
    assert code in (status.reason or ""), status.line()


def test_transient_provider_error_is_retried_then_named(serve: Callable[..., Served],
                                                        reference: Callable[..., Path]) -> None:
    body = reference("provider-samples", "lambda",
                     "error.provider-internal-unavailable.api-overview-doc-example.json").read_bytes()
    started = time.monotonic()
    offers, status, transport = serve(body, status=503)
    elapsed = time.monotonic() - started
    assert status.state == "failed" and offers == ()
    reason = status.reason or ""
    assert "503" in reason and "provider/internal-unavailable" in reason, reason
    assert transport.calls == 3
    assert elapsed >= 1.9  # three attempts, at least one second apart (Lambda's rate limit)


def test_error_in_a_200_answer_is_a_failure(serve: Callable[..., Served]) -> None:
    offers, status, _ = serve({"error": {"code": "global/unknown", "message": "Unknown error."}})
    assert offers == ()
    assert status.state == "failed" and "global/unknown" in (status.reason or "")


# --- rate limit ---------------------------------------------------------------------------------------------------
def test_requests_are_at_least_one_second_apart(registry: Registry) -> None:
    transport = CountingTransport(lambda request, n: httpx.Response(200, json={"data": {}}))
    times: list[float] = []
    original = transport.handler
    transport.handler = lambda request, n: (times.append(time.monotonic()), original(request, n))[1]
    ctx = ProviderContext(LambdaProvider(), httpx.Client(transport=transport), mode="live",
                          source=Source(mode="live"), gpus=registry.gpus, environ={"LAMBDA_API_KEY": "k"})
    for _ in range(2):
        assert ctx.get_json("https://cloud.lambdalabs.com/api/v1/instance-types") == {"data": {}}
    assert times[1] - times[0] >= 0.95


def test_replay_mode_ignores_a_configured_key(registry: Registry) -> None:
    offers, status = run_provider(make_engine(registry, environ={"LAMBDA_API_KEY": "k"}), "lambda", mode="replay")
    assert status.state == "ok" and len(offers) == 340
    assert {o.source.mode for o in offers} == {"replay"}


# --- the official examples through the whole provider ----------------------------------------------------------------
def test_official_example_v1_10_end_to_end(serve: Callable[..., Served], reference: Callable[..., Path]) -> None:
    body = reference("provider-samples", "lambda", "instance-types.openapi-1.10.0-doc-example.json").read_bytes()
    offers, status, _ = serve(body)
    assert status.state == "ok", status.line()
    assert status.unknown_gpus == {"Example GPU (40 GB SXM4)": 1}
    assert len(offers) == CATALOG_REGIONS  # a type the catalog does not list: every catalog region
    assert {o.region.code for o in offers if o.available} == {"us-west-1"}
    assert {o.price.amount for o in offers} == {Decimal("15.92")}
    assert offers[0].instance.gpu_count == 8 and offers[0].instance.storage_gib == 6144


def test_official_example_v1_4_end_to_end(serve: Callable[..., Served], reference: Callable[..., Path]) -> None:
    body = reference("provider-samples", "lambda", "instance-types.openapi-1.4.0-doc-example.json").read_bytes()
    offers, status, _ = serve(body)
    assert status.state == "ok", status.line()
    a100 = _by_type(offers, "gpu_1x_a100")
    assert len(a100) == CATALOG_REGIONS + 1  # the catalog's regions plus the example's "us-tx-1"
    assert {o.region.code for o in a100 if o.available} == {"us-tx-1"}
    assert {o.price.amount for o in a100} == {Decimal("0.80")}
    a6000 = _by_type(offers, "gpu_4x_a6000")
    assert {o.region.code for o in a6000 if o.available} == {"us-az-1"}
    assert a6000[0].price.amount == Decimal("1.10") and a6000[0].instance.gpu_count == 4


def test_storage_of_the_official_examples_is_sourced(serve: Callable[..., Served],
                                                     reference: Callable[..., Path]) -> None:
    """Issue 28: ``specs.storage_gib`` is the instance's storage, with its source (6,144 GiB for the v1.10 example,
    512 GiB for both v1.4 examples); Lambda's API names no network bandwidth or fabric, so those stay unknown."""
    v110, _, _ = serve(reference("provider-samples", "lambda", "instance-types.openapi-1.10.0-doc-example.json")
                       .read_bytes())
    v14, _, _ = serve(reference("provider-samples", "lambda", "instance-types.openapi-1.4.0-doc-example.json")
                      .read_bytes())
    example = v110[0].instance
    a100, a6000 = _by_type(v14, "gpu_1x_a100")[0].instance, _by_type(v14, "gpu_4x_a6000")[0].instance
    assert (example.storage_gib, a100.storage_gib, a6000.storage_gib) == (6144, 512, 512)
    assert {example.network_source, a100.network_source} == {
        "Lambda Cloud API instance-types: specs.storage_gib (the instance's local storage, GiB); the API names no "
        "network bandwidth or fabric"}
    assert (example.network_gbps, example.fabric, example.fabric_gbps) == (None, None, None)


def test_the_recording_takes_local_ssd_from_the_instances_page(replayed: Any) -> None:
    """Issue 28: the recording (SkyPilot's file) has no ``storage_gib``; where its vCPUs and RAM are the instances
    page's plan (lambda.ai/instances, transcribed 2026-09-20), the page's SSD size is the offer's local disk, with
    the plan named as its source. Three facts per family: vCPUs per GPU, RAM per GPU, local SSD."""
    facts = {o.instance_type: o.instance for o in replayed[0]}
    h100 = facts["gpu_8x_h100_sxm5"]  # "208 vCPUs, 1800 GiB RAM, 22 TiB SSD"
    assert (h100.vcpus / h100.gpu_count, h100.memory_gib / h100.gpu_count) == (26, 225)  # type: ignore[operator]
    assert (h100.storage_gib, h100.storage_kind, h100.storage_disks) == (22 * 1024, "SSD", None)
    assert h100.network_source == (
        "Lambda instances page https://lambda.ai/instances (transcription of 2026-09-20, api-evangelist/lambda-labs "
        "plans/lambda-labs-plans-pricing.yml): 8x NVIDIA H100 SXM, 208 vCPUs, 1800 GiB RAM, 22 TiB SSD; the page "
        "names no network bandwidth or fabric")
    assert (h100.network_gbps, h100.fabric) == (None, None)
    sizes = {name: facts[name].storage_gib for name in (
        "gpu_8x_b200_sxm6", "gpu_8x_a100_80gb_sxm4", "gpu_8x_a100", "gpu_4x_h100_sxm5", "gpu_4x_a6000",
        "gpu_2x_b200_sxm6", "gpu_2x_h100_sxm5", "gpu_1x_gh200", "gpu_1x_h100_sxm5", "gpu_1x_rtx6000")}
    assert sizes == {"gpu_8x_b200_sxm6": 22528, "gpu_8x_a100_80gb_sxm4": 19.5 * 1024, "gpu_8x_a100": 5.8 * 1024,
                     "gpu_4x_h100_sxm5": 11264, "gpu_4x_a6000": 1024, "gpu_2x_b200_sxm6": 5.5 * 1024,
                     "gpu_2x_h100_sxm5": 5.5 * 1024, "gpu_1x_gh200": 4096, "gpu_1x_h100_sxm5": 2.75 * 1024,
                     "gpu_1x_rtx6000": 512}
    b200 = facts["gpu_8x_b200_sxm6"]
    assert (b200.vcpus, b200.memory_gib) == (208, 2900)
    # the page's plan differs from the recording's configuration: 88 vCPUs (recording 92), 225 and 226 GiB RAM
    # (recording 200): no size is claimed; types the page does not list (gpu_1x_a100, gpu_2x_a6000) have none
    for name in ("gpu_8x_v100", "gpu_1x_h100_pcie", "gpu_1x_a10", "gpu_1x_a100", "gpu_2x_a6000"):
        assert (facts[name].storage_gib, facts[name].network_source) == (None, None), name


def test_the_api_storage_wins_over_the_page(serve: Callable[..., Served]) -> None:
    """A live answer's ``specs.storage_gib`` (24,780 GiB, as Lambda's API gives it for 8x H100) is used as given,
    not the page's rounded 22 TiB."""
    body = {"data": {"gpu_8x_h100_sxm5": _entry("gpu_8x_h100_sxm5", "8x H100 (80 GB SXM5)", 2392,
                                                {"vcpus": 208, "memory_gib": 1800, "storage_gib": 24780, "gpus": 8},
                                                ["us-east-1"], "H100 (80 GB SXM5)")}}
    offers, status, _ = serve(body)
    assert status.state == "ok", status.line()
    assert (offers[0].instance.storage_gib, offers[0].instance.storage_kind) == (24780, None)
    assert offers[0].instance.network_source is not None
    assert offers[0].instance.network_source.startswith("Lambda Cloud API instance-types: specs.storage_gib")
