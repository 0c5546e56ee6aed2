"""The embedded store backend: one SQLite database (stdlib ``sqlite3``) in a directory readable by the user only.

Layout (``<dir>/store.sqlite``, WAL journal, 64 KiB pages so large column blobs read in few page hops):

- ``snapshot``: one row per provider fetch (metadata, status JSON, content hash or NULL);
- ``content`` / ``part`` / ``blob``: a snapshot's offers, once per content hash; ``part`` names the blob of each
  of its parts (an NPY column or the JSON tables: :meth:`OfferColumns.to_parts
  <gpuhub.store.columns.OfferColumns.to_parts>`), and ``blob`` holds each part's bytes once under their SHA-256,
  shared by every snapshot with that column; an older blob of a changed column is kept as a small patch against
  the newer one (:mod:`gpuhub.store.blobs`). A store of the earlier layout (``content_part``: every part's bytes
  per content) is migrated when it is first opened for writing, and read as it is when it cannot be written;
- ``meta``: small cached facts (the plugin discovery cache).

Each process keeps one connection per database file, shared by its handles, and never opens the live file itself
(closing any descriptor of it would drop the process's SQLite locks, and another process would then delete the
journal in use); a damaged file is set aside once across processes, under ``<dir>/locks/recover.lock``.

A store that cannot be written (a read-only file or directory, a full disk) is still read: it is opened read-only
(SQLite's ``mode=ro``, else ``immutable=1`` when not even its shared-memory index can be made), or, when a write
fails for want of space or permission, kept read-only for the rest of the process. One warning says so; stored
offers are served (stale when a refresh then fails) and new fetches are not kept (:class:`StoreReadOnly`).

A snapshot's content and row are written in one transaction: a reader sees the whole snapshot or none of it, and a
writer killed mid-way leaves the previous snapshots as they were (SQLite rolls the journal back on the next open).
Refreshes are claimed with a per-provider file lock (``<dir>/locks/<provider>.lock``, filelock), which the
operating system releases when its holder dies. Old snapshots are pruned on every write beyond
``GPUHUB_STORE_KEEP`` per provider (default 50; the newest complete one is always kept).
"""

from __future__ import annotations

import atexit
import contextlib
import datetime as dt
import errno
import json
import logging
import os
import re
import sqlite3
import stat
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuhub.settings import number_setting
from gpuhub.store import (
    LATEST_CANDIDATES,
    PruneReport,
    Quarantined,
    Snapshot,
    SnapshotMeta,
    StoreError,
    StoreReadOnly,
    UndecodableRow,
    columns_from_parts,
    decode_rows,
    latest_good_filter,
)
from gpuhub.store.blobs import BlobTables

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
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_BLOBS = """
CREATE TABLE IF NOT EXISTS blob (hash TEXT PRIMARY KEY, base TEXT, size INTEGER NOT NULL, data BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS blob_base ON blob (base);
CREATE TABLE IF NOT EXISTS part (content TEXT NOT NULL, name TEXT NOT NULL, blob TEXT NOT NULL,
    PRIMARY KEY (content, name));
CREATE INDEX IF NOT EXISTS part_blob ON part (blob);
"""
"""The content-addressed parts (:mod:`gpuhub.store.blobs`); an older store had ``content_part (hash, name, data)``
instead, migrated by :func:`_migrate`."""
_TABLES = BlobTables("blob", "part", "?")
_QUARANTINE = """CREATE TABLE IF NOT EXISTS quarantine (snapshot_id INTEGER PRIMARY KEY, provider TEXT, reason TEXT
    NOT NULL, set_aside_at REAL NOT NULL, row TEXT NOT NULL)"""
"""Snapshot rows that did not decode, moved out of ``snapshot`` (kept for a look, never read as snapshots)."""
_COLUMNS = ("id, provider, fetched_at, data_date, source_kind, source, key, complete, status, purchases, "
            "snapshot.content_hash, snapshot.offers, coalesce(content.size, 0)")
_SAFE_NAME = re.compile(r"[^a-z0-9_-]")


def _keep(environ: dict[str, str] | None = None) -> int:
    keep = number_setting(environ or os.environ, "GPUHUB_STORE_KEEP", DEFAULT_KEEP,
                          what="a whole number of snapshots per provider", whole=True)
    return max(1, int(keep))


class _Connection:
    """The one SQLite connection of this process to one database file, shared by every :class:`SqliteStore` on it.

    SQLite's locks on a database are POSIX record locks, which belong to the process: closing *any* descriptor of
    the file drops all of them. So nothing here opens the live file itself, and each process keeps one
    connection per file (its handles share it; the last one to go closes it) — a second connection could not
    drop the first one's locks either, but one is simpler to reason about. ``inode`` is the file it opened: when
    another process sets a damaged file aside, the next use here sees a different file and reconnects.
    """

    def __init__(self, db: sqlite3.Connection, inode: tuple[int, int], read_only: str | None) -> None:
        self.db = db
        self.inode = inode
        self.read_only = read_only
        """Why this process does not write the store (None: it does)."""
        self.lock = threading.RLock()
        self.users = 0


_OPEN: weakref.WeakValueDictionary[tuple[int, str], _Connection] = weakref.WeakValueDictionary()
"""(process id, database path) -> the connection every handle of this process shares (gone with its last one)."""
_OPEN_LOCK = threading.Lock()


@atexit.register
def close_all(wait_s: float = 1.0) -> None:
    """Close this process's store connections (also run at interpreter exit).

    The CLI freezes its heap before exit (``gc.freeze``) and may end with ``os._exit`` when a fetch thread is
    abandoned, so a connection would otherwise never be closed; unclosed, SQLite skips the checkpoint that moves
    the write-ahead log into the database file, and a store that must later be opened immutable (a full disk) would
    not see those snapshots (the history log may hold a second connection, so closing alone does not checkpoint:
    a passive checkpoint runs first). A connection another thread is using for longer than ``wait_s`` seconds is
    left alone.
    """
    with _OPEN_LOCK:
        shared = [c for (pid, _), c in list(_OPEN.items()) if pid == os.getpid()]
    for connection in shared:
        if not connection.lock.acquire(timeout=wait_s):
            continue
        try:
            with contextlib.suppress(sqlite3.Error):  # PASSIVE: never waits (another connection may be open)
                if connection.read_only is None:
                    connection.db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            with contextlib.suppress(sqlite3.Error):
                connection.db.close()
        finally:
            connection.lock.release()


def _inode(path: Path) -> tuple[int, int]:
    info = os.stat(path)
    return info.st_dev, info.st_ino


class SqliteStore:
    """The SQLite backend of :class:`gpuhub.store.Store`. Handles on one directory in one process share one
    connection (:class:`_Connection`).

    Args:
        directory: where ``store.sqlite`` and ``locks/`` live (created, mode 0700).

    Raises:
        StoreError: the directory cannot be created or the database cannot be opened.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / FILENAME
        self.location = str(directory)
        self._closed = False
        try:
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            key = (os.getpid(), str(self.path.resolve()))
            with _OPEN_LOCK:
                shared = _OPEN.get(key)
                if shared is None:
                    shared = _Connection(*self._connect())
                    _OPEN[key] = shared
                shared.users += 1
            self._shared = shared
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the offer store at {self.path}: {exc}") from None

    @property
    def _lock(self) -> threading.RLock:
        return self._shared.lock

    @property
    def _db(self) -> sqlite3.Connection:
        """The shared connection, reconnected first when the file at :attr:`path` is no longer the one it opened
        (another process set a damaged store aside and started a new one).

        Raises:
            sqlite3.Error: this handle was closed, or the new file cannot be opened.
        """
        if self._closed:
            raise sqlite3.ProgrammingError("the offer store handle is closed")
        shared = self._shared
        with shared.lock:
            try:
                current = _inode(self.path)
            except OSError:
                current = None
            if current != shared.inode:
                with contextlib.suppress(sqlite3.Error):
                    shared.db.close()
                shared.db, shared.inode, read_only = self._connect()
                shared.read_only = shared.read_only or read_only
            return shared.db

    @property
    def read_only(self) -> str | None:
        """Why this process cannot write the store (a read-only file or directory, a full disk), or None."""
        return self._shared.read_only

    def _connect(self) -> tuple[sqlite3.Connection, tuple[int, int], str | None]:
        """A new connection (the schema made when the file is new; a damaged file set aside first); a file that
        cannot be written is opened read-only (the third item says why)."""
        try:
            db, inode = self._connect_writable()
        except (OSError, sqlite3.Error) as exc:
            if not _unwritable(exc) or not self.path.is_file() or self.path.stat().st_size == 0:
                raise
            return (*self._connect_read_only(exc), _cause(exc))
        effective = os.access in os.supports_effective_ids
        if not os.access(self.path, os.W_OK, effective_ids=effective):  # SQLite opened it read-only, silently
            why = "no permission to write the file"
            _warn_once(self.path, "the offer store at %s is read-only (%s): stored offers are served, new fetches "
                                  "are not kept", why)
            return db, inode, why
        return db, inode, None

    def _connect_read_only(self, why: OSError | sqlite3.Error) -> tuple[sqlite3.Connection, tuple[int, int]]:
        """A read-only connection to a store that cannot be written: ``mode=ro`` (it sees other processes'
        writes), else ``immutable=1`` (when not even the shared-memory index can be made). Warns once."""
        inode = _inode(self.path)
        uri = self.path.resolve().as_uri()
        last: sqlite3.Error | None = None
        for how in ("mode=ro", "immutable=1"):
            db = sqlite3.connect(f"{uri}?{how}", uri=True, timeout=30.0, check_same_thread=False,
                                 isolation_level=None)
            try:
                db.execute("SELECT count(*) FROM snapshot").fetchone()
            except sqlite3.Error as exc:
                db.close()
                last = exc
                continue
            _warn_once(self.path, "the offer store at %s is read-only (%s): stored offers are served, new fetches "
                                  "are not kept", _cause(why))
            return db, inode
        assert last is not None
        raise last

    def _connect_writable(self) -> tuple[sqlite3.Connection, tuple[int, int]]:
        for attempt in range(2):
            if not self.path.exists() and not self.path.is_symlink():
                with contextlib.suppress(FileExistsError):  # a new file: nothing of this process has it open
                    os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY | os.O_EXCL | os.O_NOFOLLOW, 0o600))
            if not stat.S_ISREG(os.lstat(self.path).st_mode):  # a symlink, FIFO or device is never opened
                raise OSError(f"{self.path} is not a regular file")
            inode = _inode(self.path)
            db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
            try:
                # SQLite checks the file against its own header here: a truncated file is "malformed".
                if db.execute("PRAGMA page_count").fetchone()[0] == 0:  # a new file: settings for an empty db
                    db.execute("PRAGMA page_size = 65536")
                    db.execute("PRAGMA auto_vacuum = INCREMENTAL")
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA synchronous = NORMAL")
                tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
                if "snapshot" not in tables:
                    db.executescript(_SCHEMA)
                if "quarantine" not in tables:
                    db.execute(_QUARANTINE)
                if "blob" not in tables or "content_part" in tables:
                    _migrate(db)
            except sqlite3.DatabaseError as exc:
                db.close()
                if attempt or not _is_damage(exc):
                    raise
                self._set_aside(inode, exc)
                continue
            return db, inode
        raise AssertionError("unreachable")  # pragma: no cover

    def _set_aside(self, inode: tuple[int, int], exc: sqlite3.Error) -> None:
        """Move a damaged database (and its journal) aside, once across processes: under the store's recovery
        lock, and only when the file is still the damaged one (another process may have done it already)."""
        import filelock

        locks = self.directory / "locks"
        locks.mkdir(exist_ok=True, mode=0o700)
        with filelock.FileLock(str(locks / "recover.lock"), mode=0o600, thread_local=False, timeout=60):
            try:
                if _inode(self.path) != inode:
                    return
            except OSError:
                return
            damaged = self.path.with_name(FILENAME + ".damaged")
            log.warning("the offer store %s is damaged (%s); moved to %s, starting an empty store", self.path,
                        exc, damaged)
            # The journal belongs to the damaged file: replayed onto a new one it would damage it too.
            with contextlib.suppress(FileNotFoundError):
                os.replace(str(self.path) + "-wal", str(damaged) + "-wal")
            os.replace(self.path, damaged)
            Path(str(self.path) + "-shm").unlink(missing_ok=True)  # an index of the old journal; rebuilt

    def _failed(self, exc: sqlite3.Error, doing: str) -> StoreError:
        """The error to raise; a damaged database is first set aside, so the next use starts an empty store; a
        write that failed for want of space or permission makes the store read-only for this process (warned
        once)."""
        shared = self._shared
        if doing != "read" and _unwritable(exc):
            with shared.lock:
                if shared.read_only is None:
                    shared.read_only = _cause(exc)
                    _warn_once(self.path, "the offer store at %s is read-only from now on in this process (%s): "
                                          "stored offers are served, new fetches are not kept", shared.read_only)
            return StoreReadOnly(f"cannot {doing} the offer store at {self.path}: {exc}")
        if isinstance(exc, sqlite3.DatabaseError) and _is_damage(exc) and shared.read_only is None:
            with shared.lock:
                try:
                    self._set_aside(shared.inode, exc)
                    with contextlib.suppress(sqlite3.Error):
                        shared.db.close()
                    shared.db, shared.inode, shared.read_only = self._connect()
                except (OSError, sqlite3.Error) as again:
                    log.warning("could not start a new store at %s: %s", self.path, again)
        return StoreError(f"cannot {doing} the offer store at {self.path}: {exc}")

    def _writable(self, doing: str) -> None:
        """Raise :class:`StoreReadOnly` when this process does not write the store."""
        if self._shared.read_only is not None:
            raise StoreReadOnly(f"cannot {doing} the offer store at {self.path}: it is read-only "
                                f"({self._shared.read_only})")

    # --- writing ------------------------------------------------------------------------------------------
    def put_snapshot(self, meta: SnapshotMeta, columns: OfferColumns | None) -> Snapshot:
        """:meth:`Store.put_snapshot <gpuhub.store.Store.put_snapshot>` in SQLite: the content (deduplicated by its
        hash) and the snapshot's row in one transaction.

        Raises:
            StoreError: the store is read-only or the write failed.
        """
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
        self._writable("write to")
        try:
            with self._lock, self._transaction() as db:
                if parts is not None and content_hash is not None and db.execute(
                        "SELECT 1 FROM content WHERE hash = ?", (content_hash,)).fetchone() is None:
                    db.execute("INSERT INTO content VALUES (?, ?, ?, ?)",
                               (content_hash, row[-1], sum(len(p) for p in parts.values()), time.time()))
                    previous = db.execute("SELECT content_hash FROM snapshot WHERE provider = ? AND content_hash IS "
                                          "NOT NULL ORDER BY id DESC LIMIT 1", (meta.provider,)).fetchone()
                    _TABLES.put(db, content_hash, parts, previous[0] if previous else None)
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

    def _transaction(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        return _immediate(self._db)

    # --- reading ------------------------------------------------------------------------------------------
    def _query(self, sql: str, args: tuple[Any, ...]) -> list[Snapshot]:
        try:
            with self._lock:
                rows = self._db.execute(
                    f"SELECT {_COLUMNS} FROM snapshot LEFT JOIN content ON content.hash = snapshot.content_hash "
                    f"{sql}", args).fetchall()
        except sqlite3.Error as exc:
            raise self._failed(exc, "read") from None
        return decode_rows(rows, self._set_row_aside)

    def _set_row_aside(self, bad: UndecodableRow, row: str) -> None:
        self._writable("write to")
        try:
            with self._lock, self._transaction() as db:
                db.execute("INSERT OR REPLACE INTO quarantine VALUES (?, ?, ?, ?, ?)",
                           (bad.ident, str(bad.provider), bad.reason, time.time(), row))
                db.execute("DELETE FROM snapshot WHERE id = ?", (bad.ident,))
        except sqlite3.Error as exc:
            raise self._failed(exc, "write to") from None

    def quarantined(self) -> list[Quarantined]:
        """:meth:`Store.quarantined <gpuhub.store.Store.quarantined>` in SQLite: rows set aside, newest first."""
        try:
            with self._lock:
                rows = self._db.execute("SELECT snapshot_id, provider, reason, set_aside_at FROM quarantine "
                                        "ORDER BY set_aside_at DESC").fetchall()
        except sqlite3.Error as exc:
            if self.read_only is not None and "no such table" in str(exc):  # an older store, never written here
                return []
            raise self._failed(exc, "read") from None
        return [Quarantined(int(i), str(p), str(r), dt.datetime.fromtimestamp(float(t), dt.timezone.utc))
                for i, p, r, t in rows]

    def latest_good(self, provider: str, *, key: str | None = None, max_age_s: float | None = None,
                    now: dt.datetime | None = None) -> Snapshot | None:
        """:meth:`Store.latest_good <gpuhub.store.Store.latest_good>` in SQLite (``max_age_s`` in seconds); a newest row
        that does not decode is set aside and the next one served.
        """
        where, args = latest_good_filter(provider, key, max_age_s, now, mark="?", complete="complete = 1")
        # A few candidates: an undecodable newest row is set aside and the next one served.
        found = self._query(where + f" ORDER BY id DESC LIMIT {LATEST_CANDIDATES}", tuple(args))
        return found[0] if found else None

    def snapshots(self, provider: str | None = None, *, limit: int | None = None) -> list[Snapshot]:
        """:meth:`Store.snapshots <gpuhub.store.Store.snapshots>` in SQLite: newest first, at most ``limit``."""
        where, args = ("WHERE provider = ?", (provider,)) if provider is not None else ("", ())
        tail = f" LIMIT {int(limit)}" if limit is not None else ""
        return self._query(where + " ORDER BY id DESC" + tail, args)

    def read_columns(self, snapshot: Snapshot) -> OfferColumns:
        """:meth:`Store.read_columns <gpuhub.store.Store.read_columns>` in SQLite.

        Raises:
            StoreError: the snapshot has no content, or its content cannot be read or decoded.
        """
        if snapshot.content_hash is None:
            raise StoreError(f"snapshot {snapshot.id} of {snapshot.provider} has no offers stored")
        try:
            with self._lock:
                db = self._db
                if _old_layout(db):  # a store of the earlier layout that this process cannot migrate (read-only)
                    parts = dict(db.execute("SELECT name, data FROM content_part WHERE hash = ?",
                                            (snapshot.content_hash,)).fetchall())
                else:
                    parts = _TABLES.read(db, snapshot.content_hash)
        except sqlite3.Error as exc:
            raise self._failed(exc, "read") from None
        return columns_from_parts(snapshot, parts)

    def discard(self, snapshot: Snapshot) -> None:
        """:meth:`Store.discard <gpuhub.store.Store.discard>` in SQLite.

        Raises:
            StoreError: the store is read-only or the delete failed.
        """
        self._writable("write to")
        try:
            with self._lock, self._transaction() as db:
                # The blobs that no longer match their hash are unusable for every content naming them.
                damaged = _TABLES.damaged(db, snapshot.content_hash) if snapshot.content_hash else set()
                contents = _TABLES.contents_using(db, damaged) | ({snapshot.content_hash} - {None})
                db.execute("DELETE FROM snapshot WHERE id = ?", (snapshot.id,))
                for content in contents:
                    db.execute("DELETE FROM snapshot WHERE content_hash = ?", (content,))
                    db.execute("DELETE FROM part WHERE content = ?", (content,))
                    db.execute("DELETE FROM content WHERE hash = ?", (content,))
                _TABLES.forget(db, damaged)
                _TABLES.collect(db)
        except sqlite3.Error as exc:
            raise self._failed(exc, "write to") from None

    # --- coordination -------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def claim(self, provider: str, timeout_s: float) -> Iterator[bool]:
        """:meth:`Store.claim <gpuhub.store.Store.claim>` with a lock file per provider under ``locks/`` (filelock;
        ``timeout_s`` in seconds): yields True when held, False when another process kept it that long.
        """
        import filelock

        try:
            locks = self.directory / "locks"
            locks.mkdir(exist_ok=True, mode=0o700)
            lock = filelock.FileLock(str(locks / f"{_SAFE_NAME.sub('_', provider.lower())}.lock"), mode=0o600,
                                     thread_local=False)
            lock.acquire(timeout=max(0.0, timeout_s), poll_interval=0.02)
        except filelock.Timeout:
            yield False
            return
        except OSError as exc:  # a read-only or full store: nothing will be written, so nothing to coordinate
            log.debug("no refresh lock for %s in %s: %s", provider, self.directory, exc)
            yield True
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
        contents = db.execute(f"SELECT count(*) FROM content WHERE hash IN ({unused})").fetchone()[0]
        freed = 0
        if contents:
            db.execute(f"DELETE FROM part WHERE content IN ({unused})")
            db.execute(f"DELETE FROM content WHERE hash IN ({unused})")
            freed = _TABLES.collect(db)[1]
        return gone, int(contents), freed

    def prune(self, *, keep_per_provider: int, older_than_s: float | None = None) -> PruneReport:
        """:meth:`Store.prune <gpuhub.store.Store.prune>` in SQLite (``older_than_s`` in seconds).

        Raises:
            ValueError: ``keep_per_provider`` is below 1.
            StoreError: the store is read-only or the delete failed.
        """
        if keep_per_provider < 1:
            raise ValueError("keep_per_provider must be at least 1")
        self._writable("prune")
        try:
            with self._lock:
                with self._transaction() as db:
                    gone, contents, freed = self._prune(db, keep_per_provider, older_than_s)
                self._db.execute("PRAGMA incremental_vacuum")
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as exc:
            raise self._failed(exc, "prune") from None
        return PruneReport(gone, contents, freed)

    def get_meta(self, name: str) -> str | None:
        """:meth:`Store.get_meta <gpuhub.store.Store.get_meta>` in SQLite; None also when it cannot be read."""
        try:
            with self._lock:
                row = self._db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        except sqlite3.Error as exc:
            log.debug("%s", self._failed(exc, "read"))
            return None
        return None if row is None else str(row[0])

    def put_meta(self, name: str, value: str) -> None:
        """:meth:`Store.put_meta <gpuhub.store.Store.put_meta>` in SQLite; on a read-only store nothing is kept (logged
        at DEBUG), and a failed write is logged, never raised.
        """
        if self.read_only is not None:
            log.debug("not kept (the offer store is read-only): %s", name)
            return
        try:
            with self._lock:
                self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (name, value))
        except sqlite3.Error as exc:
            log.warning("%s", self._failed(exc, "write to"))

    def size_bytes(self) -> int:
        """:meth:`Store.size_bytes <gpuhub.store.Store.size_bytes>` in SQLite, bytes."""
        total = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(OSError):
                total += Path(str(self.path) + suffix).stat().st_size
        return total

    def close(self) -> None:
        """Release this handle; the process's connection closes with its last handle."""
        with _OPEN_LOCK:
            if self._closed:
                return
            self._closed = True
            shared = self._shared
            shared.users -= 1
            if shared.users <= 0:
                for key, value in list(_OPEN.items()):
                    if value is shared:
                        del _OPEN[key]
                with shared.lock:
                    shared.db.close()


def _old_layout(db: sqlite3.Connection) -> bool:
    """True for a store of the earlier layout (every part's bytes per content, in ``content_part``)."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'content_part'").fetchone() \
        is not None


def _migrate(db: sqlite3.Connection) -> None:
    """Make the blob tables, and move a store of the earlier layout into them: each part's bytes become one blob
    (parts equal across snapshots once), ``content_part`` is dropped. One transaction, so a second process opening
    the store at the same time waits and then finds it done; a process killed mid-way leaves the old layout."""
    with _immediate(db):
        for statement in _BLOBS.split(";"):  # (executescript would commit first)
            if statement.strip():
                db.execute(statement)
        if _old_layout(db):
            from gpuhub.store.blobs import blob_hash

            rows = db.execute("SELECT hash, name, data FROM content_part")
            while batch := rows.fetchmany(16):
                for content, name, data in batch:
                    digest = blob_hash(data)
                    db.execute("INSERT INTO blob (hash, base, size, data) VALUES (?, NULL, ?, ?) ON CONFLICT (hash) "
                               "DO NOTHING", (digest, len(data), data))
                    db.execute("INSERT INTO part (content, name, blob) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                               (content, name, digest))
            db.execute("DROP TABLE content_part")
            log.info("the offer store's snapshots now share unchanged columns (migrated from the earlier layout)")


@contextlib.contextmanager
def _immediate(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction (``BEGIN IMMEDIATE``): committed when the block ends, rolled back when it raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        # SQLite may have rolled back already (a full disk): the first error is the one to report.
        with contextlib.suppress(sqlite3.Error):
            if db.in_transaction:
                db.execute("ROLLBACK")
        raise


def _is_damage(exc: sqlite3.Error) -> bool:
    return "malformed" in str(exc) or "not a database" in str(exc)


_UNWRITABLE_ERRNOS = frozenset({errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
_UNWRITABLE_CODES = frozenset({8, 10, 13, 14})
"""SQLite's primary result codes of a file that cannot be written: READONLY, IOERR (a write or the shared-memory
index failed), FULL, CANTOPEN (a journal could not be made)."""


def _unwritable(exc: BaseException) -> bool:
    """True for an error of a store that cannot be written (no space, no permission, a read-only file system)."""
    if isinstance(exc, OSError):
        return exc.errno in _UNWRITABLE_ERRNOS
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in _UNWRITABLE_CODES
    return any(word in str(exc) for word in ("readonly", "disk is full", "disk I/O error", "unable to open"))


_WARNED: set[tuple[int, str]] = set()
"""(process id, database path) whose read-only state was warned about: once per process, however often opened."""
_WARNED_LOCK = threading.Lock()


def _warn_once(path: Path, message: str, cause: str) -> None:
    key = (os.getpid(), str(path))
    with _WARNED_LOCK:
        if key in _WARNED:
            log.debug(message, path, cause)
            return
        _WARNED.add(key)
    log.warning(message, path, cause)


def _cause(exc: BaseException) -> str:
    """A short cause for the read-only warning."""
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)[:200]
