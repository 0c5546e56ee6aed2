"""One provider's fetch, live or replayed: the HTTP client and transports, the provider's context, the status of
what came back, and whether it may replace the last good data (then stored as a snapshot and folded into the price
history). Scheduling, threads and deadlines are :mod:`gpuhub.service.engine`'s.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from typing import TYPE_CHECKING

from gpuhub.errors import CredentialsError, ProviderError
from gpuhub.fetch.provider import Provider, ProviderContext, ProviderStatus
from gpuhub.fetch.recording import Manifest
from gpuhub.service.enginestate import _Entry
from gpuhub.service.fetchplan import _Plan
from gpuhub.service.ratelimits import RateLimits
from gpuhub.service.snapshots import _meta

if TYPE_CHECKING:
    import httpx

    from gpuhub.model import Source
    from gpuhub.store import Store
    from gpuhub.store.columns import OfferColumns

__all__ = ["FetchOne"]

log = logging.getLogger("gpuhub.service.engine")


class FetchOne(RateLimits):
    """The engine's part that runs one provider's fetch and judges its answer."""

    def _fetch_now(self, provider: Provider, plan: _Plan, manifest: Manifest | None, started: float,
                   key: str | None, store: Store | None) -> _Entry:
        import httpx  # only a real fetch needs it: a search served from the store sends no request

        from gpuhub.fetch.transports import GuardedTransport, RecordingTransport, ReplayTransport, no_network
        from gpuhub.model import Source

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
            said = f"recording reconstructed from published prices ({manifest.source})"
            status.warnings.append(said if len(said) <= 300 else said[:299] + "…")  # a cut is shown as one
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

    def _collect_offers(self, provider: Provider, ctx: ProviderContext, stop: _Stop | None = None) -> OfferColumns:
        """Every offer ``provider.fetch(ctx)`` yields, checked, as columns (:meth:`Engine._collect_offers
        <gpuhub.service.engine.Engine>` does it).

        Raises:
            NotImplementedError: always; the engine provides it.
        """
        raise NotImplementedError


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
