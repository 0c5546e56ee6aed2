"""Pure parsing rules of gpuhub-lambda (no HTTP): prices, GPU counts, GPU labels, errors, answer shape."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
from gpuhub_lambda.parse import (
    api_error,
    described_form_factor,
    described_memory_gb,
    gpu_count,
    gpu_label,
    instance_type_entries,
    parse_instance_type,
    price_usd_per_hour,
)


@pytest.mark.parametrize(("raw", "usd"), [
    (2392, "23.92"), ("249", "2.49"), (" 80 ", "0.80"), (129, "1.29"), ("12.5", "0.125"), (0, "0"),
])
def test_price_cents_to_usd_per_hour(raw: object, usd: str) -> None:
    assert price_usd_per_hour(raw) == Decimal(usd)


@pytest.mark.parametrize("raw", [None, True, "n/a", "", "-5", "NaN", "Infinity", [], {"usd": 1}])
def test_price_rejects_non_numbers(raw: object) -> None:
    with pytest.raises(ValueError):
        price_usd_per_hour(raw)


def test_gpu_count_prefers_specs_then_description_prefix() -> None:
    assert gpu_count({"gpus": 8}, "1x H100 (80 GB SXM5)") == 8
    assert gpu_count({"gpus": "2"}, None) == 2
    assert gpu_count({}, "4x RTX 6000 (24 GB)") == 4
    assert gpu_count({}, "16x H100 (80 GB SXM5)") == 16  # any number of digits
    assert gpu_count({"gpus": 0}, "4x CPU") == 0
    for specs, description in (({}, "H100 (80 GB)"), ({}, None), ({"gpus": 1.5}, None), ({"gpus": -1}, None),
                               ({"gpus": True}, None), ({"gpus": "many"}, None)):
        with pytest.raises(ValueError):
            gpu_count(specs, description)


def test_gpu_label_memory_and_form_factor() -> None:
    assert gpu_label({"gpu_description": "H100 (80 GB SXM5)", "description": "8x H100 (80 GB SXM5)"}) == \
        "H100 (80 GB SXM5)"
    assert gpu_label({"description": "8x Tesla V100 (16 GB)"}) == "Tesla V100 (16 GB)"
    assert gpu_label({"gpu_description": "", "description": "1x A10 (24 GB PCIe)"}) == "A10 (24 GB PCIe)"
    with pytest.raises(ValueError):
        gpu_label({"gpu_description": None})
    assert described_memory_gb("A100 (80 GB SXM4)") == 80
    assert described_memory_gb("B200 (180 GB SXM6)") == 180
    assert described_memory_gb("GH200 (96GB)") == 96
    assert described_memory_gb("A100") is None
    assert described_form_factor("H100 (80 GB SXM5)") == "SXM"
    assert described_form_factor("H100 (80 GB PCIe)") == "PCIe"
    assert described_form_factor("RTX A6000 (48 GB)") is None


def test_parse_instance_type_fields() -> None:
    parsed = parse_instance_type("gpu_8x_h100_sxm5", {
        "instance_type": {"name": "gpu_8x_h100_sxm5", "description": "8x H100 (80 GB SXM5)",
                          "gpu_description": "H100 (80 GB SXM5)", "price_cents_per_hour": 2392,
                          "specs": {"vcpus": 208, "memory_gib": 1800, "storage_gib": 24780, "gpus": 8}},
        "regions_with_capacity_available": [{"name": "us-east-1", "description": "Virginia, USA"},
                                            {"name": "us-east-1", "description": "Virginia, USA"}]})
    assert parsed.price_usd_per_hour == Decimal("23.92")
    assert (parsed.gpu_count, parsed.vcpus, parsed.memory_gib, parsed.storage_gib) == (8, 208, 1800, 24780)
    assert (parsed.gpu_label, parsed.gpu_memory_gb, parsed.form_factor) == ("H100 (80 GB SXM5)", 80, "SXM")
    assert parsed.capacity_regions == ("us-east-1",)


@pytest.mark.parametrize("entry", [
    "not an object",
    {"instance_type": "text"},
    {"no_instance_type": {}},
    {"instance_type": {"name": "x", "description": "1x A10 (24 GB)"}},  # no price
    {"instance_type": {"name": "x", "description": "1x A10 (24 GB)", "price_cents_per_hour": "free"}},
    {"instance_type": {"name": "x", "description": "A10 (24 GB)", "price_cents_per_hour": 75}},  # no count
    {"instance_type": {"name": "x", "description": "1x A10", "price_cents_per_hour": 75, "specs": []}},
    {"instance_type": {"name": "x", "description": "1x A10", "price_cents_per_hour": 75,
                       "specs": {"vcpus": "lots"}}},
    {"instance_type": {"name": "x", "description": "1x A10", "price_cents_per_hour": 75},
     "regions_with_capacity_available": "us-east-1"},
])
def test_malformed_entries_raise_the_errors_the_guard_counts(entry: object) -> None:
    with pytest.raises((KeyError, TypeError, ValueError)):
        parse_instance_type("x", entry)  # type: ignore[arg-type]


def test_answer_shape() -> None:
    assert instance_type_entries({"data": {}}) == []
    assert [k for k, _ in instance_type_entries({"data": {"a": {}, "b": {}}})] == ["a", "b"]
    for body in ({}, [], {"data": []}, {"data": None}, "text"):
        with pytest.raises(ValueError):
            instance_type_entries(body)


def test_api_error_shape() -> None:
    error = api_error(b'{"error": {"code": "global/unknown", "message": "Unknown error."}}')
    assert error is not None and error.code == "global/unknown" and error.describe() == \
        "global/unknown: Unknown error."
    assert api_error({"error": "invalid credentials"}) is None
    assert api_error({"data": {}}) is None
    assert api_error(b"<html>bad gateway</html>") is None
    assert api_error({"error": {"message": "no code"}}) is None


@pytest.mark.parametrize(("name", "code", "suggestion"), [
    ("error.400-global-invalid-parameters.openapi-1.10.0-doc-example.json", "global/invalid-parameters", ""),
    ("error.401-global-invalid-api-key.openapi-1.4.0-doc-example.json", "global/invalid-api-key",
     "Create a new API key and try again."),
    ("error.404-global-object-does-not-exist.openapi-1.10.0-doc-example.json", "global/object-does-not-exist", ""),
    ("error.global-quota-exceeded.openapi-1.10.0-doc-example.json", "global/quota-exceeded",
     "Contact Support to increase your quota."),
    ("error.provider-internal-unavailable.api-overview-doc-example.json", "provider/internal-unavailable",
     "Try again shortly"),
])
def test_official_error_examples(name: str, code: str, suggestion: str, reference: Callable[..., Path]) -> None:
    error = api_error(reference("provider-samples", "lambda", name).read_bytes())
    assert error is not None
    assert (error.code, error.suggestion) == (code, suggestion)
    assert error.message


def test_official_instance_types_example_v1_10(reference: Callable[..., Path]) -> None:
    body = json.loads(reference("provider-samples", "lambda",
                                "instance-types.openapi-1.10.0-doc-example.json").read_text())
    [(key, entry)] = instance_type_entries(body)
    parsed = parse_instance_type(key, entry)
    assert parsed.name == "gpu_8x_example"
    assert parsed.price_usd_per_hour == Decimal("15.92")
    assert (parsed.gpu_count, parsed.vcpus, parsed.memory_gib, parsed.storage_gib) == (8, 124, 1800, 6144)
    assert (parsed.gpu_label, parsed.gpu_memory_gb, parsed.form_factor) == ("Example GPU (40 GB SXM4)", 40, "SXM")
    assert parsed.capacity_regions == ("us-west-1",)


def test_official_instance_types_example_v1_4_string_prices_no_gpu_count(reference: Callable[..., Path]) -> None:
    body = json.loads(reference("provider-samples", "lambda",
                                "instance-types.openapi-1.4.0-doc-example.json").read_text())
    parsed = {key: parse_instance_type(key, entry) for key, entry in instance_type_entries(body)}
    assert parsed["gpu_1x_a100"].price_usd_per_hour == Decimal("0.80")  # "80" cents as a string
    assert parsed["gpu_4x_a6000"].price_usd_per_hour == Decimal("1.10")
    assert parsed["gpu_1x_a100"].gpu_count == 1  # no specs.gpus: from the "1x" prefix
    assert parsed["gpu_4x_a6000"].gpu_count == 4
    assert parsed["gpu_4x_a6000"].gpu_label == "RTX 6000 (24 GB)"  # no gpu_description: from the description
    assert parsed["gpu_1x_a100"].capacity_regions == ("us-tx-1",)
    assert parsed["gpu_4x_a6000"].vcpus == 24 and parsed["gpu_4x_a6000"].memory_gib == 800
