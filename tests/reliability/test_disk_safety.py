"""Disk safety: the on-disk cache of parsed recordings (gpuhub/diskcache.py) and recordings (gpuhub/recording.py)
are written atomically (a crash mid-write leaves the old file), readable by the user only, and a corrupt cache file
is discarded with a warning and never trusted (JSON only, validated; the recording is parsed again)."""

from __future__ import annotations

import logging
import os
import pickle
import stat
from pathlib import Path
from typing import Any

import pytest
from harness import LoopbackOnly, live_engine, live_env, offer_keys, serving
from provider_cases import BY_NAME

import gpuhub.recording
from gpuhub import Registry
from gpuhub.diskcache import DiskCache, seal, unseal
from gpuhub.testing import make_engine, run_provider

PROVIDER = "fakecloud"  # the core's own provider: its recording and parser do not change under us


def _replay(registry: Registry, cache_dir: Path) -> tuple[Any, Any]:
    engine = make_engine(registry, disk=DiskCache.from_environ({"GPUHUB_CACHE_DIR": str(cache_dir)}))
    try:
        return run_provider(engine, PROVIDER, mode="replay")
    finally:
        engine.shutdown()


def _cache_file(cache_dir: Path) -> Path:
    [path] = sorted((cache_dir / "parsed").glob(f"{PROVIDER}-*.json"))
    return path


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_cache_file_is_user_only_json_and_reused(rel_registry: Registry, tmp_path: Path) -> None:
    offers, status = _replay(rel_registry, tmp_path)
    assert status.state == "ok" and offers
    path = _cache_file(tmp_path)
    assert _mode(path) == 0o600, oct(_mode(path))
    assert _mode(path.parent) & 0o077 == 0, oct(_mode(path.parent))
    assert unseal(path.read_bytes())["provider"] == PROVIDER
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    again, status2 = _replay(rel_registry, tmp_path)  # a second process: served from the file
    assert offer_keys(again) == offer_keys(offers) and status2.skipped_records == status.skipped_records


def test_crash_mid_write_leaves_the_old_file(rel_registry: Registry, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             caplog: pytest.LogCaptureFixture) -> None:
    offers, _ = _replay(rel_registry, tmp_path)
    path = _cache_file(tmp_path)
    before = path.read_bytes()
    key = unseal(before)["key"]

    def crash(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(gpuhub.safeio.os, "replace", crash)
    caplog.set_level(logging.WARNING)
    DiskCache(tmp_path / "parsed").save(PROVIDER, key, list(offers[:1]), {"warnings": ["smaller"]})
    assert path.read_bytes() == before, "a failed write replaced the cache file"
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")], "temporary file left behind"
    assert any("could not write cache file" in r.getMessage() for r in caplog.records)

    # an interrupt (not an OSError) in the middle of writing: same guarantee for any atomic_write caller
    monkeypatch.undo()

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(gpuhub.safeio.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        gpuhub.recording.atomic_write(path, b"half a file")
    assert path.read_bytes() == before
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


CORRUPTIONS: dict[str, Any] = {
    "garbage": b"\x00\xff not json at all",
    "truncated": None,  # first half of the real file
    "pickle": pickle.dumps({"offers": [os.getcwd]}),
    "negative_price": lambda d: d["prices"][0].update(amount="-1.50"),
    "zero_price": lambda d: d["prices"][0].update(amount="0"),
    "other_provider": lambda d: d["instances"][0].update(provider="evilcloud"),
    "bad_index": lambda d: d["offers"][0].__setitem__(0, 10_000),
    "wrong_key": lambda d: d.update(key="0" * 32),
    "offers_not_rows": lambda d: d.update(offers={"a": 1}),
}


@pytest.mark.parametrize("kind", list(CORRUPTIONS))
def test_corrupt_cache_file_is_discarded_with_a_warning(kind: str, rel_registry: Registry, tmp_path: Path,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    offers, _ = _replay(rel_registry, tmp_path)
    path = _cache_file(tmp_path)
    good = path.read_bytes()
    corruption = CORRUPTIONS[kind]
    if isinstance(corruption, bytes):
        path.write_bytes(corruption)
    elif corruption is None:
        path.write_bytes(good[: len(good) // 2])
    else:
        data = unseal(good)
        corruption(data)
        path.write_bytes(seal(data["key"] if isinstance(data.get("key"), str) else "", data))
    caplog.set_level(logging.WARNING)
    again, status2 = _replay(rel_registry, tmp_path)
    assert status2.state == "ok", status2.line()
    assert offer_keys(again) == offer_keys(offers), "a corrupt cache was trusted"
    assert all(o.price.amount > 0 for o in again)
    assert any("discarding unusable cache file" in r.getMessage() for r in caplog.records), kind
    assert unseal(_cache_file(tmp_path).read_bytes())["key"] == unseal(good)["key"]  # parsed and rewritten


def test_corrupt_cache_report_is_discarded_too(rel_registry: Registry, tmp_path: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    offers, _ = _replay(rel_registry, tmp_path)
    path = _cache_file(tmp_path)
    data = unseal(path.read_bytes())
    data["report"]["skipped_records"] = "lots"
    path.write_bytes(seal(data["key"], data))  # a correct checksum: the report's own validation must catch it
    caplog.set_level(logging.WARNING)
    again, status = _replay(rel_registry, tmp_path)
    assert status.state == "ok", status.line()
    assert offer_keys(again) == offer_keys(offers)
    assert status.skipped_records != "lots"
    assert any("discarding unusable cache file" in r.getMessage() for r in caplog.records)


def test_recording_files_are_user_only_and_complete(rel_registry: Registry, tmp_path: Path,
                                                    transport: LoopbackOnly) -> None:
    """``gpuhub record``'s files: every one readable by the user only, no temporary file left behind."""
    case = BY_NAME["fakecloud"]
    with serving(rel_registry, case) as server:
        env = live_env(rel_registry, case, server)
        engine = live_engine(rel_registry, env, transport)
        try:
            [(offers, status)] = engine.collect([PROVIDER], mode="record", record_dir=tmp_path)
        finally:
            engine.shutdown()
    assert status.state == "ok", status.line()
    files = sorted(p for p in (tmp_path / PROVIDER).iterdir())
    assert [p.name for p in files] == ["0001.json", "0002.json", "manifest.json"]
    assert all(_mode(p) == 0o600 for p in files), {p.name: oct(_mode(p)) for p in files}
    manifest = gpuhub.recording.load_manifest(tmp_path / PROVIDER)
    assert [e["request"]["url"].split("?")[1] for e in manifest.exchanges] == ["page=1", "page=2"]
    # replayed with the same base URL setting it was recorded with (replay matches the host too)
    replayed = make_engine(rel_registry, environ={k: v for k, v in env.items() if k.startswith("GPUHUB_")})
    try:
        [(again, status2)] = replayed.collect([PROVIDER], fixtures_dir=tmp_path)
    finally:
        replayed.shutdown()
    assert status2.state == "ok" and offer_keys(again) == offer_keys(offers)
