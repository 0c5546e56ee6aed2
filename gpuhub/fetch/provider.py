"""What a provider plugin implements (:class:`Provider`) and what the engine hands it (:class:`ProviderContext`).

A provider turns its cloud's answers into :class:`~gpuhub.model.Offer` objects. It never builds an HTTP client:
``ctx.request()``/``ctx.get_json()`` go through the engine's client, which is live, recording or replaying, and
through the retry policy. Malformed records are skipped with ``ctx.skip(reason)``, never raised; unknown GPU
spellings are counted with ``ctx.gpu()``.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from gpuhub.display import plain
from gpuhub.errors import CredentialsError, ProviderError
from gpuhub.facts.gpus import GpuTable
from gpuhub.facts.regions import make_region
from gpuhub.fetch.recording import Manifest, lasting_secrets, redact, remember_secret, scrub_url
from gpuhub.fetch.retry import (
    MIN_ATTEMPT_S,
    RETRY_STATUSES,
    RateLimitedError,
    RetryableStatus,
    RetryPolicy,
    retry_at,
)

if TYPE_CHECKING:  # httpx and pydantic are imported when a provider really fetches (not for a search served from
    # the store)
    import httpx
    from pydantic import SecretStr

    from gpuhub.model import Gpu, Region, Source

__all__ = ["STALE_PERIODS", "Credential", "FetchReport", "Mode", "Provider", "ProviderContext", "ProviderKind",
           "ProviderStatus", "RecordGuard", "outdated_text"]

T = TypeVar("T")
Mode = Literal["live", "replay", "record"]
ProviderKind = Literal["hyperscaler", "specialist", "internal", "other"]


@dataclass(frozen=True)
class Credential:
    """One way to configure a provider: the environment variables that must all be set, and a hint."""

    env: tuple[str, ...]
    description: str

    def configured(self, environ: Mapping[str, str]) -> bool:
        """True when every environment variable of this credential is set and non-empty in ``environ``."""
        return all(environ.get(name) for name in self.env)


class Provider:
    """Base class of a provider. Subclasses set the class attributes and implement :meth:`fetch`.

    Attributes:
        name: short lower-case id used everywhere (``"aws"``, ``"lambda"``).
        display_name: human name.
        kind: ``hyperscaler``, ``specialist``, ``internal`` or ``other``.
        base_url: default API root; users override it with ``GPUHUB_<NAME>_BASE_URL``.
        credentials: ways to configure live access; with none configured the bundled recording replays.
        static: True when the provider has no live API (a shipped, dated price table is its only data).
        min_request_interval_s: politeness delay between live requests (seconds).
    """

    name: ClassVar[str] = ""
    display_name: ClassVar[str] = ""
    kind: ClassVar[ProviderKind] = "other"
    base_url: ClassVar[str] = ""
    credentials: ClassVar[tuple[Credential, ...]] = ()
    static: ClassVar[bool] = False
    example_recording: ClassVar[bool] = False
    """True when the bundled recording is an example (an internal cloud's demo clusters), not real offers: a search
    that does not name the provider leaves it out unless live access is configured."""
    resells: ClassVar[bool] = False
    """True for an aggregator whose offers name other sellers (:attr:`gpuhub.model.Instance.seller`): a search for
    ``--provider X`` runs it too, to find X's machines offered through it."""
    min_request_interval_s: ClassVar[float] = 0.0
    price_change_period_s: ClassVar[float] = 7 * 86400.0
    """How often this provider's prices change, seconds: hours for spot prices and marketplaces, days for list
    prices (default 7 days). A provider whose newest price is older than :data:`STALE_PERIODS` of these periods is
    flagged ``OUTDATED`` on every search's status line and in ``gpuhub store show``."""
    timeout_s: ClassVar[float | None] = None
    """How long a full live fetch may take (seconds) when longer than the engine's search timeout (AWS's offer
    files); the engine waits ``max(its timeout, this)`` for this provider."""

    def fixtures_dir(self) -> Path | None:
        """The bundled recording directory (holding ``manifest.json``), or None.

        Default: ``recording/`` beside the module that defines the provider class (``gpuhub_mycloud/recording/``,
        shipped as package data), when it holds a ``manifest.json``; override to keep it elsewhere.
        """
        module = sys.modules.get(type(self).__module__)
        where = getattr(module, "__file__", None)
        if where is None:
            return None
        candidate = Path(where).resolve().parent / "recording"
        return candidate if (candidate / "manifest.json").is_file() else None

    def credentials_configured(self, environ: Mapping[str, str]) -> bool:
        """True when any one of :attr:`credentials` is fully set in ``environ``."""
        return any(c.configured(environ) for c in self.credentials)

    def credentials_help(self) -> str:
        """How to configure live access, for messages."""
        if not self.credentials:
            return f"{self.name} needs no credentials"
        ways = "; or ".join(f"set {' and '.join(c.env)} ({c.description})" for c in self.credentials)
        return f"to use {self.name} live, {ways}"

    def code_identity(self) -> tuple[str, str]:
        """The provider class's qualified name and module: part of the key of every snapshot it stored (a stand-in
        from the plugin index answers with the real class's)."""
        return type(self).__qualname__, type(self).__module__

    def error_from_response(self, response: httpx.Response) -> ProviderError | None:
        """Turn an HTTP error answer (4xx/5xx, body already read) into the provider's own error, naming its error
        code and how to fix it; None keeps gpuhub's generic message. Called before retries give up, too."""
        return None

    def fetch(self, ctx: ProviderContext) -> Iterable[Any]:
        """Return every offer this provider has (an iterable of :class:`~gpuhub.model.Offer`).

        Raise :class:`~gpuhub.errors.ProviderError` (or let an HTTP failure propagate) when the data cannot be
        had at all or only in part: a partial walk must fail, never look like a smaller catalog.
        """
        raise NotImplementedError


@dataclass
class FetchReport:
    """What happened while one provider fetched: skipped records and why, unknown GPU names, warnings."""

    skipped: Counter[str] = field(default_factory=Counter)
    unknown_gpus: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    requests: int = 0
    partial: Counter[str] = field(default_factory=Counter)
    """Why the catalog is incomplete (a region that failed, sizes without specs, unpriced types), with counts."""

    @property
    def skipped_total(self) -> int:
        """How many records the provider skipped in this fetch, all reasons."""
        return sum(self.skipped.values())


@dataclass
class ProviderStatus:
    """A provider's outcome in one search.

    ``state``: ``ok`` (fresh data), ``stale`` (the last good data, because a refresh failed; ``reason`` says why),
    ``failed`` (no data; ``reason`` says why), ``skipped`` (not asked; ``reason`` says why).
    """

    provider: str
    state: Literal["ok", "stale", "failed", "skipped"]
    reason: str | None = None
    mode: str | None = None
    source: str | None = None
    offers: int = 0
    skipped_records: int = 0
    skipped_reasons: dict[str, int] = field(default_factory=dict)
    unknown_gpus: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    fetched_at: dt.datetime | None = None
    elapsed_s: float | None = None
    source_kind: str | None = None
    """``live``, ``captured``, ``reconstructed`` or ``static`` (see :attr:`gpuhub.model.Source.source_kind`)."""
    data_date: dt.date | None = None
    """The date of the prices themselves (None: unknown, see ``data_date_note``)."""
    data_date_note: str | None = None
    partial_reasons: dict[str, int] = field(default_factory=dict)
    """Why the catalog is incomplete, with counts; non-empty means the status is ``ok (partial)``."""
    oldest_data_date: dt.date | None = None
    """The oldest price date of the offers (``data_date`` is the newest), when the offers carry their own dates."""
    undated_offers: int = 0
    """How many offers have no price date at all."""
    price_change_period_s: float | None = None
    """How often the provider's prices change (:attr:`Provider.price_change_period_s`), seconds."""

    @property
    def partial(self) -> bool:
        """True when the provider delivered only part of its catalog (see :attr:`partial_reasons`)."""
        return bool(self.partial_reasons)

    def data_age_days(self, today: dt.date | None = None) -> int | None:
        """Days between the data's own date and ``today`` (default: today, UTC); None when the date is unknown."""
        if self.data_date is None:
            return None
        return ((today or dt.datetime.now(dt.timezone.utc).date()) - self.data_date).days

    def to_dict(self) -> dict[str, Any]:
        """The status as JSON-ready values (dates ISO 8601, ``elapsed_s`` rounded to milliseconds), as shown by
        ``--format json`` and stored with each snapshot.
        """
        return {
            "provider": self.provider, "state": self.state, "reason": self.reason, "mode": self.mode,
            "source": self.source, "offers": self.offers, "skipped_records": self.skipped_records,
            "skipped_reasons": dict(self.skipped_reasons), "unknown_gpus": dict(self.unknown_gpus),
            "warnings": list(self.warnings),
            "fetched_at": self.fetched_at.isoformat() if self.fetched_at else None,
            "elapsed_s": round(self.elapsed_s, 3) if self.elapsed_s is not None else None,
            "source_kind": self.source_kind, "data_date": self.data_date.isoformat() if self.data_date else None,
            "data_age_days": self.data_age_days(), "data_date_note": self.data_date_note,
            "partial": self.partial, "partial_reasons": dict(self.partial_reasons),
            "oldest_data_date": self.oldest_data_date.isoformat() if self.oldest_data_date else None,
            "undated_offers": self.undated_offers, "price_change_period_s": self.price_change_period_s,
            "outdated": self.outdated(),
        }

    def outdated(self, today: dt.date | None = None) -> str | None:
        """Why the provider's data is older than :data:`STALE_PERIODS` of its price-change periods (e.g. ``OUTDATED:
        newest price 473 days old, over 3 × its 30-day price-change period``), or None (fresh, or undated)."""
        return outdated_text(self.data_date, self.price_change_period_s, today)

    def provenance(self) -> str:
        """What the data is and how old, e.g. ``reconstructed recording, data of 2024-09-16 (806 days old)``."""
        kinds = {"live": "live", "captured": "captured recording", "reconstructed": "reconstructed recording",
                 "static": "static price table"}
        text = kinds.get(self.source_kind or "", self.source_kind or "unknown source")
        if self.source_kind == "live":
            return text
        age = self.data_age_days()
        undated = f", {self.undated_offers} undated" if self.undated_offers and self.data_date is not None else ""
        if self.data_date is not None and age is not None:
            days = f"({age} day{'' if age == 1 else 's'} old)"
            oldest = self.oldest_data_date
            if oldest is not None and oldest != self.data_date:
                return (f"{text}, prices of {oldest.isoformat()} … {self.data_date.isoformat()} (newest {age} "
                        f"day{'' if age == 1 else 's'} old){undated}")
            return f"{text}, data of {self.data_date.isoformat()} {days}{undated}"
        return f"{text}, data date unknown" + (f" ({self.data_date_note})" if self.data_date_note else "")

    def line(self) -> str:
        """One human line, e.g. ``lambda: ok, 21 offers (reconstructed recording, data of 2026-09-20 (70 days
        old)), 1 warning``; a partial catalog is ``ok (partial: N reasons)``, never a plain ``ok``."""
        text = f"{self.provider}: {self.state}"
        if self.partial:
            n = len(self.partial_reasons)
            text += f" (partial: {n} reason{'s' if n != 1 else ''})"
        if self.state in ("ok", "stale"):
            text += f", {self.offers} offers"
        if self.source_kind:
            text += f" ({self.provenance()})"
        elif self.source:
            text += f" ({self.source})"
        stale = self.outdated() if self.state in ("ok", "stale") else None
        if stale:
            text += f", {stale}"
        if self.warnings:
            text += f", {len(self.warnings)} warning{'s' if len(self.warnings) != 1 else ''}"
        if self.skipped_records:
            text += f", {self.skipped_records} records skipped"
        if self.unknown_gpus:
            text += f", unknown GPUs: {', '.join(sorted(self.unknown_gpus))}"
        if self.reason:
            text += f": {self.reason}"
        return text


STALE_PERIODS = 3
"""How many price-change periods old a provider's newest price may be before it is flagged ``OUTDATED``."""


def outdated_text(newest: dt.date | None, period_s: float | None, today: dt.date | None = None) -> str | None:
    """``OUTDATED: newest price N days old, over 3 × its 30-day price-change period`` when ``newest`` (a provider's
    newest price date) is more than :data:`STALE_PERIODS` × ``period_s`` seconds before ``today`` (default: today,
    UTC); None when fresh enough or when the date or the period is unknown."""
    if newest is None or not period_s:
        return None
    age = ((today or dt.datetime.now(dt.timezone.utc).date()) - newest).days
    if age * 86400 <= STALE_PERIODS * period_s:
        return None
    return (f"OUTDATED: newest price {age} day{'' if age == 1 else 's'} old, over {STALE_PERIODS} × its "
            f"{_period_text(period_s)} price-change period")


def _period_text(seconds: float) -> str:
    """``30-day``, ``6-hour`` or ``90-second``, for the OUTDATED flag."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            return f"{seconds / size:g}-{unit}"
    return f"{seconds:g}-second"


class ProviderContext:
    """Everything a provider's ``fetch`` may use: HTTP, credentials, GPU table, regions, and its report.

    Not constructed by providers; the engine (or :func:`gpuhub.kit.testing` helpers) makes one per fetch.

    One class (about 260 lines) because it is the whole surface a plugin sees during a fetch (exported by
    :mod:`gpuhub.plugin`): splitting it would change every plugin's calls; its methods are short.
    """

    def __init__(self, provider: Provider, client: httpx.Client, *, mode: Mode, source: Source,
                 gpus: GpuTable, environ: Mapping[str, str] | None = None,
                 retry: RetryPolicy | None = None, recording: Manifest | None = None,
                 deadline: float | None = None) -> None:
        self.provider = provider
        self.deadline = deadline
        """When the engine stops waiting for this fetch (a :func:`time.monotonic` time), or None (no limit)."""
        self.recording = recording
        """The recording being replayed (its manifest: provenance and exchanges), or None when live."""
        self.client = client
        self.mode = mode
        self.source = source
        self.gpus = gpus
        self.report = FetchReport()
        self._environ = dict(os.environ if environ is None else environ)
        self._retry = retry or RetryPolicy()
        self._last_request = 0.0
        self._lock = threading.Lock()
        self._count_lock = threading.Lock()  # a provider may fetch side sources from several threads
        self.secrets_seen: list[str] = _SecretList()
        """Credential values this fetch used; each is registered at once
        (:func:`gpuhub.fetch.recording.remember_secret`), so recordings, messages and logs blank it even in answers
        that arrive before the fetch ends."""

    def __repr__(self) -> str:
        return f"ProviderContext(provider={self.provider.name!r}, mode={self.mode!r})"

    # --- configuration -------------------------------------------------------------------------------------
    def secret(self, name: str) -> SecretStr | None:
        """A credential from the environment as a :class:`SecretStr` (never printed), or None when unset.

        In replay mode credentials are never read: recordings hold none.
        """
        if self.mode == "replay":
            return None
        value = self._environ.get(name)
        if not value:
            return None
        from pydantic import SecretStr

        self.secrets_seen.append(value)
        return SecretStr(value)

    def require_secret(self, name: str) -> SecretStr | None:
        """Like :meth:`secret`, but in live/record mode a missing value raises :class:`CredentialsError`."""
        value = self.secret(name)
        if value is None and self.mode != "replay":
            raise CredentialsError(f"{name} is not set: {self.provider.credentials_help()}")
        return value

    def env(self, name: str, default: str | None = None) -> str | None:
        """A non-secret environment variable (e.g. ``AWS_PROFILE``, ``AWS_REGION``); never read credentials with
        it: use :meth:`secret`, which keeps them out of recordings and messages."""
        return self._environ.get(name, default)

    @property
    def retry_policy(self) -> RetryPolicy:
        """The retry policy requests go through (for a provider that restarts a stream itself)."""
        return self._retry

    def throttle(self) -> None:
        """Wait as long as :attr:`Provider.min_request_interval_s` asks before the next live request."""
        self._throttle()

    def setting(self, name: str, default: str | None = None) -> str | None:
        """A provider setting from ``GPUHUB_<PROVIDER>_<NAME>`` in the environment."""
        key = f"GPUHUB_{self.provider.name.upper().replace('-', '_')}_{name.upper()}"
        return self._environ.get(key, default)

    def base_url(self) -> str:
        """The provider's API root: ``GPUHUB_<PROVIDER>_BASE_URL`` when set (proxies, mirrors), else the default."""
        return (self.setting("BASE_URL") or self.provider.base_url).rstrip("/")

    def time_left_s(self) -> float | None:
        """Seconds until the engine stops waiting for this fetch (never negative), or None when unlimited. A
        provider bounds optional work (side sources) by it."""
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    # --- HTTP ----------------------------------------------------------------------------------------------
    def request(self, method: str, url: str, *, deadline: float | None = None, **kwargs: Any) -> httpx.Response:
        """Send one request through the engine's client and the retry policy; return a 2xx/3xx response.

        ``deadline``: a :func:`time.monotonic` time the whole call ends by, retries included: each attempt's
        timeouts are cut to the time left and no retry starts that could not end in time (for side sources that
        must never hold up the provider's prices). Other keywords go to ``httpx.Client.build_request``.

        Raises:
            CredentialsError: 401/403 (the message says how to configure credentials).
            ProviderError: another 4xx, a transient failure that outlasted the retries, or no time left before
                ``deadline``.
            ReplayMissError: replay mode and the request was never recorded.
        """
        response: httpx.Response = self._send(method, url, stream=False, deadline=deadline, **kwargs)
        self._check(method, url, response)
        return response

    @contextmanager
    def stream(self, method: str, url: str, **kwargs: Any) -> Iterator[httpx.Response]:
        """Like :meth:`request`, but the body is not read: iterate ``response.iter_bytes()`` inside the block.

        Retries cover getting the response head (connection errors, 408/429/5xx); a connection lost mid-body
        raises out of the iteration (a half-read list must fail, never pass for a smaller one).
        """
        response: httpx.Response = self._send(method, url, stream=True, **kwargs)
        try:
            if response.status_code >= 400:
                response.read()
            self._check(method, url, response)
            yield response
        finally:
            response.close()

    def read_streamed(self, method: str, url: str, consume: Callable[[httpx.Response], T], **kwargs: Any) -> T:
        """Stream a large body into ``consume(response)`` (which iterates ``response.iter_bytes()``); a transient
        failure anywhere, a connection dropped mid-body included, restarts the whole request, so ``consume`` must
        start over each time it is called. Returns what ``consume`` returns.

        Raises:
            CredentialsError, ProviderError: as :meth:`request`.
        """

        def attempt(response: httpx.Response) -> T:
            try:
                if response.status_code >= 400:
                    response.read()
                self._check(method, url, response)
                return consume(response)
            finally:
                response.close()

        result: T = self._send(method, url, stream=True, then=attempt, **kwargs)
        return result

    def _send(self, method: str, url: str, *, stream: bool, then: Callable[[httpx.Response], Any] | None = None,
              deadline: float | None = None, **kwargs: Any) -> Any:
        import httpx

        def once() -> Any:
            self._throttle()
            with self._count_lock:
                self.report.requests += 1
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ProviderError(f"{method} {_short(url)} not sent: its time budget was spent")
                kwargs["timeout"] = _cut(self.client.timeout, left)
            request = self.client.build_request(method, url, **kwargs)
            request.extensions["gpuhub_streamed"] = stream  # the engine caps answers read whole, not streams
            for value in lasting_secrets(request):  # e.g. an API key a provider put in the query itself
                remember_secret(value)
            response = self.client.send(request, stream=stream)
            if response.status_code in RETRY_STATUSES:
                response.read()
                response.close()
                raise RetryableStatus(response)
            # With ``then``, reading the body is inside the retried attempt (a mid-body drop is retried too).
            return then(response) if then is not None else response

        try:
            return self._retry.call(once, until=deadline)
        except RetryableStatus as exc:
            own = self.provider.error_from_response(exc.response)
            if own is not None:
                raise own from None
            when = retry_at(exc.response)
            later = (f"; {'rate limited: ' if exc.response.status_code == 429 else ''}retry after "
                     f"{when.isoformat()} (the server's time)") if when is not None else ""
            raise ProviderError(f"HTTP {exc.response.status_code} from {method} {_short(url)} after retries{later}",
                                code=str(exc.response.status_code), retryable=True,
                                status=exc.response.status_code, body=redact(exc.response.text[:65536])) from None
        except RateLimitedError as exc:
            raise RateLimitedError(f"{exc} ({method} {_short(url)})", retry_at=exc.retry_at,
                                   status=exc.status or 429) from None
        except httpx.TransportError as exc:
            if deadline is not None and time.monotonic() + MIN_ATTEMPT_S >= deadline:
                raise ProviderError(f"{type(exc).__name__} on {method} {_short(url)}: no answer within its time "
                                    "budget", retryable=True) from None
            raise ProviderError(f"{type(exc).__name__} on {method} {_short(url)} after retries: {redact(str(exc))}",
                                retryable=True) from None

    def _check(self, method: str, url: str, response: httpx.Response) -> None:
        if response.status_code >= 400:
            own = self.provider.error_from_response(response)
            if own is not None:
                raise own
        if response.status_code in (401, 403):
            raise CredentialsError(
                f"HTTP {response.status_code} from {self.provider.name}: credentials missing or rejected; "
                f"{self.provider.credentials_help()}", code=str(response.status_code),
                status=response.status_code, body=redact(response.text[:65536]))
        if response.status_code >= 400:  # an error body may echo the request's credentials back: redacted
            raise ProviderError(f"HTTP {response.status_code} from {method} {_short(url)}: "
                                f"{redact(response.text[:4096])[:200]}", code=str(response.status_code),
                                status=response.status_code, body=redact(response.text[:65536]))

    def get_json(self, url: str, **kwargs: Any) -> Any:
        """GET and decode JSON. Raises :class:`ProviderError` when the body is not JSON (e.g. an HTML page)."""
        return self.get_dated_json(url, **kwargs)[0]

    def get_dated_json(self, url: str, **kwargs: Any) -> tuple[Any, dt.date | None]:
        """Like :meth:`get_json`, plus the date of the answer: its HTTP ``Date`` header (a live answer is of today; a
        recording keeps the header of the day it holds), None without one. A provider whose rows carry no date of
        their own dates its prices with it (``Price(data_date=...)``)."""
        response = self.request("GET", url, **kwargs)
        try:
            return response.json(), answer_date(response)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            kind = response.headers.get("content-type", "unknown content type")
            raise ProviderError(f"GET {_short(url)} did not return JSON ({kind}): {exc}") from None

    def _throttle(self) -> None:
        interval = self.provider.min_request_interval_s
        if interval <= 0 or self.mode == "replay":
            return
        with self._lock:
            wait = self._last_request + interval - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            self._last_request = time.monotonic()

    # --- normalization helpers ----------------------------------------------------------------------------
    def gpu(self, raw: str, memory_gib: float | None = None) -> Gpu:
        """Resolve a provider GPU spelling through the GPU table (the global aliases and this provider's plugin's
        own, never another plugin's); unknown names are kept and counted."""
        gpu = self.gpus.to_gpu(raw, memory_gib, provider=self.provider.name)
        if not gpu.known:
            self.report.unknown_gpus[raw] += 1
        return gpu

    def region(self, code: str, zone: str | None = None) -> Region:
        """A :class:`Region` for this provider's region code, with location facts where known."""
        return make_region(self.provider.name, code, zone)

    def skip(self, reason: str, count: int = 1) -> None:
        """Count ``count`` malformed or out-of-scope records (by reason) instead of raising."""
        with self._count_lock:
            self.report.skipped[reason] += count

    def partial(self, reason: str, count: int = 1, detail: str | None = None) -> None:
        """Say the catalog is incomplete: ``reason`` (a short, stable kind such as "regions whose walk failed"),
        ``count`` things missing, and ``detail`` (which ones) for the warnings. The status becomes
        ``ok (partial: N reasons)`` and lists ``detail`` (else ``reason``) as a warning. Never use it for records
        that are out of scope on purpose (use :meth:`skip`)."""
        with self._count_lock:
            self.report.partial[redact(reason)] += count
        self.warn(detail or reason)

    def guard(self, what: str) -> RecordGuard:
        """``with ctx.guard("instance type"):`` around one record: bad data is skipped and counted, not raised."""
        return RecordGuard(self, what)

    def warn(self, message: str) -> None:
        """A warning that ends up in the provider's status."""
        message = redact(message)
        with self._count_lock:
            if message not in self.report.warnings:
                self.report.warnings.append(message)


class RecordGuard:
    """``with ctx.guard("what"):`` around one record: a malformed record is skipped and counted, not raised.

    Catches the errors bad data causes (``KeyError``, ``TypeError``, ``ValueError`` including pydantic's
    ``ValidationError``, ``ArithmeticError``, ``AttributeError``, ``IndexError``); anything else propagates.
    """

    def __init__(self, ctx: ProviderContext, what: str) -> None:
        self.ctx, self.what = ctx, what

    def __enter__(self) -> RecordGuard:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> bool:
        if exc is None:
            return False
        # pydantic's ValidationError is a ValueError
        if isinstance(exc, (KeyError, TypeError, ValueError, ArithmeticError, AttributeError, IndexError)) \
                and not isinstance(exc, ProviderError):
            self.ctx.skip(f"{self.what}: {_reason(exc)}")
            return True
        return False


def _cut(timeout: httpx.Timeout, left_s: float) -> httpx.Timeout:
    """``timeout`` with every phase cut to at most ``left_s`` seconds."""
    import httpx

    def cut(value: float | None) -> float:
        return left_s if value is None else min(value, left_s)

    return httpx.Timeout(connect=cut(timeout.connect), read=cut(timeout.read), write=cut(timeout.write),
                         pool=cut(timeout.pool))


def answer_date(response: httpx.Response) -> dt.date | None:
    """The UTC date of an HTTP answer's ``Date`` header (RFC 9110), None when absent or not a date."""
    from email.utils import parsedate_to_datetime

    value = response.headers.get("date")
    if not value:
        return None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return (when if when.tzinfo is None else when.astimezone(dt.timezone.utc)).date()


def _reason(exc: BaseException) -> str:
    pydantic = sys.modules.get("pydantic")  # not loaded: the exception is not pydantic's (never import it here)
    if pydantic is not None and isinstance(exc, pydantic.ValidationError):
        first = exc.errors()[0]
        return f"invalid {'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
    if isinstance(exc, KeyError):
        return f"missing field {exc}"
    if isinstance(exc, ArithmeticError):
        return f"not a number ({type(exc).__name__})"
    return f"{type(exc).__name__}: {str(exc)[:120]}"


def _short(url: str) -> str:
    text = redact(scrub_url(url))
    return text if len(text) <= 160 else text[:157] + "..."


class _SecretList(list[str]):
    """``ProviderContext.secrets_seen``: a list that registers each credential value as it is added."""

    def append(self, value: str) -> None:
        remember_secret(str(value))
        super().append(value)

    def extend(self, values: Iterable[str]) -> None:
        for value in values:
            self.append(value)


def _install_log_redaction() -> None:
    """Make every log record (gpuhub's, httpx's request lines, signers' debug output ...) carry no credential:
    known credential values (literal, URL-encoded, base64), credential query parameters and Bearer tokens are
    replaced by ``REDACTED`` when the record is created, in the message, its arguments, the exception traceback
    (``exc_info``, at every level) and the stack. Installed once, on import; other record factories keep working
    underneath. Control characters in the message are escaped (:func:`gpuhub.display.plain`): a provider's text
    never sends an escape sequence to a terminal or a log file."""
    previous = logging.getLogRecordFactory()
    if getattr(previous, "gpuhub_redacts", False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not format is left to the handler to report
            return record
        clean = plain(redact(message), newlines=True)  # no escape sequence reaches a terminal or log file
        if clean != message or (record.args and redact(repr(record.args)) != repr(record.args)):
            record.msg, record.args = clean, ()
        if record.exc_info and record.exc_info[0] is not None:
            # The traceback is formatted now, redacted, and kept as the record's exception text; the live
            # exception (whose message may hold a credential) is dropped so no handler formats it unredacted.
            try:
                text = logging.Formatter().formatException(record.exc_info)
            except Exception:  # CPython 3.11 traceback formatting parses source (ast); it can fail in threads
                exc = record.exc_info[1]
                text = f"{type(exc).__name__}: {exc} (traceback could not be formatted)"
            record.exc_text = redact(text)
            record.exc_info = None
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return record

    factory.gpuhub_redacts = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)


_install_log_redaction()
