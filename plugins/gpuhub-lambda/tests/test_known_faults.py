"""Known faults from ../shared/cases/known-faults.md that gpuhub-lambda must not have.

C06: Lambda's ``gpu_8x_a100_80gb_sxm4`` was catalogued as a 40 GB A100. The whole kind: a GPU's memory variant
taken from the wrong field (a per-model default, the instance type's name, a stale alias) instead of the GPU
description Lambda sends with the type.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx
import pytest

from gpuhub.plugin import CountingTransport, Offer, ProviderStatus, Registry, make_engine, search

Served = tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]

C06_INPUT: dict[str, Any] = {"data": {
    "gpu_8x_a100_80gb_sxm4": {"instance_type": {
        "name": "gpu_8x_a100_80gb_sxm4", "description": "8x A100 (80 GB SXM4)",
        "gpu_description": "A100 (80 GB SXM4)", "price_cents_per_hour": 1432,
        "specs": {"vcpus": 240, "memory_gib": 1800, "storage_gib": 20000, "gpus": 8}},
        "regions_with_capacity_available": [{"name": "us-east-1", "description": "Virginia, USA"}]},
    "gpu_1x_a100": {"instance_type": {
        "name": "gpu_1x_a100", "description": "1x A100 (40 GB PCIe)", "gpu_description": "A100 (40 GB PCIe)",
        "price_cents_per_hour": 129,
        "specs": {"vcpus": 30, "memory_gib": 200, "storage_gib": 512, "gpus": 1}},
        "regions_with_capacity_available": []}}}


def _one(offers: tuple[Offer, ...], instance_type: str) -> Offer:
    return next(o for o in offers if o.instance_type == instance_type)


def _single(name: str, description: str | None, gpu_description: str | None, gpus: int | None = 1) -> dict[str, Any]:
    instance: dict[str, Any] = {"name": name, "price_cents_per_hour": 100, "specs": {"vcpus": 8, "memory_gib": 64}}
    if description is not None:
        instance["description"] = description
    if gpu_description is not None:
        instance["gpu_description"] = gpu_description
    if gpus is not None:
        instance["specs"]["gpus"] = gpus
    return {"data": {name: {"instance_type": instance, "regions_with_capacity_available": []}}}


def test_c06_a100_80gb_is_not_a_40gb_a100(serve: Callable[..., Served]) -> None:
    offers, status, _ = serve(C06_INPUT)
    assert status.state == "ok", status.line()
    big = _one(offers, "gpu_8x_a100_80gb_sxm4")
    assert big.instance.gpu is not None
    assert big.instance.gpu.name == "A100-80GB" and big.instance.gpu.memory_gib == Decimal(80)
    assert big.instance.gpu.form_factor == "SXM"
    assert big.instance.gpu_count == 8 and big.price.amount == Decimal("14.32")
    assert big.instance.gpu_memory_total_gib == 640
    small = _one(offers, "gpu_1x_a100")
    assert small.instance.gpu is not None
    assert small.instance.gpu.name == "A100" and small.instance.gpu.memory_gib == Decimal(40)
    assert small.instance.gpu.form_factor == "PCIe"
    assert small.instance.gpu_count == 1 and small.price.amount == Decimal("1.29")
    assert status.warnings == []


def test_c06_a100_80gb_query_returns_only_the_80gb_type(registry: Registry) -> None:


    transport = CountingTransport(lambda request, n: httpx.Response(200, content=json.dumps(C06_INPUT).encode(),
                                                                    headers={"content-type": "application/json"}))
    engine = make_engine(registry, transport=transport, environ={"LAMBDA_API_KEY": "k"})
    result = search("A100 80GB", provider="lambda", engine=engine, fetch="live")
    assert {o.instance_type for o in result.offers} == {"gpu_8x_a100_80gb_sxm4"}
    forty = search("A100", provider="lambda", engine=engine, fetch="live")
    assert {o.instance_type for o in forty.offers} == {"gpu_1x_a100"}


def test_c06_recording_a100_types_carry_their_described_memory(replayed: tuple[tuple[Offer, ...],
                                                                              ProviderStatus]) -> None:
    offers, _ = replayed
    names = {o.instance_type: o.instance.gpu.name for o in offers if o.instance.gpu}
    a100 = {t: n for t, n in names.items() if "a100" in t}
    assert a100 == {"gpu_8x_a100_80gb_sxm4": "A100-80GB", "gpu_8x_a100": "A100", "gpu_4x_a100": "A100",
                    "gpu_2x_a100": "A100", "gpu_1x_a100": "A100", "gpu_1x_a100_sxm4": "A100"}


@pytest.mark.parametrize(("body", "name", "memory"), [
    # the description wins over an instance-type name the GPU table knows as a 40 GB A100
    (_single("gpu_1x_a100_sxm4", "1x A100 (80 GB SXM4)", "A100 (80 GB SXM4)"), "A100-80GB", 80),
    # and over a name that says 80 GB when the description says 40 GB
    (_single("gpu_8x_a100_80gb_sxm4", "8x A100 (40 GB SXM4)", "A100 (40 GB SXM4)", 8), "A100", 40),
    # an old answer without gpu_description: the memory comes from the description
    (_single("gpu_8x_a100_80gb_sxm4", "8x A100 (80 GB SXM4)", None, None), "A100-80GB", 80),
    # other memory variants of one model
    (_single("gpu_8x_v100", "8x Tesla V100 (32 GB)", "Tesla V100 (32 GB)", 8), "V100-32GB", 32),
    (_single("gpu_8x_v100", "8x Tesla V100 (16 GB)", "Tesla V100 (16 GB)", 8), "V100", 16),
    (_single("gpu_1x_h100_nvl", "1x H100 (94 GB PCIe)", "H100 (94 GB PCIe)"), "H100-NVL", 94),
    (_single("gpu_1x_h100_pcie", "1x H100 (80 GB PCIe)", "H100 (80 GB PCIe)"), "H100", 80),
])
def test_c06_kind_memory_variant_comes_from_the_gpu_description(serve: Callable[..., Served], body: dict[str, Any],
                                                               name: str, memory: int) -> None:
    offers, status, _ = serve(body)
    assert status.state == "ok", status.line()
    gpu = offers[0].instance.gpu
    assert gpu is not None and gpu.known
    assert (gpu.name, gpu.memory_gib) == (name, Decimal(memory)), gpu


def test_c06_kind_memory_not_stated_is_flagged(serve: Callable[..., Served]) -> None:
    offers, status, _ = serve(_single("gpu_1x_a100", "1x A100", "A100"))
    gpu = offers[0].instance.gpu
    assert gpu is not None and gpu.name == "A100"
    assert any("GPU memory not stated" in w for w in status.warnings), status.warnings


def test_c06_kind_memory_that_disagrees_with_the_table_is_flagged(serve: Callable[..., Served]) -> None:
    # the v1.4.0 spec example calls gpu_1x_a100 "RTX A100 (24 GB)": no A100 has 24 GB
    offers, status, _ = serve(_single("gpu_1x_a100", "1x RTX A100 (24 GB)", None, None))
    assert offers[0].instance.gpu is not None and offers[0].instance.gpu.name == "A100"
    assert any("states 24 GB per GPU" in w for w in status.warnings), status.warnings
