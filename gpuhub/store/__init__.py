"""The offer store: every provider fetch (live or replayed) as an immutable snapshot that outlives the process.

A snapshot is one provider's answer at one time: provider, fetched-at time, the data's own date, source kind
(``live``, ``captured`` recording, ``reconstructed`` recording, ``static`` table), the parse key (what produced
it), the provider status with its warnings, whether it is complete, and its offers as columns
(:class:`~gpuhub.store.columns.OfferColumns`). Content is stored once per content hash: two fetches that returned the
same offers share it, and history (a sequence of snapshots) costs one row per unchanged fetch.

Backends implement :class:`Store`; :func:`open_store` picks one from ``GPUHUB_STORE``:

- unset: SQLite under the user cache directory (platformdirs), ``<cache>/gpuhub/store/store.sqlite``
  (``$GPUHUB_CACHE_DIR/store`` when that is set; off when ``GPUHUB_NO_DISK_CACHE=1``);
- a directory path: SQLite in that directory;
- ``off`` (or ``none``): no store (nothing persists; each process fetches and parses again);
- a ``postgresql://`` URL: :mod:`gpuhub.store.postgres` (a team's shared store).

This module imports nothing heavy: the columns (numpy) are imported by the backends when data is read or written.

May import: :mod:`gpuhub.facts` and the bottom (:mod:`gpuhub.model`, :mod:`gpuhub.obtain`, :mod:`gpuhub.errors`);
the backends are looked up by name and import this module, never the reverse.
"""

from __future__ import annotations

import datetime as dt
import importlib
import logging
import os
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from gpuhub.store.columns import OfferColumns

__all__ = ["SOURCE_KINDS", "PruneReport", "Quarantined", "Snapshot", "SnapshotMeta", "SourceKind", "Store",
           "StoreError", "StoreReadOnly", "UndecodableRow", "default_location", "open_store"]

SourceKind = Literal["live", "captured", "reconstructed", "static"]
log = logging.getLogger("gpuhub.store")
SOURCE_KINDS: tuple[str, ...] = ("live", "captured", "reconstructed", "static")


class StoreError(Exception):
    """The store cannot be opened or written (the message names the location and the cause)."""


class StoreReadOnly(StoreError):
    """The store can be read but not written (a read-only file or directory, a full disk): stored data is still
    served, new fetches are not kept. The store warns once when it finds out; callers need not warn again."""


@dataclass(frozen=True)
class SnapshotMeta:
    """What describes one provider fetch, given to :meth:`Store.put_snapshot`.

    Attributes:
        provider: provider name.
        fetched_at: when the fetch finished (timezone-aware UTC).
        data_date: the data's own date (the recording's capture or verification date; the fetch date when live).
        source_kind: ``live``, ``captured``, ``reconstructed`` or ``static``.
        source: the :class:`~gpuhub.model.Source` as a JSON dict.
        key: what produced the offers (for a replay: a digest of the recording, the plugin's code and version,
            the enabled plugins and the GPU table); a snapshot is reused only under the same key.
        complete: True for a complete answer; False for a failed, timed-out, empty or partial one (kept for the
            record, never served).
        status: :meth:`ProviderStatus.to_dict() <gpuhub.fetch.provider.ProviderStatus.to_dict>` of the fetch.
        purchases: purchase models present in the offers (freshness depends on them: spot data ages faster).
    """

    provider: str
    fetched_at: dt.datetime
    data_date: dt.date | None
    source_kind: str
    source: dict[str, Any]
    key: str
    complete: bool
    status: dict[str, Any] = field(default_factory=dict)
    purchases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Snapshot(SnapshotMeta):
    """A stored snapshot: its metadata plus ``id`` (increasing per store), ``content_hash`` (SHA-256 hex of the
    columns, None when no offers were stored), ``offers`` (rows) and ``size_bytes`` (stored content size)."""

    id: int = 0
    content_hash: str | None = None
    offers: int = 0
    size_bytes: int = 0

    def age_s(self, now: dt.datetime | None = None) -> float:
        """Seconds since :attr:`fetched_at`."""
        return ((now or dt.datetime.now(dt.timezone.utc)) - self.fetched_at).total_seconds()


@dataclass(frozen=True)
class PruneReport:
    """What :meth:`Store.prune` removed: snapshots, content blobs, and bytes freed (approximate)."""

    snapshots: int
    contents: int
    bytes_freed: int


class Store(Protocol):
    """A backend of the offer store (SQLite by default; PostgreSQL for a team). All methods are thread-safe and
    safe across processes: a snapshot becomes visible whole (its content first, then its row, in one transaction)
    or not at all."""

    location: str
    """Where the store is (a path, or a URL with any password removed), for messages and ``gpuhub store path``."""

    @property
    def read_only(self) -> str | None:
        """Why this process cannot write the store (read-only file or directory, no write rights, full disk: stored
        offers are still served), or None when it can."""
        ...

    def put_snapshot(self, meta: SnapshotMeta, columns: OfferColumns | None) -> Snapshot:
        """Store one fetch. ``columns`` None (or ``meta.complete`` False) records an attempt that is never served.

        Raises:
            StoreError: the store cannot be written (callers log it and go on without persisting).
        """
        ...

    def latest_good(self, provider: str, *, key: str | None = None, max_age_s: float | None = None,
                    now: dt.datetime | None = None) -> Snapshot | None:
        """The newest complete snapshot of ``provider`` (with this ``key`` when given) not older than
        ``max_age_s`` seconds (any age when None), or None."""
        ...

    def snapshots(self, provider: str | None = None, *, limit: int | None = None) -> list[Snapshot]:
        """Snapshots newest first (complete or not), of one provider or all."""
        ...

    def read_columns(self, snapshot: Snapshot) -> OfferColumns:
        """The offers of a snapshot.

        Raises:
            StoreError: the snapshot has no content or its content does not decode (damaged store).
        """
        ...

    def discard(self, snapshot: Snapshot) -> None:
        """Forget a snapshot whose content is damaged, with its content and every snapshot sharing it."""
        ...

    def claim(self, provider: str, timeout_s: float) -> AbstractContextManager[bool]:
        """A cross-process lock on refreshing ``provider``: yields True when held (fetch, then put the snapshot),
        False when another process kept it for ``timeout_s`` seconds. A killed holder releases it."""
        ...

    def prune(self, *, keep_per_provider: int, older_than_s: float | None = None) -> PruneReport:
        """Delete snapshots beyond the newest ``keep_per_provider`` per provider (and, when given, only those older
        than ``older_than_s``), never the newest complete one of a provider; then content no snapshot uses."""
        ...

    def quarantined(self) -> list[Quarantined]:
        """The snapshot rows set aside because they did not decode, newest first."""
        ...

    def get_meta(self, name: str) -> str | None:
        """A small stored fact (e.g. the plugin discovery cache), or None."""
        ...

    def put_meta(self, name: str, value: str) -> None:
        ...

    def size_bytes(self) -> int:
        """Bytes the store takes on disk (or in the database)."""
        ...

    def close(self) -> None:
        ...


def default_location(environ: Mapping[str, str] | None = None) -> str | None:
    """The configured store location: ``GPUHUB_STORE``, else ``<user cache dir>/gpuhub/store``; None when off."""
    env = os.environ if environ is None else environ
    value = env.get("GPUHUB_STORE", "").strip()
    if value.lower() in ("off", "none", "0", "false"):
        return None
    if value:  # a directory is made absolute (`store path` and messages name it whatever the working directory)
        return value if "://" in value else os.path.abspath(os.path.expanduser(value))
    # The settings of the disk cache the store replaced.
    if env.get("GPUHUB_NO_DISK_CACHE", "").strip().lower() in ("1", "true", "yes"):
        return None
    if env.get("GPUHUB_CACHE_DIR", "").strip():
        return str(Path(env["GPUHUB_CACHE_DIR"]) / "store")
    import platformdirs

    return str(Path(platformdirs.user_cache_dir("gpuhub")) / "store")


class UndecodableRow(StoreError):
    """A stored snapshot row that does not make a :class:`Snapshot` (a damaged or foreign row): it is set aside
    (:meth:`Store.quarantined`), never served. ``ident`` and ``provider`` are the row's, as far as they read."""

    def __init__(self, ident: Any, provider: Any, reason: str) -> None:
        super().__init__(f"snapshot row {ident!r} of {provider!r} cannot be decoded: {reason}")
        self.ident = ident
        self.provider = provider
        self.reason = reason


@dataclass(frozen=True)
class Quarantined:
    """A snapshot row set aside because it did not decode: its id and provider (as stored), why, and when
    (timezone-aware UTC)."""

    snapshot_id: int
    provider: str
    reason: str
    set_aside_at: dt.datetime


LATEST_CANDIDATES = 8
"""Rows :meth:`Store.latest_good` reads at once: the newest that decodes is served, the others set aside."""
_ROW_FIELDS = ("id", "provider", "fetched_at", "data_date", "source_kind", "source", "key", "complete", "status",
               "purchases", "content_hash", "offers", "size")


_SECRET_OPTIONS = ("password", "sslpassword")
"""libpq connection options that hold a secret (in a URL's query string, any case)."""


def location_secrets(location: str) -> list[str]:
    """The secrets written into a store location (a URL's password, ``?password=``/``?sslpassword=`` values)."""
    from urllib.parse import parse_qsl, unquote, urlsplit

    if "://" not in location:
        return []
    parts = urlsplit(location)
    found = [parts.password, unquote(parts.password)] if parts.password else []
    for name, value in parse_qsl(parts.query, keep_blank_values=False):
        if name.lower() in _SECRET_OPTIONS:
            found += [value, unquote(value)]
    return sorted({s for s in found if s}, key=len, reverse=True)


def redact_location(location: str) -> str:
    """A store location fit to print or log: a URL's password and secret query options replaced by ``***``
    (``gpuhub store path``, ``store show``, errors, logs, the web)."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    if "://" not in location:
        return location
    parts = urlsplit(location)
    netloc = parts.netloc
    if parts.password is not None:
        host = netloc.rsplit("@", 1)[-1]
        netloc = f"{parts.username}:***@{host}"
    query = parts.query
    pairs = parse_qsl(query, keep_blank_values=True)
    if any(name.lower() in _SECRET_OPTIONS for name, _ in pairs):
        query = urlencode([(n, "***" if n.lower() in _SECRET_OPTIONS else v) for n, v in pairs], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def snapshot_from_row(row: tuple[Any, ...]) -> Snapshot:
    """A :class:`Snapshot` from a backend's row (id, provider, fetched_at as a POSIX timestamp, data_date ISO text,
    source_kind, source JSON, key, complete, status JSON, purchases JSON, content_hash, offers, size in bytes).

    Raises:
        UndecodableRow: a column does not hold what it should (the reason names the column).
    """
    import json

    if len(row) != len(_ROW_FIELDS):
        raise UndecodableRow(row[0] if row else None, None, f"{len(row)} columns, expected {len(_ROW_FIELDS)}")
    values = dict(zip(_ROW_FIELDS, row, strict=True))
    column = ""

    def typed(name: str, value: Any, kind: type | tuple[type, ...]) -> Any:
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise TypeError(f"{type(value).__name__}, expected {getattr(kind, '__name__', kind)}")
        return value

    try:
        column = "id"
        ident = typed(column, values["id"], int)
        column = "provider"
        provider = typed(column, values["provider"], str)
        column = "fetched_at"
        fetched_at = dt.datetime.fromtimestamp(typed(column, values["fetched_at"], (int, float)), dt.timezone.utc)
        column = "data_date"
        raw_date = values["data_date"]
        data_date = dt.date.fromisoformat(typed(column, raw_date, str)) if raw_date else None
        column = "source_kind"
        source_kind = typed(column, values["source_kind"], str)
        column = "source"
        source = typed(column, json.loads(values["source"]), dict)
        column = "key"
        key = typed(column, values["key"], str)
        column = "complete"
        complete = typed(column, values["complete"], (bool, int))
        column = "status"
        status = typed(column, json.loads(values["status"]), dict)
        column = "purchases"
        purchases = typed(column, json.loads(values["purchases"]), list)
        if not all(isinstance(p, str) for p in purchases):
            raise TypeError("not a list of purchase model names")
        column = "content_hash"
        content_hash = values["content_hash"]
        if content_hash is not None:
            typed(column, content_hash, str)
        column = "offers"
        offers = typed(column, values["offers"], int)
        column = "size"
        size = typed(column, values["size"], int)
        if offers < 0 or size < 0:
            raise ValueError("a negative count")
    except (TypeError, ValueError, OverflowError, OSError) as exc:  # json's errors are ValueErrors
        raise UndecodableRow(values["id"], values["provider"], f"column {column}: {exc}"[:300]) from None
    return Snapshot(provider=provider, fetched_at=fetched_at, data_date=data_date, source_kind=source_kind,
                    source=source, key=key, complete=bool(complete), status=status, purchases=tuple(purchases),
                    id=ident, content_hash=content_hash, offers=offers, size_bytes=size)


def decode_rows(rows: Iterable[tuple[Any, ...]], set_aside: Callable[[UndecodableRow, str], None]) -> list[Snapshot]:
    """The snapshots of ``rows``; a row that does not decode is logged and given to ``set_aside`` (with the row as
    text) instead, so one bad row never fails a read. ``set_aside`` errors (a read-only store) are logged."""
    out = []
    for row in rows:
        try:
            out.append(snapshot_from_row(row))
        except UndecodableRow as exc:
            log.warning("%s; set aside (quarantined), never served", exc)
            try:
                set_aside(exc, repr(row)[:4000])
            except StoreError as again:
                log.warning("could not set the row aside: %s", again)
    return out


def latest_good_filter(provider: str, key: str | None, max_age_s: float | None, now: dt.datetime | None, *,
                       mark: str, prefix: str = "", complete: str = "complete") -> tuple[str, list[Any]]:
    """The WHERE clause and arguments of :meth:`Store.latest_good` for a backend: ``mark`` is its placeholder
    (``?``, ``%s``), ``prefix`` its snapshot table's alias (``s.``), ``complete`` its true-test of the flag."""
    where = f"WHERE {prefix}provider = {mark} AND {prefix}{complete}"
    args: list[Any] = [provider]
    if key is not None:
        where += f" AND {prefix}key = {mark}"
        args.append(key)
    if max_age_s is not None:
        where += f" AND {prefix}fetched_at >= {mark}"
        args.append((now or dt.datetime.now(dt.timezone.utc)).timestamp() - max_age_s)
    return where, args


def columns_from_parts(snapshot: Snapshot, parts: Mapping[str, bytes]) -> OfferColumns:
    """A snapshot's offers from its stored parts, after checking them against its content hash.

    Raises:
        StoreError: the parts do not match the hash, or do not make valid columns (a damaged store).
    """
    from gpuhub.store.columns import ColumnsError, OfferColumns, _hash_parts

    if _hash_parts(parts) != snapshot.content_hash:
        raise StoreError(f"snapshot {snapshot.id} of {snapshot.provider}: stored content does not match its "
                         "hash (damaged store)")
    try:
        return OfferColumns.from_parts(parts)
    except ColumnsError as exc:
        raise StoreError(f"snapshot {snapshot.id} of {snapshot.provider}: {exc}") from None


def open_store(location: str | None = None, environ: Mapping[str, str] | None = None) -> Store | None:
    """Open the store at ``location`` (default: :func:`default_location`); None when the store is off.

    Raises:
        StoreError: the location cannot be created or opened.
    """
    where = location if location is not None else default_location(environ)
    if where is None:
        return None
    postgres = where.startswith(("postgresql://", "postgres://"))
    module, name = _BACKENDS["postgres" if postgres else "sqlite"]
    # A backend depends on this module's protocol, never the reverse: it is looked up by name, like a plugin.
    backend = getattr(importlib.import_module(module), name)
    store: Store = backend(where if postgres else Path(where))
    return store


_BACKENDS = {"sqlite": ("gpuhub.store.sqlite", "SqliteStore"), "postgres": ("gpuhub.store.postgres", "PostgresStore")}
"""Store backend -> (module, class): SQLite for a path, PostgreSQL for a ``postgresql://`` URL."""
