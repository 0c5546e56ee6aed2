"""Provenance users see: source kind, the data's own date and age, warnings, partial catalogs (issue 13, item 5)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from gpuhub.fetch.provider import ProviderStatus
from gpuhub.fetch.recording import Manifest, load_manifest
from gpuhub.model import Source


def _manifest(tmp_path: Path, **fields: object) -> Manifest:
    data = {"format": 1, "provider": "x", "recorded_at": "2026-11-30", "kind": "reconstructed", "source": "s",
            "exchanges": [], **fields}
    (tmp_path / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    return load_manifest(tmp_path)


def test_manifest_data_date_is_the_prices_date_not_the_rebuild(tmp_path: Path) -> None:
    m = _manifest(tmp_path, data_date="2024-09-16", data_date_note="SKU effectiveTime")
    assert (m.recorded_at, m.data_date, m.data_date_known) == (dt.date(2026, 11, 30), dt.date(2024, 9, 16), True)
    assert m.to_json()["data_date"] == "2024-09-16" and m.to_json()["data_date_note"] == "SKU effectiveTime"


def test_manifest_without_data_date_falls_back_to_recorded_at(tmp_path: Path) -> None:
    m = _manifest(tmp_path)
    assert (m.data_date, m.data_date_known) == (dt.date(2026, 11, 30), True)
    assert "data_date" not in m.to_json()  # an old manifest is written back unchanged


def test_manifest_null_data_date_means_unknown(tmp_path: Path) -> None:
    m = _manifest(tmp_path, data_date=None, data_date_note="no commit date")
    assert (m.data_date, m.data_date_known) == (None, False)
    source = Source(mode="replay", recording="x", recorded_at=m.recorded_at, kind=m.kind, data_date=m.data_date,
                    data_date_known=m.data_date_known)
    assert source.date_of_data is None and source.label() == "replay:x@undated"
    assert source.source_kind == "reconstructed"


def test_source_kinds() -> None:
    assert Source(mode="live").source_kind == "live"
    assert Source(mode="replay", kind="live-capture").source_kind == "captured"
    assert Source(mode="replay", kind="reconstructed").source_kind == "reconstructed"
    assert Source(mode="static", kind="static price table").source_kind == "static"


def test_status_line_says_kind_date_age_warnings_and_partial() -> None:
    today = dt.datetime.now(dt.timezone.utc).date()
    status = ProviderStatus("gcp", "ok", offers=510, source_kind="reconstructed", data_date=dt.date(2024, 9, 16),
                            warnings=["a", "b"], partial_reasons={"machine types without a GPU price SKU": 12})
    age = (today - dt.date(2024, 9, 16)).days
    assert status.line().startswith(f"gcp: ok (partial: 1 reason), 510 offers (reconstructed recording, data of "
                                    f"2024-09-16 ({age} days old)), 2 warnings")
    record = status.to_dict()
    assert record["partial"] is True and record["data_age_days"] == age and record["source_kind"] == "reconstructed"
    unknown = ProviderStatus("aws", "ok", offers=3, source_kind="reconstructed", data_date_note="no commit date")
    assert "(reconstructed recording, data date unknown (no commit date))" in unknown.line()
    assert not unknown.partial and "partial" not in unknown.line()
    static = ProviderStatus("cw", "ok", offers=1, source_kind="static", data_date=today)
    assert "(static price table, data of " in static.line() and "(0 days old)" in static.line()
    assert ProviderStatus("l", "ok", source_kind="live").provenance() == "live"
