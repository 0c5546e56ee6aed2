"""Disk safety: the offer store (gpuhub/store/, SQLite) and recordings (gpuhub/fetch/recording.py) are written
atomically (a failed write leaves the old snapshot or file), readable by the user only, and a corrupt store is set
aside with a warning and never trusted (NPY and JSON only, validated; the recording is parsed again)."""

from __future__ import annotations

import logging
import os
import pickle
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest
from harness import LoopbackOnly, live_engine, live_env, offer_keys, serving
from provider_cases import BY_NAME

import gpuhub.fetch.recording
import gpuhub.fetch.safeio
from gpuhub import Registry
from gpuhub.fetch.diskcache import DiskCache
from gpuhub.kit.testing import make_engine, run_provider
from gpuhub.store import SnapshotMeta, StoreError, open_store
from gpuhub.store.columns import ColumnBuilder

PROVIDER = "fakecloud"  # the core's own provider: its recording and parser do not change under us


def _replay(registry: Registry, cache_dir: Path) -> tuple[Any, Any]:
    engine = make_engine(registry, disk=DiskCache.from_environ({"GPUHUB_CACHE_DIR": str(cache_dir)}))
    try:
        return run_provider(engine, PROVIDER, mode="replay")
    finally:
        engine.shutdown()


def _store_file(cache_dir: Path) -> Path:
    path = cache_dir / "store" / "store.sqlite"
    assert path.is_file()
    return path


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_store_file_is_user_only_and_reused(rel_registry: Registry, tmp_path: Path) -> None:
    offers, status = _replay(rel_registry, tmp_path)
    assert status.state == "ok" and offers
    path = _store_file(tmp_path)
    assert _mode(path) == 0o600, oct(_mode(path))
    assert _mode(path.parent) & 0o077 == 0, oct(_mode(path.parent))
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT provider, complete FROM snapshot").fetchall() == [(PROVIDER, 1)]
        blobs = [bytes(b) for (b,) in db.execute("SELECT data FROM blob")]
    assert all(not b.startswith(b"\x80") for b in blobs), "a pickle in the store"  # NPY or JSON only
    again, status2 = _replay(rel_registry, tmp_path)  # a second process: served from the store
    assert offer_keys(again) == offer_keys(offers) and status2.skipped_records == status.skipped_records


def test_failed_write_leaves_the_old_snapshot(rel_registry: Registry, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    offers, _status = _replay(rel_registry, tmp_path)
    store = open_store(str(tmp_path / "store"))
    assert store is not None
    [before] = store.snapshots(PROVIDER)
    smaller = ColumnBuilder().extend(list(offers)[:1]).build()

    class FailingDisk:  # the connection, failing once the content is half written
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __getattr__(self, name: str) -> Any:
            return getattr(self.db, name)

        def execute(self, sql: str, *args: object) -> Any:
            if sql.startswith("INSERT INTO part"):  # the content's row and first blob are written by then
                raise sqlite3.OperationalError("disk I/O error")
            return self.db.execute(sql, *args)

    meta = SnapshotMeta(PROVIDER, before.fetched_at, None, "captured", {}, before.key, True, {}, ())
    shared = store._shared  # type: ignore[attr-defined]  # the process's one connection to the store
    monkeypatch.setattr(shared, "db", FailingDisk(shared.db))
    with pytest.raises(StoreError):
        store.put_snapshot(meta, smaller)
    monkeypatch.undo()
    assert store.snapshots(PROVIDER) == [before], "a failed write changed the store"
    assert len(store.read_columns(before)) == len(offers)

    # an interrupt (not an OSError) in the middle of writing a recording: atomic_write leaves the old file
    path = tmp_path / "file.json"
    path.write_bytes(b"old")

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(gpuhub.fetch.safeio.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        gpuhub.fetch.recording.atomic_write(path, b"half a file")
    assert path.read_bytes() == b"old"
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


CORRUPTIONS: dict[str, Any] = {
    "garbage": b"\x00\xff not a database at all" * 50,
    "truncated": None,  # first half of the real file
    "pickle": pickle.dumps({"offers": [os.getcwd]}),
}


@pytest.mark.parametrize("kind", list(CORRUPTIONS))
def test_corrupt_store_file_is_set_aside_with_a_warning(kind: str, rel_registry: Registry, tmp_path: Path,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    offers, _ = _replay(rel_registry, tmp_path)
    path = _store_file(tmp_path)
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    good = path.read_bytes()
    corruption = CORRUPTIONS[kind]
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    path.write_bytes(good[: len(good) // 2] if corruption is None else corruption)
    caplog.set_level(logging.WARNING)
    again, status2 = _replay(rel_registry, tmp_path)
    assert status2.state == "ok", status2.line()
    assert offer_keys(again) == offer_keys(offers), "a corrupt store was trusted"
    assert all(o.price.amount > 0 for o in again)
    assert any("damaged" in r.getMessage() or "discarding unusable snapshot" in r.getMessage()
               for r in caplog.records), kind


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
    manifest = gpuhub.fetch.recording.load_manifest(tmp_path / PROVIDER)
    assert [e["request"]["url"].split("?")[1] for e in manifest.exchanges] == ["page=1", "page=2"]
    # replayed with the same base URL setting it was recorded with (replay matches the host too)
    replayed = make_engine(rel_registry, environ={k: v for k, v in env.items() if k.startswith("GPUHUB_")})
    try:
        [(again, status2)] = replayed.collect([PROVIDER], fixtures_dir=tmp_path)
    finally:
        replayed.shutdown()
    assert status2.state == "ok" and offer_keys(again) == offer_keys(offers)
