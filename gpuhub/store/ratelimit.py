"""When a provider's server said it may be asked again: its ``Retry-After``, kept in the offer store across processes.

A server that answers 429 (or 503) with a ``Retry-After`` longer than the retry budget stops the fetch at once
(:class:`gpuhub.fetch.retry.RateLimitedError`). The time it gave is stored here, per provider and endpoint (its base
URL), as one row of the store's small ``meta`` table (name ``rate_limited:<provider>:<base URL>``, value JSON
``{"until": ISO time UTC, "reason": text}``), so the next process (a cron job a minute later) does not ask before
that time either: it serves the last good snapshot, stale, saying ``rate limited until <time>``.
Reading or writing it never fails a search: a store that cannot be read is a miss, one that cannot be written
leaves only the process's own memory.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpuhub.store import Store

__all__ = ["remember_rate_limit", "stored_rate_limit"]

log = logging.getLogger("gpuhub.store")
PREFIX = "rate_limited:"


def _name(provider: str, endpoint: str) -> str:
    return f"{PREFIX}{provider}:{endpoint}"


def remember_rate_limit(store: Store, provider: str, endpoint: str, until: dt.datetime, reason: str) -> None:
    """Keep ``until`` (timezone-aware UTC: the server's time) for ``provider`` at ``endpoint`` (its base URL).

    The server's latest answer wins (a later, shorter ``Retry-After`` replaces a longer one). Never raises.
    """
    value = json.dumps({"until": until.astimezone(dt.timezone.utc).isoformat(), "reason": reason[:300]})
    try:
        store.put_meta(_name(provider, endpoint), value)
    except Exception as exc:  # a store that cannot be written: this process still remembers
        log.warning("could not keep the rate limit of %s in the offer store: %s", provider, exc)


def stored_rate_limit(store: Store, provider: str, endpoint: str,
                      now: dt.datetime | None = None) -> dt.datetime | None:
    """The stored time (UTC) before which ``provider`` at ``endpoint`` must not be asked, if still ahead of ``now``
    (default: the current time); None when there is none, it has passed, or it cannot be read."""
    try:
        raw = store.get_meta(_name(provider, endpoint))
        if not raw:
            return None
        until = dt.datetime.fromisoformat(str(json.loads(raw)["until"]))
    except Exception as exc:  # unreadable or malformed: a miss, never a failed search
        log.debug("rate limit of %s in the offer store not usable: %s", provider, exc)
        return None
    if until.tzinfo is None:
        until = until.replace(tzinfo=dt.timezone.utc)
    return until if until > (now or dt.datetime.now(dt.timezone.utc)) else None
