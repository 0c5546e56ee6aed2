"""Content-addressed snapshot parts (issue 27): an unchanged column is stored once whatever the number of snapshots,
a changed one costs a patch, every snapshot reads back as written, unused blobs go with the snapshots that used
them, and a store of the earlier layout (every part's bytes per snapshot) opens, migrates and reads."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from gpuhub.store import Snapshot, SnapshotMeta
from gpuhub.store.blobs import apply_patch, blob_hash, make_patch
from gpuhub.store.columns import OfferColumns, _hash_parts
from gpuhub.store.sqlite import SqliteStore

T0 = dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc)
H = dt.timedelta(hours=1)


class Catalog:
    """``n`` offers of one provider (n // 50 instance types x 50 regions), prices in cents; :meth:`step` changes
    1 % of the prices and appends their new amounts to the amounts table (as a provider's next fetch would)."""

    def __init__(self, n: int) -> None:
        self.rng = np.random.default_rng(27)
        types = n // 50
        row = np.arange(n)
        self.instance, self.region = (row % types).astype("<i4"), (row // types).astype("<i4")
        self.cents = 100 + (row * 7919) % 90_000
        self.amounts = [f"{c / 100:.2f}" for c in self.cents.tolist()]
        self.codes = row.astype("<i4")
        self.tables = {
            "instances": [{"provider": "synth", "instance_type": f"g{i}.8x", "gpu": {"name": "H100", "vendor": "NVIDIA",
                                                                                   "memory_gib": "80"},
                           "gpu_count": 8.0} for i in range(types)],
            "regions": [{"provider": "synth", "code": f"region-{r}"} for r in range(50)],
            "terms": [{"currency": "USD", "purchase": "on_demand"}], "sources": [{"mode": "live"}], "extras": []}

    def step(self) -> None:
        changed = self.rng.choice(len(self.cents), size=len(self.cents) // 100, replace=False)
        self.cents = self.cents.copy()
        self.cents[changed] += 1
        start = len(self.amounts)
        self.amounts = self.amounts + [f"{c / 100:.2f}" for c in self.cents[changed].tolist()]
        self.codes = self.codes.copy()
        self.codes[changed] = np.arange(start, start + len(changed), dtype="<i4")

    def columns(self) -> OfferColumns:
        n = len(self.cents)
        return OfferColumns({"instance": self.instance, "region": self.region, "terms": np.zeros(n, "<i4"),
                             "amount": self.codes, "source": np.zeros(n, "<i4"), "extra": np.full(n, -1, "<i4"),
                             "price": (self.cents / 100).astype("<f8"), "available": np.full(n, -1, "|i1")},
                            {**self.tables, "amounts": list(self.amounts)})


def _meta(hour: int) -> SnapshotMeta:
    return SnapshotMeta("synth", T0 + hour * H, None, "live", {"mode": "live"}, "live:synth", True, {"state": "ok"},
                        ("on_demand",))


def _same(a: OfferColumns, b: OfferColumns) -> bool:
    return a.to_parts() == b.to_parts()


def _blobs(path: Path) -> list[tuple[str, str | None, int]]:
    with sqlite3.connect(path / "store.sqlite") as db:
        return [(h, b, int(n)) for h, b, n in db.execute("SELECT hash, base, length(data) FROM blob ORDER BY hash")]


def test_patches_rebuild_the_old_bytes() -> None:
    old = np.arange(1000, dtype="<f8")
    new = old.copy()
    new[[3, 500, 999]] = [0.5, 1.5, 2.5]
    patch = make_patch(old.tobytes(), new.tobytes())
    assert patch is not None and len(patch) == 17 + 8 + 3 * 12  # header, count, 3 x (index, word)
    assert apply_patch(new.tobytes(), patch) == old.tobytes()
    amounts = ",".join(f'"{c / 100:.2f}"' for c in range(100, 200))
    shorter = f'{{"amounts":[{amounts}],"x":1}}'.encode()
    grown = f'{{"amounts":[{amounts},"2.00"],"x":1}}'.encode()
    spliced = make_patch(shorter, grown)
    assert spliced is not None and len(spliced) == 17 + 16 + 0  # prefix, suffix: nothing of the old in between
    assert apply_patch(grown, spliced) == shorter
    assert make_patch(b"abcdefgh" * 4, b"ABCDEFGH" * 4) is None  # nothing in common: stored whole
    with pytest.raises(ValueError, match="does not fit"):
        apply_patch(new.tobytes()[:-8], patch)


def test_an_unchanged_column_is_stored_once_and_every_snapshot_reads_back(tmp_path: Path) -> None:
    catalog = Catalog(5000)
    store = SqliteStore(tmp_path)
    try:
        written = []
        for hour in range(3):
            if hour:
                catalog.step()
            written.append(catalog.columns())
            store.put_snapshot(_meta(hour), written[-1])
        snaps = store.snapshots("synth")[::-1]
        assert [s.offers for s in snaps] == [5000, 5000, 5000]
        assert all(_same(store.read_columns(s), w) for s, w in zip(snaps, written, strict=True))
        first, last = written[0].to_parts(), written[-1].to_parts()
        blobs = _blobs(tmp_path)
        distinct = {blob_hash(d) for w in written for d in w.to_parts().values()}
        assert len(blobs) == len(distinct) == 5 + 3 * 3  # 5 distinct unchanged parts once, amount/price/tables x 3
        assert blob_hash(first["instance.npy"]) == blob_hash(last["instance.npy"])
        whole = {h: n for h, base, n in blobs if base is None}
        patched = {h: (base, n) for h, base, n in blobs if base is not None}
        # the newest amount, price and tables are whole; the two older versions of each are patches of newer ones
        assert {blob_hash(last[p]) for p in ("amount.npy", "price.npy", "tables.json")} <= set(whole)
        assert len(patched) == 6
        price_patch = patched[blob_hash(first["price.npy"])]
        assert price_patch[0] == blob_hash(written[1].to_parts()["price.npy"])
        assert price_patch[1] == 17 + 8 + 50 * 12  # 50 changed prices of 5,000: 50 words, not 40,128 bytes
        with sqlite3.connect(tmp_path / "store.sqlite") as db:  # the shared column counted once
            assert db.execute("SELECT count(*) FROM part WHERE name = 'instance.npy'").fetchone() == (3,)
            assert db.execute("SELECT count(DISTINCT blob) FROM part WHERE name = 'instance.npy'").fetchone() == (1,)
    finally:
        store.close()


def test_sixty_hours_of_one_percent_changes_cost_little_more_than_one_snapshot(tmp_path: Path) -> None:
    catalog = Catalog(20_000)
    store = SqliteStore(tmp_path)
    try:
        for hour in range(60):
            if hour:
                catalog.step()
            store.put_snapshot(_meta(hour), catalog.columns())
        one = sum(len(p) for p in catalog.columns().to_parts().values())
        snaps = store.snapshots("synth")
        assert len(snaps) == 50  # the default retention
        stored = sum(n for _, _, n in _blobs(tmp_path))
        assert one == 993_782
        assert stored <= 1.5 * one, (stored, one)  # was 50 x one: 56 MB
        assert _same(store.read_columns(snaps[0]), catalog.columns())
        store.prune(keep_per_provider=50)
        assert store.size_bytes() <= 10 * one
        oldest = store.read_columns(snaps[-1])  # hour 10: the end of a chain of 49 patches
        assert oldest.tables["amounts"] == catalog.columns().tables["amounts"][:20_000 + 10 * 200]
        report = store.prune(keep_per_provider=1)
        assert (report.snapshots, report.contents) == (49, 49)
        blobs = _blobs(tmp_path)
        assert len(blobs) == 8 and all(base is None for _, base, _ in blobs)  # 9 parts; terms and source equal
        assert _same(store.read_columns(store.snapshots("synth")[0]), catalog.columns())
    finally:
        store.close()


_OLD_SCHEMA = """
CREATE TABLE snapshot (id INTEGER PRIMARY KEY AUTOINCREMENT, provider TEXT NOT NULL, fetched_at REAL NOT NULL,
    data_date TEXT, source_kind TEXT NOT NULL, source TEXT NOT NULL, key TEXT NOT NULL, complete INTEGER NOT NULL,
    status TEXT NOT NULL, purchases TEXT NOT NULL, content_hash TEXT, offers INTEGER NOT NULL);
CREATE INDEX snapshot_good ON snapshot (provider, complete, key, id);
CREATE TABLE content (hash TEXT PRIMARY KEY, offers INTEGER NOT NULL, size INTEGER NOT NULL, created_at REAL NOT NULL);
CREATE TABLE content_part (hash TEXT NOT NULL, name TEXT NOT NULL, data BLOB NOT NULL, PRIMARY KEY (hash, name));
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
"""The layout before issue 27: every part's bytes stored again for each content."""


def _old_store(directory: Path, written: list[OfferColumns]) -> None:
    """A store as the earlier code wrote it: the content and its parts, then the snapshot row."""
    directory.mkdir()
    with sqlite3.connect(directory / "store.sqlite") as db:
        db.execute("PRAGMA journal_mode = WAL")
        db.executescript(_OLD_SCHEMA)
        for hour, columns in enumerate(written):
            parts = columns.to_parts()
            content = _hash_parts(parts)
            db.execute("INSERT INTO content VALUES (?, ?, ?, ?)", (content, len(columns),
                                                                    sum(len(p) for p in parts.values()), 0.0))
            db.executemany("INSERT INTO content_part VALUES (?, ?, ?)", [(content, n, d) for n, d in parts.items()])
            db.execute("INSERT INTO snapshot (provider, fetched_at, data_date, source_kind, source, key, complete, "
                       "status, purchases, content_hash, offers) VALUES ('synth', ?, NULL, 'live', '{}', "
                       "'live:synth', 1, '{}', '[\"on_demand\"]', ?, ?)",
                       ((T0 + hour * H).timestamp(), content, len(columns)))


def test_a_store_of_the_earlier_layout_is_migrated_and_read(tmp_path: Path) -> None:
    catalog = Catalog(2000)
    written = [catalog.columns()]
    catalog.step()
    written.append(catalog.columns())
    _old_store(tmp_path / "store", written)
    store = SqliteStore(tmp_path / "store")
    try:
        snaps = store.snapshots("synth")[::-1]
        assert [s.offers for s in snaps] == [2000, 2000]
        assert [s.size_bytes for s in snaps] == [sum(len(p) for p in w.to_parts().values()) for w in written]
        assert all(_same(store.read_columns(s), w) for s, w in zip(snaps, written, strict=True))
        with sqlite3.connect(tmp_path / "store" / "store.sqlite") as db:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            assert "content_part" not in tables and {"blob", "part"} <= tables
            # 9 parts each; instance, region, terms/source (equal), extra and available are shared: 5 + 2 x 3 blobs
            assert db.execute("SELECT count(*), count(DISTINCT blob) FROM part").fetchone() == (18, 11)
        catalog.step()  # a new snapshot on the migrated store patches the previous one's changed parts
        store.put_snapshot(_meta(2), catalog.columns())
        assert _same(store.read_columns(store.snapshots("synth")[0]), catalog.columns())
        assert all(_same(store.read_columns(s), w) for s, w in zip(snaps, written, strict=True))
    finally:
        store.close()


def test_a_store_of_the_earlier_layout_that_cannot_be_written_is_read_as_it_is(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                                 caplog: pytest.LogCaptureFixture,
                                                                                 ) -> None:
    import gpuhub.store.sqlite as backend

    catalog = Catalog(2000)
    written = [catalog.columns()]
    _old_store(tmp_path / "store", written)

    def refused(db: sqlite3.Connection) -> None:  # what SQLite says when the file or directory is read-only
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(backend, "_migrate", refused)
    store = SqliteStore(tmp_path / "store")
    try:
        assert store.read_only is not None
        [snap] = store.snapshots("synth")
        assert isinstance(snap, Snapshot) and _same(store.read_columns(snap), written[0])
        assert any("read-only" in r.getMessage() for r in caplog.records)
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "store" / "store.sqlite") as db:
        assert db.execute("SELECT count(*) FROM content_part").fetchone() == (9,)  # left as it was


def test_a_damaged_shared_blob_takes_every_snapshot_using_it(tmp_path: Path) -> None:
    catalog = Catalog(2000)
    store = SqliteStore(tmp_path)
    try:
        store.put_snapshot(_meta(0), catalog.columns())
        catalog.step()
        store.put_snapshot(_meta(1), catalog.columns())
        with sqlite3.connect(tmp_path / "store.sqlite") as db:
            db.execute("UPDATE blob SET data = zeroblob(length(data)) WHERE hash IN (SELECT blob FROM part WHERE "
                       "name = 'region.npy')")
        newest = store.snapshots("synth")[0]
        from gpuhub.store import StoreError

        with pytest.raises(StoreError, match="does not match its hash"):
            store.read_columns(newest)
        store.discard(newest)
        assert store.snapshots("synth") == []  # the older snapshot named the same damaged blob
        assert _blobs(tmp_path) == []
        store.put_snapshot(_meta(2), catalog.columns())  # written anew, not the damaged blob reused
        assert _same(store.read_columns(store.snapshots("synth")[0]), catalog.columns())
    finally:
        store.close()
