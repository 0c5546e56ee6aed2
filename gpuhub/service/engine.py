"""The engine: decides each provider's mode, fans out fetches concurrently, caches, and reports status.

- One fetch per provider at a time: concurrent callers share the in-flight fetch (single flight), and concurrent
  processes share one through the store's claim (a per-provider lock).
- Every fetch, live or replayed, becomes a snapshot in the offer store (:mod:`gpuhub.store`); a later process reads
  the newest good snapshot that is fresh enough instead of fetching (replays: until the recording or the parsing
  code changes; live: ``GPUHUB_FRESH_ON_DEMAND_S`` / ``GPUHUB_FRESH_SPOT_S``). In the process, parsed offers are
  also kept per (provider, mode, recording) in a cachetools TTL cache.
- A failed refresh, an empty answer, or a live answer the provider marked partial (``ctx.partial``: an interrupted
  walk, empty pages half-way) never replaces good data: the last good snapshot is served, marked ``stale`` with
  its age.
- A provider that does not answer within the timeout is reported as such; its fetch goes on in the background and
  fills the cache for the next search, and the other providers' offers are returned on time.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import logging
import os
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from cachetools import TTLCache

from gpuhub.answer.catalog import Catalog
from gpuhub.errors import CredentialsError, ProviderError, QueryError
from gpuhub.fetch.diskcache import DiskCache
from gpuhub.fetch.plugins import Registry
from gpuhub.fetch.provider import Mode, Provider, ProviderContext, ProviderStatus
from gpuhub.fetch.recording import Manifest, load_manifest
from gpuhub.fetch.retry import RetryPolicy
from gpuhub.model import Offer, Source

if TYPE_CHECKING:
    import httpx

    from gpuhub.store import Snapshot, SnapshotMeta, Store
    from gpuhub.store.columns import OfferColumns

__all__ = ["MODES", "Engine"]

log = logging.getLogger("gpuhub.service.engine")

BULK_OFFERS = 50_000
"""A provider that has yielded this many offers is a bulk ingest: the cyclic garbage collector's automatic runs
pause until it is done (see :class:`_BulkGc`)."""


class _BulkGc:
    """Pauses automatic cyclic garbage collection while any bulk ingest runs (reference counting still frees
    everything not in a cycle; the pause is what a million short-lived validated Offers would otherwise pay,
    about 8 % of the ingest). Counted across threads: automatic collection resumes when the last ingest ends,
    and only if it was on before."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders = 0
        self._was_enabled = False

    def pause(self) -> bool:
        with self._lock:
            if self._holders == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._holders += 1
        return True

    def resume(self) -> None:
        with self._lock:
            self._holders = max(0, self._holders - 1)
            if self._holders == 0 and self._was_enabled:
                gc.enable()


_bulk_gc = _BulkGc()
MODES = ("auto", "live", "replay", "record")
RequestedMode = Literal["auto", "live", "replay", "record"]


@dataclass(frozen=True)
class _Plan:
    provider: str
    mode: Mode
    recording: Path | None = None
    record_to: Path | None = None
    static: bool = False
    refresh: bool = False
    """Fetch again even when the store has fresh data (``--refresh``)."""
    max_age_s: float | None = None
    """How old stored live data may be, seconds (``--max-age``; default: per purchase model, see
    :meth:`Engine.freshness_s`)."""
    purchases: tuple[str, ...] | None = None
    """The purchase models the search asks for (None: all), for freshness."""

    @property
    def key(self) -> tuple[str, str, str | None]:
        return (self.provider, self.mode, str(self.recording) if self.recording else None)


_UNSET = object()


@dataclass
class _Entry:
    offers: Sequence[Offer]
    status: ProviderStatus
    fetched_at: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.timezone.utc))


class Engine:
    """Fetches offers from the registry's providers.

    Args:
        registry: the plugin registry (providers, GPU table).
        ttl_s: how long parsed offers stay fresh in the cache, seconds.
        timeout_s: how long one search waits for the providers, seconds.
        request_timeout_s: per-request HTTP timeout, seconds.
        retry: the retry policy for every request.
        environ: environment for credentials and settings (default: ``os.environ`` at each fetch).
        transport: a transport to use for live requests (tests point it at a local server or a mock).
        disk: compatibility: a :class:`~gpuhub.fetch.diskcache.DiskCache` naming the store directory (None in it: no
            store).
        store: the offer store (default: :func:`gpuhub.store.open_store` from ``GPUHUB_STORE``, opened on first
            use; None: nothing persists).
        fresh_on_demand_s, fresh_spot_s: how long stored live data stays fresh, seconds (default from
            ``GPUHUB_FRESH_ON_DEMAND_S`` / ``GPUHUB_FRESH_SPOT_S``, else 3600 / 600).
        min_fraction: a live answer with fewer offers than this fraction of the last complete one is taken as an
            incomplete walk and does not replace it (default 0: off, since one empty region among others is data,
            known fault C12; providers say an incomplete walk with ``ctx.partial`` or an error).
    """

    def __init__(self, registry: Registry, *, ttl_s: float = 900.0, timeout_s: float = 60.0,
                 request_timeout_s: float = 20.0, retry: RetryPolicy | None = None,
                 environ: Mapping[str, str] | None = None, transport: httpx.BaseTransport | None = None,
                 max_workers: int = 16, disk: DiskCache | None = None, store: Store | object | None = _UNSET,
                 fresh_on_demand_s: float | None = None, fresh_spot_s: float | None = None,
                 min_fraction: float = 0.0) -> None:
        self.registry = registry
        self.ttl_s = ttl_s
        self.timeout_s = timeout_s
        self.request_timeout_s = request_timeout_s
        self.retry = retry or RetryPolicy()
        self._environ = environ
        self._transport = transport
        self._cache: TTLCache[tuple[str, str, str | None], _Entry] = TTLCache(maxsize=512, ttl=ttl_s,
                                                                              timer=time.monotonic)
        self._last_good: dict[tuple[str, str, str | None], _Entry] = {}
        self._inflight: dict[tuple[str, str, str | None], Future[_Entry]] = {}
        self._lock = threading.Lock()
        self.max_response_bytes = 64 * 1024 * 1024
        """The largest answer read whole (``ctx.request``/``get_json``), bytes; streamed reads have no cap."""
        self.abandon_after_s = 120.0
        """A fetch still running this many seconds past its search's wait is stopped at its next request, body
        chunk or offer (seconds)."""
        self.fetch_count: dict[str, int] = {}
        self.disk = disk
        # An engine given only the old parsed-recordings cache (``disk=``) keeps replays there, as it used to.
        self._store_modes: tuple[str, ...] = ("replay",) if store is _UNSET and disk is not None else (
            "replay", "live", "record")
        if store is _UNSET and disk is not None:
            store = disk.open_store()
        self._store: Store | object | None = store
        self.fresh_on_demand_s = _seconds(fresh_on_demand_s, self.environ, "GPUHUB_FRESH_ON_DEMAND_S", 3600.0)
        self.fresh_spot_s = _seconds(fresh_spot_s, self.environ, "GPUHUB_FRESH_SPOT_S", 600.0)
        self.min_fraction = min_fraction
        self._catalogs: list[tuple[tuple[Sequence[Offer], ...], Catalog]] = []
        self._rate_limits: dict[tuple[str, str], dt.datetime] = {}
        """(provider, base URL) -> the server's time before which it must not be asked (its ``Retry-After``)."""

    @property
    def environ(self) -> Mapping[str, str]:
        return os.environ if self._environ is None else self._environ

    # --- planning -----------------------------------------------------------------------------------------
    def plan(self, provider: Provider, mode: RequestedMode = "auto", fixtures_dir: Path | None = None,
             record_dir: Path | None = None) -> _Plan | str:
        """Decide how to get ``provider``'s data; a string is the reason it is skipped."""
        if mode not in MODES:
            raise QueryError("mode", f"{mode!r} is not a mode; allowed: {', '.join(MODES)}")
        if provider.static and fixtures_dir is None:
            return _Plan(provider.name, "replay", provider.fixtures_dir(), static=True)
        if fixtures_dir is not None:  # the user's recordings replace the bundled ones (static tables included)
            for candidate in (fixtures_dir / provider.name, fixtures_dir):
                if (candidate / "manifest.json").is_file() and (
                        candidate != fixtures_dir or _manifest_provider(candidate) == provider.name):
                    return _Plan(provider.name, "replay", candidate, static=provider.static)
            expected = fixtures_dir / provider.name / "manifest.json"
            problem = _manifest_problem(fixtures_dir)
            return f"no recording for {provider.name} in {fixtures_dir} (expected {expected})" + (
                f"; {fixtures_dir / 'manifest.json'} cannot be used: {problem}" if problem else "")
        if mode == "record":
            target = (record_dir or Path("fixtures")) / provider.name
            return _Plan(provider.name, "record", record_to=target)
        live_ok = provider.credentials_configured(self.environ) or not provider.credentials
        if mode == "live" or (mode == "auto" and provider.credentials and live_ok):
            return _Plan(provider.name, "live")
        bundled = provider.fixtures_dir()
        if bundled is not None and (bundled / "manifest.json").is_file():
            return _Plan(provider.name, "replay", bundled)
        if not provider.credentials:  # nothing to configure: only an explicit live fetch or a recording
            return (f"{provider.name} has no bundled recording to replay; it needs no credentials, so ask for it "
                    "live with --fetch live (fetch='live'), or replay your own recording with --fixtures DIR")
        return f"no credentials configured and no bundled recording: {provider.credentials_help()}"

    # --- fetching -----------------------------------------------------------------------------------------
    def collect(self, providers: Iterable[str], *, mode: RequestedMode = "auto", fixtures_dir: Path | None = None,
                refresh: bool = False, timeout_s: float | None = None, record_dir: Path | None = None,
                deadline: float | None = None, max_age_s: float | None = None,
                purchases: Sequence[str] | None = None) -> list[tuple[Sequence[Offer], ProviderStatus]]:
        """Offers and a status for each named provider, fetched concurrently, within ``timeout_s`` seconds (a live
        provider that declares a longer :attr:`Provider.timeout_s` gets that long, unless ``timeout_s`` is given),
        and never past ``deadline`` (a ``time.monotonic()`` value; the CLI's counts from the process start).

        A provider still running then is reported ``timed out``; its fetch runs on in a daemon thread (it may fill
        the cache for a later search, for at most :attr:`abandon_after_s` more seconds) and is never waited for,
        not even at interpreter exit.

        ``refresh`` fetches again even when the store holds fresh data; ``max_age_s`` bounds the age of stored live
        data (seconds; default per purchase model, :meth:`freshness_s`); ``purchases`` are the purchase models the
        caller needs (their freshness applies)."""
        started = time.monotonic()
        began = dt.datetime.now(dt.timezone.utc)
        budget = self.timeout_s if timeout_s is None else timeout_s
        waiting: list[tuple[_Plan, Future[_Entry] | _Entry]] = []
        results: list[tuple[Sequence[Offer], ProviderStatus]] = []
        for name in providers:
            provider = self.registry.providers[name]
            try:
                plan = self.plan(provider, mode, fixtures_dir, record_dir)
            except QueryError:
                raise
            except Exception as exc:  # plugin code (fixtures_dir(), credentials) failing is that provider's failure
                results.append(((), ProviderStatus(name, "failed", reason=_describe(exc))))
                continue
            if isinstance(plan, str):
                results.append(((), ProviderStatus(name, "skipped", reason=plan)))
                continue
            if plan.mode == "replay" and mode == "auto" and fixtures_dir is None and \
                    self.environ.get("GPUHUB_CATALOG_URL", "").strip():
                # A published catalog stands in for the bundled recording (issue 15: gpuhub/publish/serve.py).
                from gpuhub.publish.serve import published_offers

                served = published_offers(self.environ, name)
                if served is not None:
                    results.append(served)
                    continue
            plan = replace(plan, refresh=refresh, max_age_s=max_age_s,
                           purchases=tuple(purchases) if purchases else None)
            waiting.append((plan, self._start(provider, plan, refresh)))
        for plan, job in waiting:
            if isinstance(job, _Entry):
                results.append((job.offers, job.status))
                continue
            allowed = budget
            own = self.registry.providers[plan.provider].timeout_s
            if timeout_s is None and own is not None and plan.mode != "replay":
                allowed = max(budget, own)
            until = started + allowed if deadline is None else min(deadline, started + allowed)
            try:
                entry = job.result(timeout=max(0.0, until - time.monotonic()))
            except FutureTimeout:
                entry = self._fallback(plan, f"timed out after {allowed:g} s (its fetch goes on in the background "
                                             "while this process runs)", own_since=began)
            results.append((entry.offers, entry.status))
        return results

    def warm(self, providers: Iterable[str], *, mode: RequestedMode = "auto",
             fixtures_dir: Path | None = None) -> None:
        """Start fetching in the background without waiting (preload before the first search)."""
        for name in providers:
            provider = self.registry.providers[name]
            plan = self.plan(provider, mode, fixtures_dir)
            if not isinstance(plan, str):
                self._start(provider, plan, refresh=False)

    def _start(self, provider: Provider, plan: _Plan, refresh: bool) -> Future[_Entry] | _Entry:
        with self._lock:
            if not refresh and plan.mode != "record":
                cached = self._cache.get(plan.key)
                if cached is not None:
                    return cached
            running = self._inflight.get(plan.key)
            if running is not None:
                return running
            future: Future[_Entry] = Future()
            self._inflight[plan.key] = future
        # A daemon thread per fetch (not a ThreadPoolExecutor, whose threads are joined at interpreter exit): a
        # fetch that hangs, sleeps or reads forever never keeps the process alive.
        worker = threading.Thread(target=self._run, args=(provider, plan, future), daemon=True,
                                  name=f"gpuhub-fetch-{provider.name}")
        worker.start()
        return future

    def _run(self, provider: Provider, plan: _Plan, future: Future[_Entry] | None = None) -> _Entry:
        try:
            entry = self._fetch(provider, plan)
        except BaseException as exc:  # a provider bug must never take a search down
            # The traceback of a provider bug is for developers: logged at DEBUG, the status says what failed.
            log.warning("provider %s failed: %s", provider.name, exc)
            log.debug("provider %s failure", provider.name, exc_info=True)
            entry = self._fallback(plan, _describe(exc))
        finally:
            with self._lock:
                self._inflight.pop(plan.key, None)
        if future is not None:
            future.set_result(entry)
        return entry

    # --- the store: snapshots that outlive the process ----------------------------------------------------
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
                return replay_key(self.registry, provider, manifest,
                                  self._replay_source(provider, plan, manifest).label(), store)
            if plan.mode in ("live", "record"):
                base = self.environ.get(f"GPUHUB_{provider.name.upper().replace('-', '_')}_BASE_URL")
                return live_key(self.registry, provider, (base or provider.base_url).rstrip("/"))
        except OSError:
            return None
        return None  # a static provider without a recording: its packaged table is read each time

    def _fetch(self, provider: Provider, plan: _Plan) -> _Entry:
        started = time.monotonic()
        try:
            manifest: Manifest | None = load_manifest(plan.recording) if plan.recording else None
        except (OSError, ValueError) as exc:
            raise ProviderError(f"recording {plan.recording} cannot be read: {exc}") from None
        key = self._snapshot_key(provider, plan, manifest)
        store = self.store if key is not None and plan.mode in self._store_modes else None
        if store is None or plan.mode == "record":
            return self._held_back(provider, plan) or self._fetch_now(provider, plan, manifest, started, key, store)
        if not plan.refresh:
            hit = self._stored(store, provider, plan, key, started)
            if hit is not None:
                return hit
        held_back = self._held_back(provider, plan)
        if held_back is not None:
            return held_back
        waiting = time.monotonic()
        # One fetch per provider across processes: the others wait, then read what it stored.
        budget = max(self.timeout_s, provider.timeout_s or 0.0) if plan.mode != "replay" else self.timeout_s
        with store.claim(provider.name, budget) as held:
            if held:
                hit = self._stored(store, provider, plan, key, started,
                                   since_s=time.monotonic() - waiting if plan.refresh else None)
                if hit is not None:
                    return hit
                held_back = self._held_back(provider, plan)  # another process may just have been told to wait
                if held_back is not None:
                    return held_back
            return self._fetch_now(provider, plan, manifest, started, key, store)

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
            columns = _checked(store, snap)
        except StoreError as exc:
            log.warning("%s; fetching %s again", exc, provider.name)
            return None
        status = _stored_status(snap, "ok", time.monotonic() - started)
        if plan.mode == "live":
            status.reason = f"from the store, fetched {_age(age)} ago"
        entry = _Entry(columns, status, snap.fetched_at)
        with self._lock:
            self._cache[plan.key] = entry
            self._last_good[plan.key] = entry
        return entry

    def _fetch_now(self, provider: Provider, plan: _Plan, manifest: Manifest | None, started: float,
                   key: str | None, store: Store | None) -> _Entry:
        import httpx  # only a real fetch needs it: a search served from the store sends no request

        from gpuhub.fetch.transports import GuardedTransport, RecordingTransport, ReplayTransport, no_network

        recorder: RecordingTransport | None = None
        if plan.mode == "replay" and manifest is not None:
            transport: httpx.BaseTransport = ReplayTransport(manifest)
            source = self._replay_source(provider, plan, manifest)
        elif plan.mode == "replay":  # a static provider without a manifest reads its own packaged table
            transport = httpx.MockTransport(no_network)
            source = Source(mode="static", recording=provider.name)
        else:
            inner = self._transport or httpx.HTTPTransport(retries=0)
            if plan.mode == "record" and plan.record_to is not None:
                recorder = RecordingTransport(inner, plan.record_to, provider.name,
                                              source=f"gpuhub record {provider.name}")
                transport = recorder
            else:
                transport = inner
            source = Source(mode="live", recorded_at=dt.datetime.now(dt.timezone.utc).date(),
                            kind="live-capture")
        from gpuhub._version import __version__

        own = provider.timeout_s if plan.mode != "replay" and provider.timeout_s is not None else 0.0
        stop = _Stop(started + max(self.timeout_s, own) + self.abandon_after_s)
        transport = GuardedTransport(transport, stop, self.max_response_bytes)
        client = httpx.Client(transport=transport, timeout=self.request_timeout_s, follow_redirects=True,
                              headers={"User-Agent": f"gpuhub/{__version__}"})
        ctx = ProviderContext(provider, client, mode=plan.mode, source=source, gpus=self.registry.gpus,
                              environ=self.environ, retry=self.retry,
                              recording=manifest if plan.mode == "replay" else None,
                              deadline=started + max(self.timeout_s, own))
        with self._lock:
            self.fetch_count[provider.name] = self.fetch_count.get(provider.name, 0) + 1
        try:
            offers = self._collect_offers(provider, ctx, stop)
        except BaseException as exc:
            if recorder is not None:
                recorder.discard()  # a failed recording never replaces the last good one
            self._remember_attempt(store, plan, key, source, manifest, ProviderStatus(
                provider.name, "failed", reason=_describe(exc), mode=plan.mode,
                fetched_at=dt.datetime.now(dt.timezone.utc), elapsed_s=time.monotonic() - started))
            self._note_rate_limit(provider, plan, exc)
            raise
        finally:
            if recorder is not None:
                for value in ctx.secrets_seen:
                    recorder.add_secret(value)
            client.close()
        if recorder is not None:
            # Only a whole, non-empty recording replaces the old one (its directory is swapped in at once).
            if not offers:
                recorder.discard()
                raise ProviderError(f"recording not saved: the provider answered with no offers; the previous "
                                    f"recording in {plan.record_to} is kept")
            recorder.save()
        report = ctx.report
        status = ProviderStatus(
            provider.name, "ok", mode=source.mode, source=source.label(), offers=len(offers),
            skipped_records=report.skipped_total, skipped_reasons=dict(report.skipped.most_common(20)),
            unknown_gpus=dict(report.unknown_gpus), warnings=list(report.warnings),
            fetched_at=dt.datetime.now(dt.timezone.utc), elapsed_s=time.monotonic() - started,
            partial_reasons=dict(report.partial),
        )
        _provenance(status, source, manifest)
        _price_dates(status, offers, provider)
        if manifest is not None and manifest.kind == "reconstructed":
            status.warnings.append(f"recording reconstructed from published prices ({manifest.source})"[:300])
        if plan.static:
            when = manifest.recorded_at.isoformat() if manifest and manifest.recorded_at else "unknown date"
            status.reason = f"static price table, verified {when}"
        previous, previous_partial = self._previous_good(store, plan, key)
        if status.partial and plan.mode != "replay" and previous and not previous_partial:
            # A partial answer (the provider said part of its catalog is missing) never replaces a complete one.
            self._remember_attempt(store, plan, key, source, manifest, status)
            return self._fallback(plan, "the provider delivered part of its catalog ("
                                        + "; ".join(sorted(status.partial_reasons))[:200] + ")")
        if not offers and previous:
            self._remember_attempt(store, plan, key, source, manifest, status)
            return self._fallback(plan, f"the provider answered with no offers where it had {previous} before")
        if offers and plan.mode != "replay" and previous and len(offers) < self.min_fraction * previous:
            # A walk that stopped early (an empty page half-way, a truncated answer) looks like a smaller catalog.
            self._remember_attempt(store, plan, key, source, manifest, status)
            return self._fallback(plan, f"the provider answered with {len(offers)} offers where the last complete "
                                        f"fetch had {previous} (an incomplete walk?)")
        if not offers:
            status.warnings.append("the provider returned no offers")
            if report.skipped_total:
                # Records came and none parsed: most likely the API changed shape. Say so loudly.
                top = "; ".join(f"{why} (×{n})" for why, n in report.skipped.most_common(3))
                status.warnings.append(f"every record was skipped ({report.skipped_total}): {top}; the API's "
                                       "answer may have changed shape")
            self._remember_attempt(store, plan, key, source, manifest, status)
            if plan.mode == "replay":  # a recording edited or cut to nothing: the last good replay, as stale
                kept = self._fallback(plan, "the recording gave no offers")
                if kept.status.state == "stale":
                    return kept
            return _Entry((), status)  # an empty answer is reported, never cached as the catalog
        if store is not None and key is not None:
            from gpuhub.store import StoreError, StoreReadOnly

            try:
                stored = store.put_snapshot(_meta(plan, key, source, manifest, status, True, offers.purchases()),
                                            offers)
            except StoreError as exc:  # a read-only store has said so once already
                log.log(logging.DEBUG if isinstance(exc, StoreReadOnly) else logging.WARNING,
                        "%s; the offers of %s are not kept for the next process", exc, provider.name)
            else:
                # Price history (issue 15): fold the new snapshot into the change log; never raises.
                from gpuhub.history.log import record_snapshot

                record_snapshot(store, stored, offers)
        entry = _Entry(offers, status)
        with self._lock:
            self._cache[plan.key] = entry
            self._last_good[plan.key] = entry
        return entry

    # --- rate limits: never ask before the server's time, in this process or the next (issue 12) -----------
    def _endpoint(self, provider: Provider) -> str:
        base = self.environ.get(f"GPUHUB_{provider.name.upper().replace('-', '_')}_BASE_URL")
        return (base or provider.base_url or "").rstrip("/")

    def _note_rate_limit(self, provider: Provider, plan: _Plan, exc: BaseException) -> None:
        """Remember the server's retry time when the fetch stopped on a ``Retry-After`` beyond the budget (in this
        engine, and in the offer store for later processes)."""
        from gpuhub.fetch.retry import RateLimitedError

        # A plugin may wrap the error (``raise type(exc)(...) from exc`` keeps the type, not the time): the latest
        # retry time down the chain of causes is the server's.
        found: list[RateLimitedError] = []
        link: BaseException | None = exc
        for _ in range(8):
            if link is None:
                break
            if isinstance(link, RateLimitedError):
                found.append(link)
            link = link.__cause__ or link.__context__
        if not found or plan.mode == "replay":
            return
        until = max(e.retry_at for e in found)
        endpoint = self._endpoint(provider)
        with self._lock:
            self._rate_limits[(provider.name, endpoint)] = until
        store = self.store if plan.mode in self._store_modes else None
        if store is not None:
            from gpuhub.store.ratelimit import remember_rate_limit

            remember_rate_limit(store, provider.name, endpoint, until, str(found[0]))

    def _held_back(self, provider: Provider, plan: _Plan) -> _Entry | None:
        """While the server's ``Retry-After`` time has not come (told to this process or, through the store, an
        earlier one), the provider is not asked: the last good data is served, stale, saying until when; a refresh
        does not override the server's request. None when the provider may be asked."""
        if plan.mode == "replay":
            return None
        endpoint = self._endpoint(provider)
        now = dt.datetime.now(dt.timezone.utc)
        with self._lock:
            until = self._rate_limits.get((provider.name, endpoint))
        store = self.store if plan.mode in self._store_modes else None
        if store is not None:
            from gpuhub.store.ratelimit import stored_rate_limit

            stored = stored_rate_limit(store, provider.name, endpoint, now)
            until = stored if until is None or (stored is not None and stored > until) else until
        if until is None or until <= now:
            return None
        reason = (f"rate limited until {until.isoformat()} (the server's Retry-After): not asked again before then"
                  + ("; --refresh does not override the server's request" if plan.refresh else ""))
        entry = self._fallback(plan, reason)
        if entry.status.state == "failed":
            entry.status.reason = f"{reason}; no earlier data of {provider.name} is stored, so there is none to show"
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
    def _replay_source(provider: Provider, plan: _Plan, manifest: Manifest) -> Source:
        # Bundled recordings are labelled with the provider's name, a user's with their directory's name.
        bundled = plan.recording == provider.fixtures_dir()
        label = provider.name if bundled or plan.recording is None else plan.recording.name
        return Source(mode="static" if plan.static else "replay", recording=label,
                      recorded_at=manifest.recorded_at, kind=manifest.kind, data_date=manifest.data_date,
                      data_date_known=manifest.data_date_known)

    def _collect_offers(self, provider: Provider, ctx: ProviderContext, stop: _Stop | None = None) -> OfferColumns:
        """Every offer ``fetch`` yields, each checked again here however it was built (:mod:`gpuhub.store.validate`):
        bad ones are skipped and counted, never served. Offers go straight into columns: a provider yielding a
        million offers never has them all alive at once."""
        from gpuhub.model import known_purchase_models
        from gpuhub.store.columns import ColumnBuilder

        purchases = frozenset(known_purchase_models())
        builder = ColumnBuilder()
        add, name = builder.add_checked, provider.name  # checks each distinct part once (offer_problem's checks)
        paused = False
        try:
            for n, item in enumerate(provider.fetch(ctx)):
                if n % 1000 == 0:
                    if stop is not None:
                        stop.check()
                    if n == BULK_OFFERS:
                        paused = _bulk_gc.pause()
                problem = add(item, name, purchases)
                if problem is not None:
                    ctx.skip(problem)
        finally:
            if paused:
                _bulk_gc.resume()
        return builder.build()

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

    def catalog(self, parts: Sequence[Sequence[Offer]]) -> Catalog:
        """The columnar index over these providers' offers, built once and reused while the same results are
        served from the cache (identity of the offer sequences is the key)."""
        with self._lock:
            for kept_parts, built in self._catalogs:
                if len(kept_parts) == len(parts) and all(a is b for a, b in zip(kept_parts, parts, strict=True)):
                    return built
        kinds = {name: provider.kind for name, provider in self.registry.providers.items()}
        built = Catalog.from_parts(parts, self.registry.gpus, kinds)
        with self._lock:
            self._catalogs.insert(0, (tuple(parts), built))
            del self._catalogs[4:]
        return built

    def clear(self) -> None:
        """Forget cached offers (the last good data is kept for stale fallback)."""
        with self._lock:
            self._cache.clear()

    def shutdown(self) -> None:
        """Stop waiting for anything: fetches still running are daemon threads, abandoned (never joined)."""


class _Stop:
    """When an abandoned fetch stops: checked before each request, at each body chunk and every 1000 offers."""

    def __init__(self, at: float) -> None:
        self.at = at

    def check(self) -> None:
        if time.monotonic() > self.at:
            raise ProviderError("abandoned: the fetch ran far past the search's timeout")


def _provenance(status: ProviderStatus, source: Source, manifest: Manifest | None) -> None:
    """Fill a status's source kind and the date of its data (from the recording's manifest when replayed)."""
    status.source_kind = source.source_kind
    status.data_date = source.date_of_data
    if manifest is not None and manifest.data_date_note:
        status.data_date_note = manifest.data_date_note


def _price_dates(status: ProviderStatus, offers: OfferColumns, provider: Provider) -> None:
    """The range of the offers' own price dates (newest as ``data_date``, for staleness), how many are undated,
    and the provider's declared price-change period."""
    oldest, newest, undated = offers.data_dates()
    status.undated_offers = undated
    status.price_change_period_s = provider.price_change_period_s
    if newest is not None:
        status.data_date, status.oldest_data_date = newest, oldest


def _describe(exc: BaseException) -> str:
    """The status reason for a failure, with every credential value read in this process blanked (a provider bug
    may echo one). Only known values: the pattern rules of :func:`redact` would also eat prose like "token: the"."""
    from gpuhub.fetch.recording import REDACTED, known_secret_forms

    if isinstance(exc, CredentialsError):
        text = f"credentials: {exc}"
    elif isinstance(exc, ProviderError):
        text = str(exc) if exc.code is None or exc.code in str(exc) else f"{exc} (code {exc.code})"
    else:
        text = f"{type(exc).__name__}: {exc}"
    for secret in known_secret_forms():
        text = text.replace(secret, REDACTED)
    return text


def _manifest_problem(directory: Path) -> str | None:
    """Why ``directory/manifest.json`` cannot be read, when it exists and cannot (None otherwise)."""
    if not (directory / "manifest.json").exists():
        return None
    try:
        load_manifest(directory)
    except (OSError, ValueError) as exc:
        return str(exc)[:300]
    return None


def _manifest_provider(directory: Path) -> str | None:
    try:
        return load_manifest(directory).provider
    except (OSError, ValueError):
        return None


def _seconds(value: float | None, environ: Mapping[str, str], name: str, default: float) -> float:
    if value is not None:
        return value
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        seconds = float(raw)
        if seconds < 0 or seconds != seconds:
            raise ValueError
    except ValueError:
        log.warning("%s=%r is not a number of seconds; using %g", name, raw, default)
        return default
    return seconds


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


def _checked(store: Store, snap: Snapshot) -> OfferColumns:
    """A snapshot's columns, validated; a damaged snapshot is discarded (with a warning) and StoreError raised."""
    from gpuhub.store import StoreError
    from gpuhub.store.columns import ColumnsError

    try:
        columns = store.read_columns(snap)
        columns.validate(snap.provider)
        return columns
    except (StoreError, ColumnsError) as exc:
        log.warning("discarding unusable snapshot %s of %s: %s", snap.id, snap.provider, str(exc)[:200])
        with contextlib.suppress(StoreError):
            store.discard(snap)
        raise StoreError(f"snapshot {snap.id} of {snap.provider} was unusable") from None
