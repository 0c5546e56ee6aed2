"""Verda offers: the bundled recording's facts to the cent, every reference row, live equal to replay, faults."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
from gpuhub_verda.provider import Verda

import gpuhub
from gpuhub.plugin import (
    CountingTransport,
    Offer,
    ProviderStatus,
    Registry,
    ReplayTransport,
    load_manifest,
    make_engine,
    network_facts,
    run_provider,
)

RECORDING = Verda().fixtures_dir()
"""The bundled recording."""

Replayed = tuple[tuple[Offer, ...], ProviderStatus]
CANONICAL = {"B300": "B300", "B200": "B200", "H200": "H200", "H100": "H100", "A100-80GB": "A100-80GB",
             "A100-40GB": "A100", "Tesla-V100": "V100", "RTX-PRO-6000": "RTXPRO6000", "L40S": "L40S",
             "RTX-6000-Ada": "RTX6000-Ada", "RTX-A6000": "RTXA6000"}
"""The catalog's GPU names (``A100-80GB-160GB`` is two 80 GB cards) -> gpuhub's canonical GPUs."""
LIVE_ENV = {"VERDA_CLIENT_ID": "test-id", "VERDA_CLIENT_SECRET": "test-secret"}


def _one(offers: tuple[Offer, ...], instance_type: str, region: str, purchase: str) -> Offer:
    found = [o for o in offers if (o.instance_type, o.region.code, o.price.purchase) == (instance_type, region,
                                                                                          purchase)]
    assert len(found) == 1, (instance_type, region, purchase, len(found))
    return found[0]


def test_bundled_facts(replayed: Replayed) -> None:
    offers, status = replayed
    b300 = _one(offers, "8B300.240V", "FIN-03", "on_demand")
    assert (b300.price.amount, b300.price.currency) == (Decimal("39.6"), "USD")
    assert b300.gpu_name == "B300" and b300.instance.gpu_count == 8
    assert (b300.instance.vcpus, b300.instance.memory_gib) == (240, 2200)
    assert _one(offers, "8B300.240V", "FIN-03", "spot").price.amount == Decimal("9.9")
    a6000 = _one(offers, "2A6000.20V", "FIN-01", "on_demand")  # C32: 96 GB is the total of two 48 GB cards
    assert (a6000.gpu_name, a6000.instance.gpu_memory_gib, a6000.instance.gpu_memory_total_gib) == (
        "RTXA6000", 48, 96)
    assert a6000.price.amount == Decimal("0.98") and not [o for o in offers if o.instance_type == "2A6000.20V"
                                                          and o.price.purchase == "spot"]
    a100 = _one(offers, "8A100.40S.176V", "FIN-03", "spot")
    assert (a100.gpu_name, a100.instance.gpu_memory_gib, a100.price.amount) == ("A100", 40, Decimal("1.73"))
    assert status.state == "ok" and len(offers) == 83 and status.source_kind == "reconstructed"
    assert all(o.available is None for o in offers)  # a reconstructed recording is no capacity snapshot


def test_every_reference_row_to_the_cent(replayed: Replayed, catalog_csv: Path) -> None:
    offers, _ = replayed
    with catalog_csv.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 45
    for row in rows:
        offer = _one(offers, row["InstanceType"], row["Region"], "on_demand")
        assert offer.price.amount == Decimal(row["Price"]), row
        assert offer.instance.gpu_count == float(row["AcceleratorCount"])
        assert (offer.instance.vcpus, offer.instance.memory_gib) == (float(row["vCPUs"]), float(row["MemoryGiB"]))
        assert offer.gpu_name == CANONICAL[row["AcceleratorName"].split("-160GB")[0].split("-320GB")[0]
                                           .split("-640GB")[0]], row
        if row["SpotPrice"]:
            assert _one(offers, row["InstanceType"], row["Region"], "spot").price.amount == Decimal(row["SpotPrice"])


def test_search_with_every_plugin_installed() -> None:
    result = gpuhub.search(gpu="H100", provider="verda", purchase="on_demand", engine=make_engine(Registry()))
    direct = [o for o in result if o.provider == "verda"]  # --provider verda also finds Verda resold by others
    assert [(o.instance_type, o.price.amount, o.instance.gpu_count, o.instance.vcpus, o.region.code)
            for o in direct] == [("1H100.80S.30V", Decimal("1.99"), 1, 30, "FIN-03"),
                                 ("2H100.80S.80V", Decimal("3.98"), 2, 80, "FIN-03"),
                                 ("4H100.80S.176V", Decimal("7.96"), 4, 176, "FIN-03"),
                                 ("8H100.80S.176V", Decimal("15.92"), 8, 176, "FIN-03")]
    assert direct[0].region.country == "FI" and direct[0].seller == "verda"


def _replay_handler() -> Any:
    replay = ReplayTransport(load_manifest(RECORDING))
    return lambda request, n: replay.handle_request(request)


def test_live_sends_the_client_credentials_then_the_token(registry: Registry) -> None:
    """(Live equal to replay, 429/5xx/empty keeping the last good data: the conformance kit.)"""
    transport = CountingTransport(_replay_handler())
    offers, status = run_provider(make_engine(registry, transport=transport, environ=LIVE_ENV), "verda",
                                  mode="live")
    assert status.state == "ok" and status.mode == "live" and len(offers) == 83
    assert all(o.available is True for o in offers)  # live availability lists are capacity
    token, *rest = transport.requests
    assert token.method == "POST" and json.loads(token.content)["client_secret"] == "test-secret"
    assert {r.headers["authorization"] for r in rest} == {"Bearer REDACTED"}


def test_cpu_only_placeholder_and_unknown_location_are_skipped(registry: Registry) -> None:
    """The C32 input (2x RTX A6000, 96 GB total), a CPU node, a 0.00 placeholder and a display-name location."""
    types = [
        {"instance_type": "2A6000.20V", "gpu": {"description": "2x RTX A6000 48GB", "number_of_gpus": 2},
         "gpu_memory": {"description": "96GB GPU RAM", "size_in_gigabytes": 96}, "price_per_hour": "1.98",
         "spot_price": "0.70", "currency": "usd", "cpu": {"number_of_cores": 20},
         "memory": {"size_in_gigabytes": 120}},
        {"instance_type": "CPU.120V.480G", "gpu": {"description": "", "number_of_gpus": 0},
         "gpu_memory": {"size_in_gigabytes": 0}, "price_per_hour": "3.00", "spot_price": "1.50", "currency": "usd",
         "cpu": {"number_of_cores": 120}, "memory": {"size_in_gigabytes": 480}},
        {"instance_type": "1H100.80S.30V", "gpu": {"description": "1x H100 SXM5 80GB", "number_of_gpus": 1},
         "gpu_memory": {"size_in_gigabytes": 80}, "price_per_hour": "0.00", "spot_price": None, "currency": "usd",
         "cpu": {"number_of_cores": 30}, "memory": {"size_in_gigabytes": 120}},
    ]
    every = ["2A6000.20V", "CPU.120V.480G", "1H100.80S.30V"]
    availability = [{"location_code": "FIN-01", "availabilities": every},
                    {"location_code": "Finland 1", "availabilities": every}]

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        if request.url.path.endswith("/oauth2/token"):
            return httpx.Response(200, json={"access_token": "t"})
        return httpx.Response(200, json=types if request.url.path.endswith("/instance-types") else availability)

    offers, status = run_provider(make_engine(registry, transport=CountingTransport(handler), environ=LIVE_ENV),
                                  "verda", mode="live")
    assert [(o.instance_type, o.region.code, o.price.purchase, o.price.amount, o.instance.gpu_memory_gib)
            for o in offers] == [("2A6000.20V", "FIN-01", "on_demand", Decimal("1.98"), 48),
                                 ("2A6000.20V", "FIN-01", "spot", Decimal("0.70"), 48)]
    assert status.skipped_reasons == {
        "availability for a name that is not a Verda location code": 2, "CPU-only instance type (no GPU)": 1,
        "placeholder on_demand price (zero or negative)": 1,
        "spot availability of an instance type without its spot_price": 1,  # listed for spot, no spot price
        "instance type deployable nowhere (no location lists it)": 1}


def test_network_and_storage_are_not_published(replayed: Any) -> None:
    """Issue 28: Verda's instance-types API gives no network bandwidth, fabric or local disk (README):
    every offer leaves them unknown, with no source claimed."""
    offers = replayed[0]
    assert offers and [network_facts(o) for o in offers if network_facts(o)] == []
