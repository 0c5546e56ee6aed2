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
        yield {name: run_provider(engine, name, mode="replay") for name in ("gcp", "azure", "aws")}
    finally:
        engine.shutdown()


def _one(offers: tuple[Offer, ...], itype: str, region: str, purchase: str) -> Offer:
    [offer] = [o for o in offers if (o.instance_type, o.region.code, o.price.purchase) == (itype, region, purchase)]
    return offer


def test_gcp_offers_are_dated_by_their_own_skus(bundled: dict[str, tuple[tuple[Offer, ...], ProviderStatus]]) -> None:
    offers, status = bundled["gcp"]
    # Real Compute Engine SKUs of 2024-09-16 (A3 core/RAM and H100 GPU, all effectiveTime 2024-09-16).
    a3 = _one(offers, "a3-highgpu-8g", "us-central1", "on_demand")
    assert a3.data_date == dt.date(2024, 9, 16) and a3.to_record()["source"] == "replay:gcp@2024-09-16"
    # The real 2023-03-24 A2 page (opencost): A2 core/RAM and Tesla A100 of us-central1.
    assert _one(offers, "a2-highgpu-1g", "us-central1", "on_demand").data_date == dt.date(2023, 3, 24)
    # DWS flex-start SKUs of a 2025-08-15 bill.
    flex = [o for o in offers if o.price.purchase == "flex_start"]
    assert len(flex) == 2 and {o.data_date for o in flex} == {dt.date(2025, 8, 15)}
    # A SkyPilot-derived SKU (no effectiveTime) in the sum: undated, never the recording's date.
    undated = _one(offers, "a2-ultragpu-1g", "us-east5", "spot")
    assert (undated.data_date, undated.to_record()["source"]) == (None, "replay:gcp@undated")
    # The accelerator-optimized families (A2, A3, A4): 13 of 2023, 215 of 2024-09-16, 2 of 2025-08-15, 122 undated.
    dates = [o.data_date for o in offers if o.instance_type.startswith(("a2-", "a3-", "a4-"))]
    assert (dates.count(dt.date(2023, 3, 24)), dates.count(dt.date(2024, 9, 16)), dates.count(dt.date(2025, 8, 15)),
            dates.count(None)) == (13, 215, 2, 122)
    # G2 and N1 are priced from the undated SkyPilot rows only.
    assert {o.data_date for o in offers if o.instance_type.startswith(("g2-", "n1-"))} == {None}
    undated = sum(o.data_date is None for o in offers)
    assert (status.oldest_data_date, status.data_date, status.undated_offers) == (
        dt.date(2023, 3, 24), dt.date(2025, 8, 15), undated)
    assert "prices of 2023-03-24 … 2025-08-15 (newest " in status.line() and f"{undated} undated" in status.line()


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
