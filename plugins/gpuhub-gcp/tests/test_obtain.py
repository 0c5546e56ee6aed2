"""GCP spot offers say that Google publishes no interruption rate (unknown, never zero); DWS flex-start SKUs become
flex_start offers; through the public API."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
from gpuhub_gcp.obtain import dws_purchase

import gpuhub
from gpuhub.plugin import Registry, make_engine


def test_gcp_spot_offers_say_no_rate_is_published_and_fail_an_interruption_bound() -> None:
    engine = make_engine(Registry())
    try:
        spot = gpuhub.search("H100", purchase="spot", provider="gcp", engine=engine, limit=None)
        assert len(spot) >= 10
        for record in spot.to_dicts():
            assert record["interruption"] == "not published" and record["interruption_max_pct"] is None
            assert record["risk_source"] == "gcp: no published rate"
        first = spot[0]
        assert first.obtain is not None and first.obtain.risk is not None
        assert "advice/capacityHistory" in (first.obtain.risk.note or "")
        bounded = gpuhub.search("H100", purchase="spot", provider="gcp", max_interruption=100, engine=engine)
        assert len(bounded) == 0 and bounded.removed_by["max_interruption"] == len(spot)
        on_demand = gpuhub.search("H100", purchase="on_demand", provider="gcp", engine=engine, limit=3)
        assert all(r["interruption"] is None for r in on_demand.to_dicts())
    finally:
        engine.shutdown()


SAMPLE = (Path(__file__).resolve().parents[3] / ".." / "shared" / "reference" / "obtainability" / "gcp"
          / "dws-flex-start-vs-ondemand-billing-skus.zenn-article-excerpt.md")


def test_dws_flex_start_a3_offer_sums_the_observed_bills_skus_and_leaves_on_demand_alone() -> None:
    engine = make_engine(Registry())
    try:
        found = gpuhub.search(instance_type="a3-highgpu-8g", region="us-central1", provider="gcp", engine=engine)
    finally:
        engine.shutdown()
    by = {o.price.purchase: o for o in found}
    flex = by["flex_start"]
    # 8 × 4.200761 (H100) + 208 × 0.010934 (A3 core) + 1872 × 0.000952 (A3 RAM) + 6000 × 0.0001096 (local SSD)
    assert flex.price.amount == Decimal("38.320104")
    assert flex.obtain is not None and flex.obtain.reservation is not None
    assert flex.obtain.reservation.duration_hours == 168 and flex.obtain.reservation.start is None
    assert by["on_demand"].price.amount == Decimal("87.832465656")  # the DWS SKUs never price on-demand
    assert "calendar" not in by  # no calendar-mode SKU is known: none invented


def test_the_real_bill_gives_the_same_flex_start_total() -> None:
    if not SAMPLE.is_file():
        pytest.skip("../shared is absent")
    rows = [line for line in SAMPLE.read_text(encoding="utf-8").splitlines()
            if "DWS Defined Duration" in line and "Compute Engine" in line]
    subtotal = sum(Decimal(re.findall(r"\$([0-9.]+)", line)[-1]) for line in rows)
    assert len(rows) == 4 and subtotal == Decimal("38.32003825")  # the bill rounds the SSD line to 0.65753425
    assert abs(subtotal - Decimal("38.320104")) < Decimal("0.0001")


def test_dws_purchase_reads_flex_start_and_calendar_names() -> None:
    assert dws_purchase("Nvidia H100 80GB GPU attached to DWS Defined Duration VMs running in Americas") == \
        "flex_start"
    assert dws_purchase("DWS Calendar Mode A3 Core running in Americas") == "calendar"
    assert dws_purchase("Nvidia H100 80GB GPU running in Americas") is None
