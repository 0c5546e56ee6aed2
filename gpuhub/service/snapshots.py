"""Serving from the offer store: the newest good snapshot that is fresh enough, the last good data when a fetch fails
(marked stale with its age), and the record of failed attempts. Reads and writes only through
:class:`~gpuhub.store.Store`; fetches nothing.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

from gpuhub.derived import data_date_of
from gpuhub.display import source_label
from gpuhub.fetch.provider import Provider, ProviderStatus
from gpuhub.fetch.recording import Manifest
from gpuhub.service.enginestate import _UNSET, EngineState, _Entry
from gpuhub.service.fetchplan import _Plan

if TYPE_CHECKING:
    from gpuhub.model import Source
    from gpuhub.store import Snapshot, SnapshotMeta, Store
    from gpuhub.store.columns import OfferColumns

__all__ = ["SnapshotServing"]

log = logging.getLogger("gpuhub.service.engine")


class SnapshotServing(EngineState):
    """The engine's part that reads snapshots from the store and serves the last good data."""

    @property
    def store(self) -> Store | None:
        """The offer store (opened on first use from ``GPUHUB_STORE``; None when off or it cannot be opened)."""
        with self._lock:
            if self._store is _UNSET:
                from gpuhub.store import StoreError, open_store

                try:
                    self._store = open_store(environ=self.environ)
                except StoreError as exc:
                    logging.getLogger("gpuhub.store").warning("offer store not usable, searching without it: %s",
                                                              exc)
                    self._store = None
            return self._store  # type: ignore[return-value]

    def freshness_s(self, purchases: Iterable[str]) -> float:
        """How long stored live data stays fresh for these purchase models, seconds: the shortest of their
        kinds (spot and low-priority prices and capacity change often: ``GPUHUB_FRESH_SPOT_S``, default 600;
        everything else ``GPUHUB_FRESH_ON_DEMAND_S``, default 3600)."""
        kinds = set(purchases)
        spot = bool(kinds & {"spot", "low_priority"})
        rest = bool(kinds - {"spot", "low_priority"}) or not kinds
        ages = ([self.fresh_spot_s] if spot else []) + ([self.fresh_on_demand_s] if rest else [])
        return min(ages)

    def _snapshot_key(self, provider: Provider, plan: _Plan, manifest: Manifest | None) -> str | None:
        from gpuhub.fetch.keys import live_key, replay_key

        try:
            if manifest is not None and plan.mode == "replay":
                store = self.store if plan.mode in self._store_modes else None
                return replay_key(self.registry, provider, manifest, self._replay_label(provider, plan, manifest),
                                  store)
            if plan.mode in ("live", "record"):
                base = self.environ.get(f"GPUHUB_{provider.name.upper().replace('-', '_')}_BASE_URL")
                return live_key(self.registry, provider, (base or provider.base_url).rstrip("/"))
        except OSError:
            return None
        return None  # a static provider without a recording: its packaged table is read each time

    def _stored(self, store: Store, provider: Provider, plan: _Plan, key: str | None, started: float,
                since_s: float | None = None) -> _Entry | None:
        """The newest good snapshot under ``key`` that is fresh enough (a replay's never ages; ``since_s``: only
        one stored in the last seconds, by another process, while this one waited for the claim)."""
        from gpuhub.store import StoreError

        try:
            snap = store.latest_good(provider.name, key=key, max_age_s=since_s)
            if snap is None:
                return None
            age = snap.age_s()
            if since_s is None and plan.mode == "live":
                allowed = plan.max_age_s if plan.max_age_s is not None else self.freshness_s(
                    [p for p in snap.purchases if plan.purchases is None or p in plan.purchases])
                if age > allowed:
                    return None
            # Served under its key, which names this gpuhub's code: this code checked every offer when it stored
            # them, so the rows are not validated again (models are built for the rows shown).
            columns = _checked(store, snap, trusted=key is not None and snap.key == key)
        except StoreError as exc:
            log.warning("%s; fetching %s again", exc, provider.name)
            return None
        status = _stored_status(snap, "ok", time.monotonic() - started)
        if plan.mode == "live":
            status.reason = f"from the store, fetched {_age(age)} ago"
        else:  # a replay's offers, parsed once and kept: the line says so, as a live one does
            status.reason = "from the store" + (f"; {status.reason}" if status.reason else "")
        entry = _Entry(columns, status, snap.fetched_at)
        with self._lock:
            self._cache[plan.key] = entry
            self._last_good[plan.key] = entry
        return entry

    def _previous_good(self, store: Store | None, plan: _Plan, key: str | None) -> tuple[int, bool]:
        """Offers in the last good answer under this plan (this process's, else the store's; 0 if none), and
        whether that answer was itself partial."""
        kept = self._last_good.get(plan.key)
        if kept is not None and kept.offers:
            return len(kept.offers), kept.status.partial
        if store is None or key is None:
            return 0, False
        from gpuhub.store import StoreError

        try:
            snap = store.latest_good(plan.provider, key=key)
        except StoreError:
            return 0, False
        return (snap.offers, bool(snap.status.get("partial_reasons"))) if snap is not None else (0, False)

    @staticmethod
    def _remember_attempt(store: Store | None, plan: _Plan, key: str | None, source: Source,
                          manifest: Manifest | None, status: ProviderStatus) -> None:
        """Record a failed, empty or incomplete fetch (never served; ``gpuhub store show`` lists it)."""
        if store is None or key is None:
            return
        from gpuhub.store import StoreError

        try:
            store.put_snapshot(_meta(plan, key, source, manifest, status, False, ()), None)
        except StoreError as exc:
            log.debug("could not record the attempt: %s", exc)

    @staticmethod
    def _recording_label(provider: Provider, plan: _Plan) -> str:
        # Bundled recordings are labelled with the provider's name, a user's with their directory's name.
        bundled = plan.recording == provider.fixtures_dir()
        return provider.name if bundled or plan.recording is None else plan.recording.name

    @classmethod
    def _replay_source(cls, provider: Provider, plan: _Plan, manifest: Manifest) -> Source:
        from gpuhub.model import Source

        return Source(mode="static" if plan.static else "replay", recording=cls._recording_label(provider, plan),
                      recorded_at=manifest.recorded_at, kind=manifest.kind, data_date=manifest.data_date,
                      data_date_known=manifest.data_date_known)

    @classmethod
    def _replay_label(cls, provider: Provider, plan: _Plan, manifest: Manifest) -> str:
        """``_replay_source(...).label()`` without building the model (a search served from the store needs only
        the label, for the snapshot's key)."""
        when = data_date_of(manifest.data_date, manifest.recorded_at, manifest.data_date_known)
        return source_label("static" if plan.static else "replay", cls._recording_label(provider, plan), when,
                            manifest.data_date_known)

    def _fallback(self, plan: _Plan, reason: str, own_since: dt.datetime | None = None) -> _Entry:
        """The last good data of ``plan``'s provider, marked stale with ``reason`` (failed when there is none).
        ``own_since``: when this search began; data stored since then is its own fetch, finished just as its time
        ran out: served as it is, never as stale."""
        previous = self._last_good.get(plan.key)
        if previous is None:
            previous = self._stored_fallback(plan)
        if previous is None:
            return _Entry((), ProviderStatus(plan.provider, "failed", reason=reason, mode=plan.mode))
        if own_since is not None and previous.fetched_at >= own_since and previous.status.state == "ok":
            return previous
        prev = previous.status
        age = (dt.datetime.now(dt.timezone.utc) - previous.fetched_at).total_seconds()
        status = ProviderStatus(
            plan.provider, "stale", reason=f"{reason}; showing the last good data from "
                                           f"{previous.fetched_at.isoformat(timespec='seconds')} ({_age(age)} old)",
            mode=prev.mode, source=prev.source, offers=len(previous.offers), skipped_records=prev.skipped_records,
            skipped_reasons=prev.skipped_reasons, unknown_gpus=prev.unknown_gpus, warnings=prev.warnings,
            fetched_at=previous.fetched_at, elapsed_s=prev.elapsed_s, source_kind=prev.source_kind,
            data_date=prev.data_date, data_date_note=prev.data_date_note, partial_reasons=prev.partial_reasons,
            oldest_data_date=prev.oldest_data_date, undated_offers=prev.undated_offers,
            price_change_period_s=prev.price_change_period_s)
        return _Entry(previous.offers, status, previous.fetched_at)

    def _stored_fallback(self, plan: _Plan) -> _Entry | None:
        """The newest complete stored snapshot of the same kind (live for a live fetch, recorded for a replay),
        any age, written by this process or an earlier one."""
        store = self.store if plan.mode in self._store_modes else None
        if store is None:
            return None
        from gpuhub.store import StoreError

        live = plan.mode in ("live", "record")
        try:
            for snap in store.snapshots(plan.provider, limit=200):
                if snap.complete and (snap.source_kind == "live") == live:
                    return _Entry(_checked(store, snap), _stored_status(snap, "ok", None), snap.fetched_at)
        except StoreError as exc:
            log.warning("%s", exc)
        return None


def _age(seconds: float) -> str:
    """A short human age: ``45 s``, ``12 min``, ``3 h 5 min``, ``2 d 4 h``."""
    s = max(0, int(seconds))
    if s < 120:
        return f"{s} s"
    if s < 7200:
        return f"{s // 60} min"
    if s < 172800:
        return f"{s // 3600} h {s % 3600 // 60} min"
    return f"{s // 86400} d {s % 86400 // 3600} h"


def _meta(plan: _Plan, key: str, source: Source, manifest: Manifest | None, status: ProviderStatus, complete: bool,
          purchases: tuple[str, ...]) -> SnapshotMeta:
    from gpuhub.store import SnapshotMeta

    return SnapshotMeta(provider=plan.provider, fetched_at=status.fetched_at or dt.datetime.now(dt.timezone.utc),
                        data_date=status.data_date, source_kind=source.source_kind,
                        source=source.model_dump(mode="json"), key=key, complete=complete, status=status.to_dict(),
                        purchases=purchases)


def _stored_status(snap: Snapshot, state: Literal["ok", "stale"], elapsed_s: float | None) -> ProviderStatus:
    """The status a stored snapshot was saved with, as served now (its fetch time is the snapshot's)."""
    saved = snap.status
    return ProviderStatus(
        snap.provider, state, reason=saved.get("reason"), mode=saved.get("mode"), source=saved.get("source"),
        offers=snap.offers, skipped_records=int(saved.get("skipped_records") or 0),
        skipped_reasons=dict(saved.get("skipped_reasons") or {}), unknown_gpus=dict(saved.get("unknown_gpus") or {}),
        warnings=list(saved.get("warnings") or []), fetched_at=snap.fetched_at, elapsed_s=elapsed_s,
        source_kind=saved.get("source_kind") or snap.source_kind, data_date=snap.data_date,
        data_date_note=saved.get("data_date_note"), partial_reasons=dict(saved.get("partial_reasons") or {}),
        oldest_data_date=_iso_date(saved.get("oldest_data_date")), undated_offers=int(saved.get("undated_offers") or 0),
        price_change_period_s=saved.get("price_change_period_s"))


def _iso_date(value: Any) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def _checked(store: Store, snap: Snapshot, trusted: bool = False) -> OfferColumns:
    """A snapshot's columns, validated (``trusted``: stored by this very code under the key asked for, so only the
    checks that need no model, :meth:`OfferColumns.check`; its content hash is checked on every read); a damaged
    snapshot is discarded (with a warning) and StoreError raised."""
    from gpuhub.store import StoreError
    from gpuhub.store.columns import ColumnsError

    try:
        columns = store.read_columns(snap)
        if trusted:
            columns.check(snap.provider)
        else:
            columns.validate(snap.provider)
        return columns
    except (StoreError, ColumnsError) as exc:
        log.warning("discarding unusable snapshot %s of %s: %s", snap.id, snap.provider, str(exc)[:200])
        with contextlib.suppress(StoreError):
            store.discard(snap)
        raise StoreError(f"snapshot {snap.id} of {snap.provider} was unusable") from None
