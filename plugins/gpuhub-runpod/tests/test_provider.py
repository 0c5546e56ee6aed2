"""gpuhub-runpod: facts from the SkyPilot catalog's RunPod file, known fault C34, live mode equal to replay, and a
walk that breaks half-way."""

from __future__ import annotations

import ast
import csv
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from gpuhub_runpod.provider import CATALOG_QUERY, RunPodProvider

from gpuhub.plugin import Offer, ProviderStatus, ReplayTransport, load_manifest, network_facts

RECORDING = RunPodProvider().fixtures_dir()
"""The bundled recording."""

Replayed = tuple[tuple[Offer, ...], ProviderStatus]


def _pick(offers: tuple[Offer, ...], instance_type: str, region: str, purchase: str) -> Offer:
    [offer] = [o for o in offers if (o.instance_type, o.region.code, o.price.purchase) ==
               (instance_type, region, purchase)]
    return offer


def test_facts_from_the_catalog(replayed: Replayed) -> None:
    offers, status = replayed
    assert status.state == "ok" and status.source_kind == "reconstructed" and status.data_date is None
    a100 = _pick(offers, "1x_A100-PCIe_SECURE", "US", "on_demand")
    assert (a100.price.amount, a100.instance.gpu_count, a100.instance.vcpus, a100.instance.memory_gib) == \
        (Decimal("1.64"), 1, 8, 117)
    assert a100.instance.gpu is not None and (a100.instance.gpu.name, a100.instance.gpu.memory_gib) == \
        ("A100-80GB", 80)  # 'A100 PCIe' with memoryInGb 80 is the 80 GB card, never the 40 GB default
    assert (a100.region.country, a100.region.continent, a100.seller, a100.via) == ("US", "North America",
                                                                                  "runpod", None)
    spot = _pick(offers, "1x_A100-PCIe_SECURE", "US", "spot")
    assert spot.price.amount == Decimal("0.82") and "0.82 USD per GPU-hour" in (spot.price.basis or "")
    h100 = _pick(offers, "8x_H100-SXM_SECURE", "RO", "on_demand")
    assert (h100.price.amount, h100.price_per_gpu_hour, h100.instance.gpu_count) == (Decimal("21.52"),
                                                                                    Decimal("2.69"), 8)
    assert h100.instance.gpu is not None and h100.instance.gpu.name == "H100" and h100.region.country == "RO"
    nvl = _pick(offers, "1x_NVIDIA-H200-NVL_SECURE", "CA", "on_demand")
    assert nvl.instance.gpu is not None and nvl.instance.gpu.name == "H200-NVL"  # not the SXM H200
    assert (nvl.price.amount, nvl.instance.memory_gib) == (Decimal("3.39"), 283)
    assert not [o for o in offers if o.instance_type == "1x_NVIDIA-H200-NVL_SECURE" and o.price.purchase == "spot"]
    assert "RTX4090" in {o.instance.gpu.name for o in offers if o.instance.gpu is not None}


def test_every_catalog_row_in_every_country(replayed: Replayed, digest: Path) -> None:
    offers, _ = replayed
    index = {(o.instance.gpu_count, o.instance.vcpus, o.instance.memory_gib, o.region.code, o.price.purchase,
              o.price.amount) for o in offers}
    with digest.open(newline="", encoding="utf-8") as file:
        rows = [r for r in csv.DictReader(file) if r["AcceleratorName"]]
    for row in rows:
        count = int(float(row["AcceleratorCount"]))
        for pair in row["Regions"].split(";"):
            country = pair.split("/")[0]
            for purchase, column in (("on_demand", "Price"), ("spot", "SpotPrice")):
                if row[column]:
                    assert (count, float(row["vCPUs"]), float(row["MemoryGiB"]), country, purchase,
                            Decimal(row[column])) in index, (row["InstanceType"], country, purchase)
    assert ast.literal_eval(rows[0]["GpuInfo"])["Gpus"][0]["Name"] == "A100 PCIe"


def _c34_server(null_stock: bool = False) -> Callable[[httpx.Request, int], httpx.Response]:
    """Known fault C34's input: an A40 at 0.44 (secure) / 0.35 (community) per GPU, a minimum bid of 0.2 per GPU,
    sold up to 2 GPUs, plus an L4 whose stockStatus is null."""

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        body = json.loads(request.content)
        if body["query"] == CATALOG_QUERY:
            data: dict[str, Any] = {"countryCodes": ["CA"], "dataCenters": [{"id": "US-TX-3", "listed": True}],
                                    "gpuTypes": [
                                        {"id": "NVIDIA A40", "displayName": "A40", "memoryInGb": 48,
                                         "maxGpuCount": 2, "secureCloud": True, "communityCloud": True,
                                         "securePrice": 0.44, "communityPrice": 0.35},
                                        {"id": "NVIDIA L4", "displayName": "L4", "memoryInGb": 24,
                                         "maxGpuCount": 1, "secureCloud": True, "communityCloud": False,
                                         "securePrice": 0.43, "communityPrice": None}]}
        else:
            count = body["variables"]["lowestPriceInput"]["gpuCount"]
            data = {"gpuTypes": [
                {"id": "NVIDIA A40", "lowestPrice": {"minimumBidPrice": 0.2, "uninterruptablePrice": 0.35,
                                                     "minVcpu": 9 * count, "minMemory": 50 * count,
                                                     "stockStatus": "High"}},
                {"id": "NVIDIA L4", "lowestPrice": {"minimumBidPrice": 0.2, "uninterruptablePrice": 0.43,
                                                    "minVcpu": 4, "minMemory": 20,
                                                    "stockStatus": None if null_stock else "Low"}}]}
        return httpx.Response(200, json={"data": data})

    return handler


def test_c34_secure_and_community_apart_and_the_bid_per_gpu(live: Callable[..., Any]) -> None:
    offers, status, _ = live(_c34_server(null_stock=True))
    assert status.state == "ok", status.line()
    two = {(o.instance_type, o.region.code, o.price.purchase): o.price for o in offers if o.instance.gpu_count == 2}
    assert two[("2x_NVIDIA-A40_SECURE", "US", "on_demand")].amount == Decimal("0.88")
    assert two[("2x_NVIDIA-A40_COMMUNITY", "CA", "on_demand")].amount == Decimal("0.70")
    spot = two[("2x_NVIDIA-A40_SECURE", "US", "spot")]
    assert spot.amount == Decimal("0.40") and spot.basis == "minimum bid 0.2 USD per GPU-hour x 2 (RunPod bids per GPU)"
    assert not [o for o in offers if o.instance.gpu is not None and o.instance.gpu.name == "L4"]
    assert status.skipped_reasons == {"no stock status for this GPU count (not offered now)": 1}


def _replay() -> ReplayTransport:
    return ReplayTransport(load_manifest(RECORDING))


def _key(offer: Offer) -> tuple[Any, ...]:
    return (offer.instance, offer.region, offer.price)


def test_live_gives_the_offers_of_replay(live: Callable[..., Any], replayed: Replayed) -> None:
    replay = _replay()
    offers, status, transport = live(lambda request, n: replay.handle_request(request), environ={})
    assert status.state == "ok" and status.mode == "live", status.line()
    assert [_key(o) for o in offers] == [_key(o) for o in replayed[0]]
    assert transport.calls == 13  # the catalog, then one price query per GPU count 1..12
    assert any("RUNPOD_API_KEY is not set" in w for w in status.warnings)


@pytest.mark.parametrize("fault", ["500", "graphql-error", "truncated", "no-data"])
def test_a_walk_broken_half_way_publishes_nothing(live: Callable[..., Any], fault: str) -> None:
    replay = _replay()

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        if b'"gpuCount":5' not in request.content:
            return replay.handle_request(request)
        if fault == "500":
            return httpx.Response(500, text="oops")
        if fault == "graphql-error":
            return httpx.Response(200, json={"errors": [{"message": "Something went wrong"}]})
        if fault == "truncated":
            return httpx.Response(200, content=b'{"data": {"gpuTypes": [{"id": "A4')
        return httpx.Response(200, json={"data": None})

    offers, status, _ = live(handler)
    assert status.state == "failed" and offers == (), status.line()


def test_network_and_storage_are_not_published(replayed: Any) -> None:
    """Issue 28: RunPod's GraphQL GPU types gives no network bandwidth, fabric or local disk (README):
    every offer leaves them unknown, with no source claimed."""
    offers = replayed[0]
    assert offers and [network_facts(o) for o in offers if network_facts(o)] == []
