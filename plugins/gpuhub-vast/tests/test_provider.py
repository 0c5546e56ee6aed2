"""gpuhub-vast: facts from the SkyPilot catalog's Vast file (a summary of listings, C35), live listings (C33, C35,
the renter's share, storage and bids), live mode against the recording, and broken answers."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from gpuhub_vast.provider import VastProvider

from gpuhub.plugin import Offer, ProviderStatus, replaying

RECORDING = VastProvider().fixtures_dir()
"""The bundled recording."""

Replayed = tuple[tuple[Offer, ...], ProviderStatus]


def listing(**fields: Any) -> dict[str, Any]:
    """One listing in Vast's shape (an RTX 4090 host in Quebec unless overridden)."""
    base = {"id": 1, "gpu_name": "RTX 4090", "num_gpus": 1, "gpu_ram": 24564, "cpu_cores": 32,
            "cpu_cores_effective": 8, "cpu_ram": 131072, "disk_space": 200, "dph_base": 0.30, "min_bid": 0.12,
            "storage_cost": 0.15, "geolocation": "Quebec, CA", "reliability2": 0.9962, "verification": "verified"}
    return {**base, **fields}


def serve(answer: Any) -> Callable[[httpx.Request, int], httpx.Response]:
    return lambda request, n: httpx.Response(200, json=answer)


def test_facts_from_the_catalog(replayed: Replayed) -> None:
    offers, status = replayed
    assert status.state == "ok" and status.source_kind == "reconstructed"
    h200 = next(o for o in offers if o.instance_type == "1x-H200-3")
    assert (h200.price.amount, h200.price.purchase, h200.instance.gpu_count, h200.instance.vcpus,
            h200.instance.memory_gib) == (Decimal("2.82"), "on_demand", 1, 32, 64)
    assert h200.instance.gpu is not None and (h200.instance.gpu.name, h200.instance.gpu_memory_gib) == ("H200", 141)
    assert (h200.region.code, h200.region.country, h200.region.continent) == ("fr-france", "FR", "Europe")
    # C35: a summary of listings says so, never poses as one rentable listing
    assert all(o.price.listing_stat == "median" and o.available is None for o in offers)
    assert "not one listing" in (h200.instance.note or "")
    assert status.skipped_reasons == {"no min_bid (missing or zero placeholder)": 63}  # SpotPrice 0.00 throughout


def test_every_catalog_row(replayed: Replayed, catalog: Path) -> None:
    with catalog.open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    got = sorted((int(o.instance.gpu_count), o.price.amount, o.region.country or "", o.instance.vcpus,
                  o.instance.memory_gib) for o in replayed[0])
    want = sorted((int(r["AcceleratorCount"]), Decimal(r["Price"]), r["Region"].split(", ")[1], float(r["vCPUs"]),
                   float(r["MemoryGiB"])) for r in rows)
    assert got == want and len(got) == 63


def test_c33_explicit_limit_no_cuda_filter_and_possibly_truncated(live: Callable[..., Any]) -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, json={"offers": [listing(id=i, gpu_name="H200", gpu_ram=143771, dph_base=2.5 + i)
                                                    for i in range(3)]})

    offers, status, _ = live(handler, environ={"GPUHUB_VAST_LIMIT": "3"})
    assert seen == [{"limit": 3, "order": [["dph_total", "asc"]], "rentable": {"eq": True}, "rented": {"eq": False}}]
    assert not any("cuda" in key for key in seen[0])
    assert any("possibly truncated" in w for w in status.warnings), status.warnings
    assert {o.instance.gpu.name for o in offers if o.instance.gpu} == {"H200"}
    _, fewer, _ = live(serve({"offers": [listing()]}), environ={"GPUHUB_VAST_LIMIT": "3"})
    assert not any("possibly truncated" in w for w in fewer.warnings)
    _, bad, _ = live(serve({"offers": []}), environ={"GPUHUB_VAST_LIMIT": "many"})
    assert bad.state == "failed" and "GPUHUB_VAST_LIMIT" in (bad.reason or "")


def test_c35_live_listings_keep_their_own_prices(live: Callable[..., Any]) -> None:
    prices = [0.30, 0.35, 0.43, 0.50, 0.61]
    offers, status, _ = live(serve({"offers": [listing(id=i, dph_base=p, storage_cost=None, min_bid=None)
                                               for i, p in enumerate(prices)]}))
    assert status.state == "ok", status.line()
    assert sorted(o.price.amount for o in offers) == [Decimal(str(p)) for p in prices]
    assert all(o.price.listing_stat is None and o.available is True and o.available_count == 1 for o in offers)


def test_renters_share_storage_and_bid(live: Callable[..., Any]) -> None:
    offers, _, _ = live(serve({"offers": [listing()]}))
    prices = {o.price.purchase: o.price for o in offers}
    # 0.30 + 10 GB x 0.15 USD per GB-month / 720 h = 0.30 + 0.002083
    assert prices["on_demand"].amount == Decimal("0.302083") and prices["spot"].amount == Decimal("0.122083")
    assert prices["on_demand"].basis == "dph_base 0.3 USD/h + 10 GB storage at 0.15 USD per GB-month"
    offer = offers[0]
    assert (offer.instance.vcpus, offer.instance.memory_gib) == (8, 32)  # a quarter of a 32-core, 128 GiB host
    assert (offer.region.code, offer.region.country, offer.region.continent) == ("ca-quebec", "CA", "North America")
    assert offer.instance.note == "one Vast.ai host listing; reliability2 0.9962; verification verified"


def test_live_gives_the_listings_of_replay(live: Callable[..., Any], replayed: Replayed) -> None:
    offers, status, transport = live(replaying(RECORDING), environ={})
    assert status.state == "ok" and transport.calls == 1, status.line()

    def key(o: Offer) -> tuple[Any, ...]:
        return o.instance_type, o.region, o.price.amount, o.price.purchase, o.instance.gpu, o.instance.vcpus

    assert [key(o) for o in offers] == [key(o) for o in replayed[0]]
    assert all(o.price.listing_stat is None for o in offers)  # live answers are listings, the recording summaries


@pytest.mark.parametrize("body", [b'{"offers": [{"id": 1', b'{"offer": []}', b"[]", b"<html>busy</html>"])
def test_a_broken_answer_fails(live: Callable[..., Any], body: bytes) -> None:
    offers, status, _ = live(lambda request, n: httpx.Response(200, content=body))
    assert status.state == "failed" and offers == (), status.line()


def test_a_bad_listing_is_skipped_and_counted(live: Callable[..., Any]) -> None:
    offers, status, _ = live(serve({"offers": [listing(), listing(id=2, cpu_cores=None), listing(id=3, num_gpus="x"),
                                               {"id": 4}]}))
    assert {o.instance_type for o in offers} == {"1x-RTX-4090-1"}
    assert status.skipped_records == 3, status.skipped_reasons


def test_network_and_disk_are_the_hosts_measured_figures(live: Callable[..., Any], replayed: Replayed) -> None:
    """Issue 28: an A100 SXM4 host in Czechia as Vast's bundles search answered it (inet_down 950.4 Mbps,
    inet_up 953.6 Mbps, disk_space 299.7 GB): the download bandwidth is the offer's network_gbps, the disk its
    storage in GiB, and the source says the bandwidth is Vast's measurement of that host."""
    czech = listing(id=7, gpu_name="A100 SXM4", gpu_ram=81920, disk_space=299.7, inet_up=953.6, inet_down=950.4,
                    geolocation="Czechia, CZ")
    offers, _, _ = live(serve({"offers": [czech]}))
    inst = offers[0].instance
    assert (inst.network_gbps, inst.storage_gib, inst.fabric, inst.network_peak_gbps) == (0.9504, 279.1, None, None)
    assert inst.network_source is not None
    assert "measured download bandwidth (inet_down 950.4 Mbps, upload inet_up 953.6 Mbps" in inst.network_source
    assert "disk_space 299.7 GB" in inst.network_source
    # the reconstructed recording (SkyPilot's summaries) has no inet_* or disk_space: unknown stays unknown
    assert all(o.instance.network_gbps is None and o.instance.storage_gib is None
               and o.instance.network_source is None for o in replayed[0])
