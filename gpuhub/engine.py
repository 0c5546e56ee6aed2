"""The engine: decides each provider's mode, fans out fetches concurrently, caches, and reports status.

- One fetch per provider at a time: concurrent callers share the in-flight fetch (single flight).
- Parsed offers are cached per (provider, mode, recording) in a cachetools TTL cache.
- A failed refresh, or an empty answer where data existed before, keeps the last good data, marked ``stale``.
- A provider that does not answer within the timeout is reported as such; its fetch goes on in the background and
  fills the cache for the next search, and the other providers' offers are returned on time.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import httpx
from cachetools import TTLCache

from gpuhub.catalog import Catalog
from gpuhub.diskcache import DiskCache, code_fingerprint
from gpuhub.errors import CredentialsError, ProviderError, QueryError
from gpuhub.model import Offer, Source
from gpuhub.plugins import Registry
from gpuhub.provider import Mode, Provider, ProviderContext, ProviderStatus
from gpuhub.recording import Manifest, RecordingTransport, ReplayTransport, load_manifest
from gpuhub.retry import RetryPolicy

__all__ = ["MODES", "Engine"]

log = logging.getLogger("gpuhub.engine")
MODES = ("auto", "live", "replay", "record")
RequestedMode = Literal["auto", "live", "replay", "record"]


@dataclass(frozen=True)
class _Plan:
    provider: str
    mode: Mode
    recording: Path | None = None
    record_to: Path | None = None
    static: bool = False

    @property
    def key(self) -> tuple[str, str, str | None]:
        return (self.provider, self.mode, str(self.recording) if self.recording else None)


@dataclass
class _Entry:
    offers: tuple[Offer, ...]
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
        disk: the on-disk cache of parsed recordings (default: from ``GPUHUB_CACHE_DIR`` /
            ``GPUHUB_NO_DISK_CACHE``, else the user cache directory).
    """

    def __init__(self, registry: Registry, *, ttl_s: float = 900.0, timeout_s: float = 60.0,
                 request_timeout_s: float = 20.0, retry: RetryPolicy | None = None,
                 environ: Mapping[str, str] | None = None, transport: httpx.BaseTransport | None = None,
                 max_workers: int = 16, disk: DiskCache | None = None) -> None:
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
        self.disk = disk if disk is not None else DiskCache.from_environ(self.environ)
        self._catalogs: list[tuple[tuple[tuple[Offer, ...], ...], Catalog]] = []

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
                refresh: bool = False, timeout_s: float | None = None,
                record_dir: Path | None = None,
                deadline: float | None = None) -> list[tuple[tuple[Offer, ...], ProviderStatus]]:
        """Offers and a status for each named provider, fetched concurrently, within ``timeout_s`` seconds (a live
        provider that declares a longer :attr:`Provider.timeout_s` gets that long, unless ``timeout_s`` is given),
        and never past ``deadline`` (a ``time.monotonic()`` value; the CLI's counts from the process start).

        A provider still running then is reported ``timed out``; its fetch runs on in a daemon thread (it may fill
        the cache for a later search, for at most :attr:`abandon_after_s` more seconds) and is never waited for,
        not even at interpreter exit."""
        started = time.monotonic()
        budget = self.timeout_s if timeout_s is None else timeout_s
        waiting: list[tuple[_Plan, Future[_Entry] | _Entry]] = []
        results: list[tuple[tuple[Offer, ...], ProviderStatus]] = []
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
                entry = self._fallback(plan, f"timed out after {allowed:g} s (the fetch goes on in the background)")
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

    def _fetch(self, provider: Provider, plan: _Plan) -> _Entry:
        started = time.monotonic()
        try:
            manifest: Manifest | None = load_manifest(plan.recording) if plan.recording else None
        except (OSError, ValueError) as exc:
            raise ProviderError(f"recording {plan.recording} cannot be read: {exc}") from None
        if manifest is not None and plan.mode == "replay":
            cached = self._from_disk(provider, plan, manifest, started)
            if cached is not None:
                return cached
        recorder: RecordingTransport | None = None
        if plan.mode == "replay" and manifest is not None:
            transport: httpx.BaseTransport = ReplayTransport(manifest)
            source = self._replay_source(provider, plan, manifest)
        elif plan.mode == "replay":  # a static provider without a manifest reads its own packaged table
            transport = httpx.MockTransport(_no_network)
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
        from gpuhub import __version__

        own = provider.timeout_s if plan.mode != "replay" and provider.timeout_s is not None else 0.0
        stop = _Stop(started + max(self.timeout_s, own) + self.abandon_after_s)
        transport = _Guarded(transport, stop, self.max_response_bytes)
        client = httpx.Client(transport=transport, timeout=self.request_timeout_s, follow_redirects=True,
                              headers={"User-Agent": f"gpuhub/{__version__}"})
        ctx = ProviderContext(provider, client, mode=plan.mode, source=source, gpus=self.registry.gpus,
                              environ=self.environ, retry=self.retry,
                              recording=manifest if plan.mode == "replay" else None)
        with self._lock:
            self.fetch_count[provider.name] = self.fetch_count.get(provider.name, 0) + 1
        try:
            offers = self._collect_offers(provider, ctx, stop)
        finally:
            if recorder is not None:
                for value in ctx.secrets_seen:
                    recorder.add_secret(value)
            client.close()
        if recorder is not None:
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
        if manifest is not None and manifest.kind == "reconstructed":
            status.warnings.append(f"recording reconstructed from published prices ({manifest.source})"[:300])
        if plan.static:
            when = manifest.recorded_at.isoformat() if manifest and manifest.recorded_at else "unknown date"
            status.reason = f"static price table, verified {when}"
        previous = self._last_good.get(plan.key)
        if not offers and previous is not None and previous.offers:
            return self._fallback(plan, "the provider answered with no offers where it had "
                                        f"{len(previous.offers)} before")
        if not offers:
            status.warnings.append("the provider returned no offers")
            if report.skipped_total:
                # Records came and none parsed: most likely the API changed shape. Say so loudly.
                top = "; ".join(f"{why} (×{n})" for why, n in report.skipped.most_common(3))
                status.warnings.append(f"every record was skipped ({report.skipped_total}): {top}; the API's "
                                       "answer may have changed shape")
            return _Entry((), status)  # an empty answer is reported, never cached as the catalog
        if manifest is not None and plan.mode == "replay":
            self.disk.save(provider.name, self._disk_key(provider, manifest), offers, status.to_dict())
        entry = _Entry(tuple(offers), status)
        with self._lock:
            self._cache[plan.key] = entry
            self._last_good[plan.key] = entry
        return entry

    def _disk_key(self, provider: Provider, manifest: Manifest) -> str:
        from gpuhub import __version__

        plugin = self.registry.provider_plugin.get(provider.name, "")
        version = next((r.version or "" for r in self.registry.reports if r.name == plugin), "")
        # The code that parsed the offers is part of the key too (an edited plugin or core re-parses even when
        # nobody bumped a version): size and mtime of every file in both packages.
        code = code_fingerprint(type(provider).__module__) + code_fingerprint("gpuhub")
        # GPU identities depend on the GPU table and aliases (which plugins are installed): part of the key.
        return DiskCache.key(provider.name, manifest, (__version__, plugin, version, type(provider).__qualname__,
                                                       code, self.registry.gpus.fingerprint()))

    def _from_disk(self, provider: Provider, plan: _Plan, manifest: Manifest, started: float) -> _Entry | None:
        """The offers parsed from this exact recording by an earlier process, if the disk cache has them."""
        if self.disk.directory is None:
            return None
        try:
            key = self._disk_key(provider, manifest)
        except OSError:
            return None
        source = self._replay_source(provider, plan, manifest)
        hit = self.disk.load(provider.name, key, source)
        if hit is None:
            return None
        offers, report = hit
        status = ProviderStatus(
            provider.name, "ok", reason=report.get("reason"), mode=source.mode, source=source.label(),
            offers=len(offers), skipped_records=int(report.get("skipped_records", 0)),
            skipped_reasons=dict(report.get("skipped_reasons", {})), unknown_gpus=dict(report.get("unknown_gpus", {})),
            warnings=list(report.get("warnings", [])), fetched_at=dt.datetime.now(dt.timezone.utc),
            elapsed_s=time.monotonic() - started, partial_reasons=dict(report.get("partial_reasons", {})))
        _provenance(status, source, manifest)
        entry = _Entry(tuple(offers), status)
        with self._lock:
            self._cache[plan.key] = entry
            self._last_good[plan.key] = entry
        return entry

    @staticmethod
    def _replay_source(provider: Provider, plan: _Plan, manifest: Manifest) -> Source:
        # Bundled recordings are labelled with the provider's name, a user's with their directory's name.
        bundled = plan.recording == provider.fixtures_dir()
        label = provider.name if bundled or plan.recording is None else plan.recording.name
        return Source(mode="static" if plan.static else "replay", recording=label,
                      recorded_at=manifest.recorded_at, kind=manifest.kind, data_date=manifest.data_date,
                      data_date_known=manifest.data_date_known)

    def _collect_offers(self, provider: Provider, ctx: ProviderContext, stop: _Stop | None = None) -> list[Offer]:
        """Every offer ``fetch`` yields, each checked again here however it was built (:mod:`gpuhub.validate`):
        bad ones are skipped and counted, never served."""
        from gpuhub.model import known_purchase_models
        from gpuhub.validate import offer_problem

        purchases = frozenset(known_purchase_models())
        offers: list[Offer] = []
        for n, item in enumerate(provider.fetch(ctx)):
            if stop is not None and n % 1000 == 0:
                stop.check()
            problem = offer_problem(item, provider.name, purchases)
            if problem is not None:
                ctx.skip(problem)
            else:
                offers.append(item)
        return offers

    def _fallback(self, plan: _Plan, reason: str) -> _Entry:
        previous = self._last_good.get(plan.key)
        if previous is None:
            return _Entry((), ProviderStatus(plan.provider, "failed", reason=reason, mode=plan.mode))
        prev = previous.status
        status = ProviderStatus(
            plan.provider, "stale", reason=f"{reason}; showing the last good data from "
                                           f"{previous.fetched_at.isoformat(timespec='seconds')}",
            mode=prev.mode, source=prev.source, offers=len(previous.offers), skipped_records=prev.skipped_records,
            skipped_reasons=prev.skipped_reasons, unknown_gpus=prev.unknown_gpus, warnings=prev.warnings,
            fetched_at=previous.fetched_at, elapsed_s=prev.elapsed_s, source_kind=prev.source_kind,
            data_date=prev.data_date, data_date_note=prev.data_date_note, partial_reasons=prev.partial_reasons)
        return _Entry(previous.offers, status, previous.fetched_at)

    def catalog(self, parts: Sequence[tuple[Offer, ...]]) -> Catalog:
        """The columnar index over these providers' offers, built once and reused while the same results are
        served from the cache (identity of the offer tuples is the key)."""
        with self._lock:
            for kept_parts, built in self._catalogs:
                if len(kept_parts) == len(parts) and all(a is b for a, b in zip(kept_parts, parts, strict=True)):
                    return built
        kinds = {name: provider.kind for name, provider in self.registry.providers.items()}
        built = Catalog([offer for part in parts for offer in part], self.registry.gpus, kinds)
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


class _Guarded(httpx.BaseTransport):
    """Wraps a fetch's transport: answers read whole are capped at ``max_bytes`` (an endless or huge body fails
    the fetch instead of filling memory), and an abandoned fetch stops at its next request or body chunk."""

    def __init__(self, inner: httpx.BaseTransport, stop: _Stop, max_bytes: int) -> None:
        self.inner, self.stop, self.max_bytes = inner, stop, max_bytes

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.stop.check()
        response = self.inner.handle_request(request)
        limit = None if request.extensions.get("gpuhub_streamed") else self.max_bytes
        return httpx.Response(response.status_code, headers=response.headers, request=request,
                              stream=_GuardedStream(response, self.stop, limit, request),
                              extensions=response.extensions)

    def close(self) -> None:
        self.inner.close()


class _GuardedStream(httpx.SyncByteStream):
    def __init__(self, response: httpx.Response, stop: _Stop, limit: int | None, request: httpx.Request) -> None:
        self.response, self.stop, self.limit, self.request = response, stop, limit, request

    def __iter__(self) -> Iterator[bytes]:
        total = 0
        for chunk in self.response.stream:  # type: ignore[union-attr]
            self.stop.check()
            total += len(chunk)
            if self.limit is not None and total > self.limit:
                raise ProviderError(f"the answer to {self.request.method} {self.request.url.path} is over "
                                    f"{self.limit // (1024 * 1024)} MiB: refused")
            yield chunk

    def close(self) -> None:
        self.response.close()


def _provenance(status: ProviderStatus, source: Source, manifest: Manifest | None) -> None:
    """Fill a status's source kind and the date of its data (from the recording's manifest when replayed)."""
    status.source_kind = source.source_kind
    status.data_date = source.date_of_data
    if manifest is not None and manifest.data_date_note:
        status.data_date_note = manifest.data_date_note


def _describe(exc: BaseException) -> str:
    """The status reason for a failure, with every credential value read in this process blanked (a provider bug
    may echo one). Only known values: the pattern rules of :func:`redact` would also eat prose like "token: the"."""
    from gpuhub.recording import REDACTED, known_secret_forms

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


def _no_network(request: httpx.Request) -> httpx.Response:
    raise ProviderError(f"static provider attempted a network request: {request.method} {request.url}")
