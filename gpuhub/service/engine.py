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

The engine is assembled from parts with one job each: :mod:`~gpuhub.service.fetchplan` (how to get each provider's
data), :mod:`~gpuhub.service.snapshots` (serving from the store, stale fallback),
:mod:`~gpuhub.service.ratelimits` (``Retry-After``), :mod:`~gpuhub.service.fetchone` (one provider's fetch); this
module schedules the fetches (threads, single flight, deadlines) and keeps the in-process caches.
"""

from __future__ import annotations

import datetime as dt
import gc
import logging
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from cachetools import TTLCache

from gpuhub.answer.catalog import Catalog
from gpuhub.errors import ProviderError, QueryError
from gpuhub.fetch.diskcache import DiskCache
from gpuhub.fetch.plugins import Registry
from gpuhub.fetch.provider import Provider, ProviderContext, ProviderStatus
from gpuhub.fetch.recording import Manifest, load_manifest
from gpuhub.fetch.retry import RetryPolicy
from gpuhub.service.enginestate import _UNSET, _Entry
from gpuhub.service.fetchone import FetchOne, _describe, _Stop
from gpuhub.service.fetchplan import MODES, _Plan, plan_fetch
from gpuhub.service.fetchplan import RequestedMode as RequestedMode
from gpuhub.service.snapshots import _age as _age

if TYPE_CHECKING:
    import httpx

    from gpuhub.model import Offer
    from gpuhub.store import Store
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

class Engine(FetchOne):
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
        self.row_views = False
        """Catalogs show stored rows as read-only views, not validated models (:meth:`catalog`): set by the command
        line, which only prints them; :func:`gpuhub.search` callers get :class:`Offer` objects."""
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

    # --- planning -----------------------------------------------------------------------------------------
    def plan(self, provider: Provider, mode: RequestedMode = "auto", fixtures_dir: Path | None = None,
             record_dir: Path | None = None) -> _Plan | str:
        """Decide how to get ``provider``'s data; a string is the reason it is skipped."""
        return plan_fetch(provider, mode, fixtures_dir, record_dir, self.environ)

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
            waiting.append((plan, self._stored_here(provider, plan) or self._start(provider, plan, refresh)))
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

    def _stored_here(self, provider: Provider, plan: _Plan) -> _Entry | None:
        """``provider``'s answer served in the calling thread when it is a plain hit in a local store: in this
        process's cache, else a good snapshot in a local SQLite store that is fresh enough. A warm search then
        reads every provider's columns without starting a thread per provider (each start and hand-off costs
        milliseconds, far more on a loaded machine). Anything else (a refresh, a recording to make, no store key,
        a miss, a store on a server) returns None: the provider is fetched in its own thread as before."""
        from gpuhub.store.sqlite import SqliteStore

        if plan.refresh or plan.mode == "record":
            return None
        with self._lock:
            cached = self._cache.get(plan.key)
            if cached is not None or plan.key in self._inflight:
                return cached
        if not isinstance(self.store if plan.mode in self._store_modes else None, SqliteStore):
            return None
        started = time.monotonic()
        try:
            _, key, store = self._keyed(provider, plan)
        except ProviderError:
            return None  # the thread's fetch reports it
        return self._stored(store, provider, plan, key, started) if store is not None else None

    def _keyed(self, provider: Provider, plan: _Plan) -> tuple[Manifest | None, str | None, Store | None]:
        """The recording's manifest, the snapshot key and the store that keeps snapshots under it (None: this
        plan's data is not kept in a store).

        Raises:
            ProviderError: the recording cannot be read.
        """
        try:
            manifest: Manifest | None = load_manifest(plan.recording) if plan.recording else None
        except (OSError, ValueError) as exc:
            raise ProviderError(f"recording {plan.recording} cannot be read: {exc}") from None
        key = self._snapshot_key(provider, plan, manifest)
        return manifest, key, self.store if key is not None and plan.mode in self._store_modes else None

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

    def _fetch(self, provider: Provider, plan: _Plan) -> _Entry:
        started = time.monotonic()
        manifest, key, store = self._keyed(provider, plan)
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

    def _collect_offers(self, provider: Provider, ctx: ProviderContext, stop: _Stop | None = None) -> OfferColumns:
        """Every offer ``fetch`` yields, each checked again here however it was built (:mod:`gpuhub.store.validate`):
        bad ones are skipped and counted, never served. Offers go straight into columns: a provider yielding a
        million offers never has them all alive at once."""
        from gpuhub.purchase import known_purchase_models
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

    def catalog(self, parts: Sequence[Sequence[Offer]]) -> Catalog:
        """The columnar index over these providers' offers, built once and reused while the same results are
        served from the cache (identity of the offer sequences is the key)."""
        with self._lock:
            for kept_parts, built in self._catalogs:
                if len(kept_parts) == len(parts) and all(a is b for a, b in zip(kept_parts, parts, strict=True)):
                    return built
        kinds = {name: provider.kind for name, provider in self.registry.providers.items()}
        built = Catalog.from_parts(parts, self.registry.gpus, kinds, views=self.row_views)
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


def _seconds(value: float | None, environ: Mapping[str, str], name: str, default: float) -> float:
    """``value`` when given, else the ``name`` setting (:func:`gpuhub.settings.number_setting`: a value that cannot
    be used is said once on stderr, and ``default`` used)."""
    from gpuhub.settings import number_setting

    return value if value is not None else number_setting(environ, name, default)
