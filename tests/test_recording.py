from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest

from gpuhub import Engine, ReplayMissError
from gpuhub.fetch.recording import load_manifest
from gpuhub.fetch.transports import RecordingTransport, ReplayTransport
from gpuhub.kit.testing import CountingTransport, make_engine, run_provider

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "fakecloud"


def test_replay_matches_query_in_any_order_and_names_misses() -> None:
    transport = ReplayTransport(load_manifest(FIXTURES))
    client = httpx.Client(transport=transport)
    assert client.get("https://api.fakecloud.example/v1/offers", params={"page": 2}).json()["next_page"] is None
    with pytest.raises(ReplayMissError, match=r"GET https://api.fakecloud.example/v1/offers\?page=3") as info:
        client.get("https://api.fakecloud.example/v1/offers?page=3&key=SECRET")
    assert "SECRET" not in str(info.value) and "gpuhub record fakecloud" in str(info.value)


def test_manifest_carries_provenance() -> None:
    manifest = load_manifest(FIXTURES)
    assert manifest.kind == "reconstructed" and manifest.recorded_at is not None
    assert manifest.recorded_at.isoformat() == "2026-11-30" and len(manifest.exchanges) == 2


def _live_pages(request: httpx.Request, n: int) -> httpx.Response:
    page = int(request.url.params["page"])
    body = (FIXTURES / f"page{page}.json").read_bytes()
    return httpx.Response(200, content=body, headers={"content-type": "application/json", "set-cookie": "sid=abc"})


def test_record_scrubs_secrets_and_replays(tmp_path: Path, engine: Engine) -> None:
    token = "tok-9f8e7d6c5b4a"
    live = make_engine(engine.registry, transport=CountingTransport(_live_pages), environ={"FAKECLOUD_TOKEN": token})
    offers, status = run_provider(live, "fakecloud", mode="record", record_dir=tmp_path)
    assert status.state == "ok" and len(offers) == 7
    written = list((tmp_path / "fakecloud").iterdir())
    assert {p.name for p in written} == {"manifest.json", "0001.json", "0002.json"}
    for path in written:
        text = path.read_text()
        assert token not in text and "sid=abc" not in text
        assert os.stat(path).st_mode & 0o077 == 0  # readable by the user only
    manifest = json.loads((tmp_path / "fakecloud" / "manifest.json").read_text())
    assert manifest["kind"] == "live-capture" and manifest["provider"] == "fakecloud"
    # The recording replays through the user's --fixtures directory, with the same offers.
    replayed, rstatus = run_provider(make_engine(engine.registry), "fakecloud", mode="auto", fixtures_dir=tmp_path)
    assert rstatus.state == "ok" and rstatus.source is not None and rstatus.source.startswith("replay:fakecloud@")
    assert sorted(o.price_per_hour for o in replayed) == sorted(o.price_per_hour for o in offers)


def test_recorder_scrubs_query_keys_signatures_and_bearer(tmp_path: Path) -> None:
    inner = httpx.MockTransport(lambda req: httpx.Response(200, json={"echo": "Bearer abc.def.ghi"}))
    recorder = RecordingTransport(inner, tmp_path, "x", source="test")
    recorder.add_secret("AKIAFAKEKEY123")
    client = httpx.Client(transport=recorder)
    client.get("https://api.example/v1/skus?key=AIzaSECRET&pageToken=2",
               headers={"Authorization": "Bearer abc.def.ghi", "X-Api-Key": "k-123"})
    client.post("https://ec2.example/", data={"Action": "DescribeSpotPriceHistory", "X-Amz-Signature": "deadbeef",
                                             "AWSAccessKeyId": "AKIAFAKEKEY123"})
    recorder.save()
    everything = "".join(p.read_text() for p in tmp_path.iterdir())
    for secret in ("AIzaSECRET", "abc.def.ghi", "k-123", "deadbeef", "AKIAFAKEKEY123"):
        assert secret not in everything
    manifest = load_manifest(tmp_path)
    assert manifest.exchanges[0]["request"]["url"] == "https://api.example/v1/skus?pageToken=2"
    # Scrubbed parameters never take part in matching: the recording replays with a different key.
    replay = httpx.Client(transport=ReplayTransport(manifest))
    assert replay.get("https://api.example/v1/skus?pageToken=2&key=OTHER").status_code == 200
    assert replay.post("https://ec2.example/", data={"X-Amz-Signature": "other", "AWSAccessKeyId": "x",
                                                     "Action": "DescribeSpotPriceHistory"}).status_code == 200


def test_recording_without_bundled_data_and_without_credentials_is_skipped(engine: Engine, tmp_path: Path) -> None:
    offers, status = run_provider(engine, "fakecloud", fixtures_dir=tmp_path)
    assert offers == () and status.state == "skipped" and "fakecloud/manifest.json" in (status.reason or "")
