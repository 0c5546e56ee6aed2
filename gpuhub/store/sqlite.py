"""The embedded store backend: one SQLite database (stdlib ``sqlite3``) in a directory readable by the user only.

Layout (``<dir>/store.sqlite``, WAL journal, 64 KiB pages so large column blobs read in few page hops):

- ``snapshot``: one row per provider fetch (metadata, status JSON, content hash or NULL);
- ``content`` / ``content_part``: a snapshot's offers, once per content hash, one row per part (an NPY column or
  the JSON tables: :meth:`OfferColumns.to_parts <gpuhub.store.columns.OfferColumns.to_parts>`);
- ``meta``: small cached facts (the plugin discovery cache).

A snapshot's content and row are written in one transaction: a reader sees the whole snapshot or none of it, and a
writer killed mid-way leaves the previous snapshots as they were (SQLite rolls the journal back on the next open).
Refreshes are claimed with a per-provider file lock (``<dir>/locks/<provider>.lock``, filelock), which the
operating system releases when its holder dies. Old snapshots are pruned on every write beyond
``GPUHUB_STORE_KEEP`` per provider (default 50; the newest complete one is always kept).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import os
import re
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuhub.store import (
    PruneReport,
    Snapshot,
    SnapshotMeta,
    StoreError,
    columns_from_parts,
    latest_good_filter,
    snapshot_from_row,
)

if TYPE_CHECKING:
    from gpuhub.store.columns import OfferColumns

__all__ = ["DEFAULT_KEEP", "SqliteStore"]

log = logging.getLogger("gpuhub.store")
DEFAULT_KEEP = 50
FILENAME = "store.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS snapshot (
    id INTEGER PRIMARY KEY AUTOINCREMENT, provider TEXT NOT NULL, fetched_at REAL NOT NULL, data_date TEXT,
    source_kind TEXT NOT NULL, source TEXT NOT NULL, key TEXT NOT NULL, complete INTEGER NOT NULL,
    status TEXT NOT NULL, purchases TEXT NOT NULL, content_hash TEXT, offers INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS snapshot_good ON snapshot (provider, complete, key, id);
CREATE TABLE IF NOT EXISTS content (hash TEXT PRIMARY KEY, offers INTEGER NOT NULL, size INTEGER NOT NULL,
    created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS content_part (hash TEXT NOT NULL, name TEXT NOT NULL, data BLOB NOT NULL,
    PRIMARY KEY (hash, name));
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_COLUMNS = ("id, provider, fetched_at, data_date, source_kind, source, key, complete, status, purchases, "
            "snapshot.content_hash, snapshot.offers, coalesce(content.size, 0)")
_SAFE_NAME = re.compile(r"[^a-z0-9_-]")


def _keep(environ: dict[str, str] | None = None) -> int:
    raw = (environ or os.environ).get("GPUHUB_STORE_KEEP", "")
    try:
        return max(1, int(raw)) if raw.strip() else DEFAULT_KEEP
    except ValueError:
        log.warning("GPUHUB_STORE_KEEP=%r is not a whole number; keeping %d snapshots per provider", raw,
                    DEFAULT_KEEP)
        return DEFAULT_KEEP


class SqliteStore:
    """The SQLite backend of :class:`gpuhub.store.Store`.

    Args:
        directory: where ``store.sqlite`` and ``locks/`` live (created, mode 0700).

    Raises:
        StoreError: the directory cannot be created or the database cannot be opened.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / FILENAME
        self.location = str(directory)
        self._lock = threading.RLock()
        try:
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            if not self.path.exists() and not self.path.is_symlink():
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY | os.O_EXCL | os.O_NOFOLLOW, 0o600))
            if not stat.S_ISREG(os.lstat(self.path).st_mode):  # a symlink, FIFO or device is never opened
                raise OSError(f"{self.path} is not a regular file")
            self._db = self._connect()
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the offer store at {self.path}: {exc}") from None

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
        try:
            _check_not_truncated(self.path)
            if db.execute("PRAGMA page_count").fetchone()[0] == 0:  # a new file: settings that need an empty db
                db.execute("PRAGMA page_size = 65536")
                db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            if "snapshot" not in {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}:
                db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            db.close()
            if "not a database" in str(exc) or "malformed" in str(exc):
                damaged = self.path.with_name(FILENAME + ".damaged")
                log.warning("the offer store %s is damaged (%s); moved to %s, starting an empty store", self.path,
                            exc, damaged)
                for suffix in ("-wal", "-shm"):
                    Path(str(self.path) + suffix).unlink(missing_ok=True)
                os.replace(self.path, damaged)
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
                return self._connect()
            raise
        return db

    def _failed(self, exc: sqlite3.Error, doing: str) -> StoreError:
        """The error to raise; a damaged database is first set aside, so the next use starts an empty store."""
        if isinstance(exc, sqlite3.DatabaseError) and ("malformed" in str(exc) or "not a database" in str(exc)):
            with self._lock:
                damaged = self.path.with_name(FILENAME + ".damaged")
                log.warning("the offer store %s is damaged (%s); moved to %s, starting an empty store", self.path,
                            exc, damaged)
                with contextlib.suppress(sqlite3.Error):
                    self._db.close()
                try:
                    for suffix in ("-wal", "-shm"):
                        Path(str(self.path) + suffix).unlink(missing_ok=True)
                    os.replace(self.path, damaged)
                    os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
                    self._db = self._connect()
                except (OSError, sqlite3.Error) as again:
                    log.warning("could not start a new store at %s: %s", self.path, again)
        return StoreError(f"cannot {doing} the offer store at {self.path}: {exc}")

    # --- writing ------------------------------------------------------------------------------------------
    def put_snapshot(self, meta: SnapshotMeta, columns: OfferColumns | None) -> Snapshot:
        parts = columns.to_parts() if columns is not None and len(columns) else None
        content_hash = None
        if parts is not None:
            from gpuhub.store.columns import _hash_parts

            content_hash = _hash_parts(parts)
        complete = bool(meta.complete and parts is not None)
        row = (meta.provider, meta.fetched_at.timestamp(), meta.data_date.isoformat() if meta.data_date else None,
               meta.source_kind, json.dumps(meta.source, sort_keys=True), meta.key, int(complete),
               json.dumps(meta.status, default=str), json.dumps(list(meta.purchases)), content_hash,
               len(columns) if columns is not None else 0)
        try:
            with self._lock, self._transaction() as db:
                if parts is not None and content_hash is not None and db.execute(
                        "SELECT 1 FROM content WHERE hash = ?", (content_hash,)).fetchone() is None:
                    db.execute("INSERT INTO content VALUES (?, ?, ?, ?)",
                               (content_hash, row[-1], sum(len(p) for p in parts.values()), time.time()))
                    db.executemany("INSERT INTO content_part VALUES (?, ?, ?)",
                                   [(content_hash, name, data) for name, data in parts.items()])
                cursor = db.execute(
                    "INSERT INTO snapshot (provider, fetched_at, data_date, source_kind, source, key, complete, "
                    "status, purchases, content_hash, offers) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
                ident = int(cursor.lastrowid or 0)
                self._prune(db, _keep(), None)
        except sqlite3.Error as exc:
            raise self._failed(exc, "write to") from None
        size = sum(len(p) for p in parts.values()) if parts else 0
        return Snapshot(meta.provider, meta.fetched_at, meta.data_date, meta.source_kind, meta.source, meta.key,
                        complete, meta.status, meta.purchases, ident, content_hash, row[-1], size)

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # --- reading ------------------------------------------------------------------------------------------
    def _query(self, sql: str, args: tuple[Any, ...]) -> list[Snapshot]:
        try:
            with self._lock:
                rows = self._db.execute(
                    f"SELECT {_COLUMNS} FROM snapshot LEFT JOIN content ON content.hash = snapshot.content_hash "
                    f"{sql}", args).fetchall()
        except sqlite3.Error as exc:
            raise self._failed(exc, "read") from None
        return [snapshot_from_row(r) for r in rows]

    def latest_good(self, provider: str, *, key: str | None = None, max_age_s: float | None = None,
                    now: dt.datetime | None = None) -> Snapshot | None:
        where, args = latest_good_filter(provider, key, max_age_s, now, mark="?", complete="complete = 1")
        found = self._query(where + " ORDER BY id DESC LIMIT 1", tuple(args))
        return found[0] if found else None

    def snapshots(self, provider: str | None = None, *, limit: int | None = None) -> list[Snapshot]:
        where, args = ("WHERE provider = ?", (provider,)) if provider is not None else ("", ())
        tail = f" LIMIT {int(limit)}" if limit is not None else ""
        return self._query(where + " ORDER BY id DESC" + tail, args)

    def read_columns(self, snapshot: Snapshot) -> OfferColumns:
        if snapshot.content_hash is None:
            raise StoreError(f"snapshot {snapshot.id} of {snapshot.provider} has no offers stored")
        try:
            with self._lock:
                parts = dict(self._db.execute("SELECT name, data FROM content_part WHERE hash = ?",
                                              (snapshot.content_hash,)).fetchall())
        except sqlite3.Error as exc:
            raise self._failed(exc, "read") from None
        return columns_from_parts(snapshot, parts)

    def discard(self, snapshot: Snapshot) -> None:
        try:
            with self._lock, self._transaction() as db:
                db.execute("DELETE FROM snapshot WHERE id = ? OR (content_hash IS NOT NULL AND content_hash = ?)",
                           (snapshot.id, snapshot.content_hash))
                db.execute("DELETE FROM content_part WHERE hash = ?", (snapshot.content_hash,))
                db.execute("DELETE FROM content WHERE hash = ?", (snapshot.content_hash,))
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write to the offer store at {self.path}: {exc}") from None

    # --- coordination -------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def claim(self, provider: str, timeout_s: float) -> Iterator[bool]:
        import filelock

        locks = self.directory / "locks"
        locks.mkdir(exist_ok=True, mode=0o700)
        lock = filelock.FileLock(str(locks / f"{_SAFE_NAME.sub('_', provider.lower())}.lock"), mode=0o600,
                                 thread_local=False)
        try:
            lock.acquire(timeout=max(0.0, timeout_s), poll_interval=0.02)
        except filelock.Timeout:
            yield False
            return
        try:
            yield True
        finally:
            lock.release()

    # --- maintenance --------------------------------------------------------------------------------------
    def _prune(self, db: sqlite3.Connection, keep: int, older_than_s: float | None) -> tuple[int, int, int]:
        cutoff = time.time() - older_than_s if older_than_s is not None else None
        gone = db.execute(
            "DELETE FROM snapshot WHERE id IN (SELECT id FROM (SELECT id, fetched_at, ROW_NUMBER() OVER "
            "(PARTITION BY provider ORDER BY id DESC) AS n FROM snapshot) WHERE n > ? AND (? IS NULL OR "
            "fetched_at < ?)) AND id NOT IN (SELECT max(id) FROM snapshot WHERE complete = 1 GROUP BY provider)",
            (keep, cutoff, cutoff)).rowcount
        unused = "SELECT hash FROM content WHERE hash NOT IN (SELECT content_hash FROM snapshot WHERE " \
                 "content_hash IS NOT NULL)"
        freed = db.execute(f"SELECT coalesce(sum(size), 0), count(*) FROM content WHERE hash IN ({unused})").fetchone()
        if freed[1]:
            db.execute(f"DELETE FROM content_part WHERE hash IN ({unused})")
            db.execute(f"DELETE FROM content WHERE hash IN ({unused})")
        return gone, int(freed[1]), int(freed[0])

    def prune(self, *, keep_per_provider: int, older_than_s: float | None = None) -> PruneReport:
        if keep_per_provider < 1:
            raise ValueError("keep_per_provider must be at least 1")
        try:
            with self._lock:
                with self._transaction() as db:
                    gone, contents, freed = self._prune(db, keep_per_provider, older_than_s)
                self._db.execute("PRAGMA incremental_vacuum")
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot prune the offer store at {self.path}: {exc}") from None
        return PruneReport(gone, contents, freed)

    def get_meta(self, name: str) -> str | None:
        try:
            with self._lock:
                row = self._db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        except sqlite3.Error:
            return None
        return None if row is None else str(row[0])

    def put_meta(self, name: str, value: str) -> None:
        try:
            with self._lock:
                self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (name, value))
        except sqlite3.Error as exc:
            log.warning("could not write to the offer store at %s: %s", self.path, exc)

    def size_bytes(self) -> int:
        total = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(OSError):
                total += Path(str(self.path) + suffix).stat().st_size
        return total

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _check_not_truncated(path: Path) -> None:
    """Raise ``sqlite3.DatabaseError`` ("malformed") when the file is shorter than its own header says: SQLite reads
    the missing pages of a truncated file as absent rows instead of failing, so a cut store would look empty."""
    try:
        with open(path, "rb") as fh:
            header = fh.read(100)
            size = os.fstat(fh.fileno()).st_size
    except OSError:
        return
    if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
        return  # empty (new) or not a database: sqlite3 itself says so
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    valid = header[24:28] == header[92:96]  # the in-header size counts only when written by the same change
    if valid and pages and size < pages * page_size:
        raise sqlite3.DatabaseError(f"database disk image is malformed: {size} bytes, the header says "
                                    f"{pages} pages of {page_size}")

