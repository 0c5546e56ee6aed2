"""GCP spot offers say that Google publishes no interruption rate (unknown, never zero), through the public API."""

from __future__ import annotations

import gpuhub
from gpuhub import Registry
from gpuhub.testing import make_engine


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
