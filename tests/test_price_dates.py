"""Issue 26: a date on every price (per offer, from the row, SKU or answer it came from), the range on the status
line, kept through the store, ``--max-age`` per offer date, and the OUTDATED flag of a provider whose newest price
is older than a few of its declared price-change periods."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path

import pytest

import gpuhub
from gpuhub import Instance, Offer, Price, Provider, ProviderContext, Registry, hookimpl
from gpuhub.fetch.provider import STALE_PERIODS, ProviderStatus, outdated_text
from gpuhub.kit.testing import make_engine, run_cli, run_provider
from gpuhub.store import open_store

TODAY = dt.datetime.now(dt.timezone.utc).date()
RECENT, OLD = TODAY - dt.timedelta(days=10), TODAY - dt.timedelta(days=40)


class Dated(Provider):
    """A replayed recording (undated as a whole) of three L4 offers: one priced 10 days ago, one 40 days ago, one
    undated; prices change daily. (Replayed: a live answer's price without a date of its own is of the fetch day.)"""

    name = "dated"
    kind = "specialist"
    price_change_period_s = 86400.0

    def __init__(self, recording: Path) -> None:
        self.recording = recording

    def fixtures_dir(self) -> Path:
        return self.recording

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        inst = Instance(provider="dated", instance_type="l4.1", gpu=ctx.gpu("L4"), gpu_count=1)
        for region, amount, when in (("r-recent", "0.80", RECENT), ("r-old", "0.70", OLD), ("r-undated", "0.60", None)):
            yield Offer(instance=inst, region=ctx.region(region), source=ctx.source,
                        price=Price(amount=Decimal(amount), currency="USD", purchase="on_demand", data_date=when))


class _Plugin:
    def __init__(self, recording: Path) -> None:
        self.recording = recording

    @hookimpl
    def register_providers(self, register: Callable[[Provider], None]) -> None:
        register(Dated(self.recording))


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    where = tmp_path / "recording"
    where.mkdir()
    (where / "manifest.json").write_text(json.dumps({
        "format": 1, "provider": "dated", "recorded_at": TODAY.isoformat(), "kind": "reconstructed",
        "data_date": None, "data_date_note": "dated per price", "source": "hand-built", "exchanges": []}))
    return where


def _registry(recording: Path) -> Registry:
    return Registry(entry_points=[], extra_plugins=[("dated", _Plugin(recording))])


def test_each_offer_keeps_its_own_date_through_the_store(tmp_path: Path, recording: Path) -> None:
    store = open_store(str(tmp_path))
    first, status = run_provider(make_engine(_registry(recording), store=store), "dated")
    assert {o.region.code: o.data_date for o in first} == {"r-recent": RECENT, "r-old": OLD, "r-undated": None}
    assert (status.data_date, status.oldest_data_date, status.undated_offers) == (RECENT, OLD, 1)
    assert f"prices of {OLD.isoformat()} … {RECENT.isoformat()} (newest 10 days old), 1 undated" in status.line()
    engine = make_engine(_registry(recording), store=open_store(str(tmp_path)))
    warm, stored = run_provider(engine, "dated")
    assert engine.fetch_count == {}  # served from the store
    assert {o.region.code: o.data_date for o in warm} == {"r-recent": RECENT, "r-old": OLD, "r-undated": None}
    assert (stored.data_date, stored.oldest_data_date, stored.undated_offers) == (RECENT, OLD, 1)
    record = next(o for o in warm if o.region.code == "r-old").to_record()
    assert (record["data_date"], record["source"]) == (OLD.isoformat(), f"replay:dated@{OLD.isoformat()}")


def test_a_provider_older_than_its_periods_is_flagged_on_the_status_line_and_in_store_show(tmp_path: Path,
                                                                                           recording: Path) -> None:
    store_dir = tmp_path / "store"
    run_provider(make_engine(_registry(recording), store=open_store(str(store_dir))), "dated")
    _, status = run_provider(make_engine(_registry(recording), store=open_store(str(store_dir))), "dated")
    # Newest price 10 days old; prices change daily, so more than 3 periods: flagged.
    flag = "OUTDATED: newest price 10 days old, over 3 × its 1-day price-change period"
    assert status.outdated() == flag and flag in status.line() and status.to_dict()["outdated"] == flag
    shown = run_cli(["store", "show", "--format", "json"], env={"GPUHUB_STORE": str(store_dir)})
    [row] = json.loads(shown.stdout)["snapshots"]
    assert (row["provider"], row["data_date"], row["outdated"]) == ("dated", RECENT.isoformat(), flag)


def test_the_flag_needs_more_than_the_declared_periods() -> None:
    day = 86400.0
    assert STALE_PERIODS == 3
    assert outdated_text(TODAY - dt.timedelta(days=3), day, TODAY) is None  # exactly 3 periods: not yet
    assert outdated_text(TODAY - dt.timedelta(days=4), day, TODAY) == (
        "OUTDATED: newest price 4 days old, over 3 × its 1-day price-change period")
    assert outdated_text(None, day, TODAY) is None  # undated: nothing to judge
    fresh = ProviderStatus("p", "ok", data_date=TODAY, price_change_period_s=3600.0)
    assert fresh.outdated(TODAY) is None and "OUTDATED" not in fresh.line()


def test_max_age_applies_to_each_offer_date(recording: Path) -> None:
    engine = make_engine(_registry(recording))
    try:
        result = gpuhub.search(engine=engine, max_age=30 * 86400)
        assert [o.region.code for o in result] == ["r-recent"]  # 40 days old and undated: left out
        assert result.removed_by["max_age"] == 2
        everything = gpuhub.search(engine=engine)
        assert len(everything) == 3 and "max_age" not in everything.removed_by
    finally:
        engine.shutdown()


# --- the bundled data: one offer per source kind and provider ----------------------------------------------------

@pytest.fixture(scope="module")
def bundled() -> Iterator[dict[str, tuple[tuple[Offer, ...], ProviderStatus]]]:
    engine = make_engine(Registry())
    try:
        yield {name: run_provider(engine, name, mode="replay")
               for name in ("gcp", "azure", "aws", "lambda", "coreweave", "kubernetes")}
    finally:
        engine.shutdown()


def _one(offers: tuple[Offer, ...], itype: str, region: str, purchase: str) -> Offer:
    [offer] = [o for o in offers if (o.instance_type, o.region.code, o.price.purchase) == (itype, region, purchase)]
    return offer


def test_gcp_offers_are_dated_by_their_own_skus(bundled: dict[str, tuple[tuple[Offer, ...], ProviderStatus]]) -> None:
    offers, status = bundled["gcp"]
    # Real Compute Engine SKUs of 2024-09-16: the H100 GPU of an A3 on-demand offer (its host SKUs are confirmed by
    # the newer catalog, but an offer is as old as its oldest part).
    a3 = _one(offers, "a3-highgpu-8g", "us-central1", "on_demand")
    assert a3.data_date == dt.date(2024, 9, 16) and a3.to_record()["source"] == "replay:gcp@2024-09-16"
    # A real 2023-03-24 A2 page (opencost) price that newer sources confirm carries the newer date: the Tesla A100
    # SKU also appears, same price, among the real SKUs of 2024-09-16.
    a2 = _one(offers, "a2-highgpu-1g", "us-central1", "on_demand")
    assert (a2.price.amount, a2.data_date) == (Decimal("3.6733850"), dt.date(2024, 9, 16))
    # DWS flex-start SKUs of a 2025-08-15 bill.
    flex = [o for o in offers if o.price.purchase == "flex_start"]
    assert len(flex) == 2 and {o.data_date for o in flex} == {dt.date(2025, 8, 15)}
    # A price from the SkyPilot catalog carries the catalog's date (2025-08-15: plugin README), never the
    # recording's; it names its source.
    catalog = _one(offers, "a2-ultragpu-1g", "us-east5", "spot")
    assert (catalog.data_date, catalog.to_record()["source"]) == (dt.date(2025, 8, 15), "replay:gcp@2025-08-15")
    assert catalog.price.data_origin == "SkyPilot GCP catalog v8 @8427bbf"
    dates = [o.data_date for o in offers if o.instance_type.startswith(("a2-", "a3-", "a4-"))]
    assert (dates.count(dt.date(2024, 9, 16)), dates.count(dt.date(2025, 8, 15)), dates.count(None)) == (150, 198, 0)
    assert (status.oldest_data_date, status.data_date, status.undated_offers) == (
        dt.date(2024, 9, 16), dt.date(2025, 8, 15), 0)
    assert "prices of 2024-09-16 … 2025-08-15 (newest " in status.line()


def test_gcp_newest_dated_source_wins_and_explain_says_what_it_replaced(tmp_path: Path) -> None:
    """Issue 26 item 1: the SkyPilot catalog's A3 spot price (newer) replaces the 2024-09-16 SKUs' one."""
    done = run_cli(["search", "--provider", "gcp", "--instance-type", "a3-highgpu-8g", "--region", "us-central1",
                    "--purchase", "spot", "--explain", "--format", "json", "--fetch", "replay"],
                   env={"GPUHUB_STORE": str(tmp_path / "store"), "GPUHUB_CACHE_DIR": str(tmp_path / "cache"),
                        "GPUHUB_PLUGINS": "gcp"})
    assert done.exit_code == 0, done.output
    [row] = json.loads(done.stdout)
    # host 2.75246 + H100:8 22.8008 in the catalog (../shared/reference/skypilot-catalog/gcp/vms.csv)
    assert round(Decimal(str(row["price_per_hour"])), 2) == Decimal("25.55")
    assert (row["data_date"], row["data_origin"]) == ("2025-08-15", "SkyPilot GCP catalog v8 @8427bbf")
    old = ("48.306672 USD of 2024-09-16 (Cloud Billing SKUs; A3 core 0.01402 USD of 2024-09-16 (SKU EEE5-1DA5-D9CF); "
           "A3 ram 0.001221 USD of 2024-09-16 (SKU F619-87C3-D3BA); GPU nvidia-h100-80gb 5.3881 USD of 2024-09-16 "
           "(SKU 7A6D-F74C-B0A3))")
    assert row["price_replaced"] == old
    assert f"price of 2025-08-15 (SkyPilot GCP catalog v8 @8427bbf; replaced {old})" in row["explanation"]


def test_azure_eu_offers_carry_2026_08_20_and_us_ones_no_date(
        bundled: dict[str, tuple[tuple[Offer, ...], ProviderStatus]]) -> None:
    offers, _ = bundled["azure"]
    eu = _one(offers, "Standard_ND96isr_H100_v5", "westeurope", "on_demand")
    assert (eu.price.amount, eu.data_date) == (Decimal("127.816"), dt.date(2026, 8, 20))
    assert _one(offers, "Standard_NC24ads_A100_v4", "eastus", "on_demand").data_date is None


def test_aws_offers_are_undated(bundled: dict[str, tuple[tuple[Offer, ...], ProviderStatus]]) -> None:
    offers, status = bundled["aws"]
    p5 = _one(offers, "p5.48xlarge", "us-east-1", "on_demand")
    assert (p5.price.amount, p5.data_date, p5.to_record()["source"]) == (Decimal("55.04"), None, "replay:aws@undated")
    # Only the capacity blocks at the published rates are dated (the pricing page of 2026-07-22).
    dated = {o.data_date for o in offers if o.data_date is not None}
    assert dated == {dt.date(2026, 7, 22)} and all(o.price.purchase == "capacity_block" for o in offers if o.data_date)
    assert (status.data_date, status.undated_offers) == (dt.date(2026, 7, 22), sum(o.data_date is None for o in offers))


def test_lambda_coreweave_and_kubernetes_dates_are_their_own(
        bundled: dict[str, tuple[tuple[Offer, ...], ProviderStatus]]) -> None:
    # Lambda: a SkyPilot catalog snapshot whose date nothing proves (lambda/vms.csv@95eaf48): undated, never the
    # recording's date.
    offers, status = bundled["lambda"]
    v100 = _one(offers, "gpu_8x_v100", "europe-central-1", "on_demand")
    assert (v100.price.amount, v100.data_date, v100.to_record()["source"]) == (
        Decimal("4.4"), None, "replay:lambda@undated")
    assert status.undated_offers == len(offers) == 340
    # CoreWeave: a static price table read from its pricing page on 2026-09-20.
    offers, status = bundled["coreweave"]
    gb200 = _one(offers, "GB200 NVL72 (4-GPU slice)", "US-EAST-01", "on_demand")
    assert (gb200.price.amount, gb200.data_date, gb200.to_record()["source"]) == (
        Decimal("42.00"), dt.date(2026, 9, 20), "static:coreweave@2026-09-20")
    # Kubernetes: the example clusters' recording of 2026-12-01.
    offers, _ = bundled["kubernetes"]
    dgx = _one(offers, "dgx-h100", "gpu-east", "on_demand")
    assert (dgx.data_date, dgx.to_record()["source"]) == (dt.date(2026, 12, 1), "replay:kubernetes@2026-12-01")
