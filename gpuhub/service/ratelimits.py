"""Rate limits: a provider whose server answered ``Retry-After`` is not asked again before that time, in this process
or (through the store) the next; its last good data is served meanwhile (issue 12).
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import TYPE_CHECKING

from gpuhub.fetch.provider import Provider
from gpuhub.service.enginestate import _Entry
from gpuhub.service.fetchplan import _Plan
from gpuhub.service.snapshots import SnapshotServing

if TYPE_CHECKING:

    pass

__all__ = ["RateLimits"]

log = logging.getLogger("gpuhub.service.engine")


class RateLimits(SnapshotServing):
    """The engine's part that remembers and honours the servers' ``Retry-After`` times."""

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
