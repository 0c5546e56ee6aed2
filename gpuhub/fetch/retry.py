"""The retry policy every provider request goes through (tenacity).

Retried: connection errors and timeouts (every ``httpx.TransportError``: ``TimeoutException``, ``NetworkError``,
``ProtocolError``), HTTP 408, 429 and 5xx. Not retried: other 4xx, replay misses. Waits are exponential with
jitter, or exactly what ``Retry-After`` says (seconds or an HTTP date; never earlier). When the server asks for
longer than ``max_wait_s`` or the time left of ``total_s``, the call stops at once with :class:`RateLimitedError`
saying when to retry. The whole call stops after ``attempts`` tries or ``total_s`` seconds, whichever comes first.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from gpuhub.errors import ProviderError, ReplayMissError

if TYPE_CHECKING:  # both are imported when a request is sent (a search served from the offer store sends none)
    import httpx
    from tenacity import RetryCallState

__all__ = ["RateLimitedError", "RetryPolicy", "RetryableStatus", "parse_retry_after", "retry_at"]

T = TypeVar("T")
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


class RetryableStatus(Exception):
    """An HTTP answer worth retrying (408, 429, 5xx); carries the response for ``Retry-After``."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        super().__init__(f"HTTP {response.status_code}")


def parse_retry_after(value: str | None, now: dt.datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date; None when absent or bad."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        from email.utils import parsedate_to_datetime  # only a Retry-After date needs it (~5 ms to import)

        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    now = now or dt.datetime.now(dt.timezone.utc)
    return max(0.0, (when - now).total_seconds())


def retry_at(response: httpx.Response, now: dt.datetime | None = None) -> dt.datetime | None:
    """When the server said it may be asked again (its ``Retry-After``, as a UTC time), or None."""
    now = now or dt.datetime.now(dt.timezone.utc)
    after = parse_retry_after(response.headers.get("retry-after"), now)
    return None if after is None else (now + dt.timedelta(seconds=after)).replace(microsecond=0)


class RateLimitedError(ProviderError):
    """The server asked to wait longer than the retry budget (``Retry-After``): gpuhub stops at once instead of
    asking early. ``retry_at`` is the server's time (UTC) when it may be asked again."""

    def __init__(self, message: str, *, retry_at: dt.datetime | None = None, status: int | None = 429,
                 code: str | None = None, retryable: bool = False, body: str | None = None) -> None:
        # The same keywords as ProviderError (plugins re-raise errors with type(exc)(message, code=..., ...)).
        super().__init__(message, code=code or (str(status) if status else None), retryable=retryable,
                         status=status, body=body)
        self.retry_at = retry_at or dt.datetime.now(dt.timezone.utc).replace(microsecond=0)

    @classmethod
    def from_response(cls, response: httpx.Response, after_s: float, budget_s: float) -> RateLimitedError:
        """The error for a ``Retry-After`` beyond the retry budget.

        Args:
            response: the 429/503 answer (its ``Retry-After`` header gives the server's time).
            after_s: how long the server asks to wait, seconds.
            budget_s: the retry budget it exceeds, seconds.
        """
        when = retry_at(response) or dt.datetime.now(dt.timezone.utc)
        return cls(f"rate limited (HTTP {response.status_code}): the server asks to wait {after_s:g} s, more than "
                   f"the retry budget of {budget_s:g} s; retry after {when.isoformat()} (the server's time)",
                   retry_at=when, status=response.status_code)


def is_retryable(exc: BaseException) -> bool:
    """True for transient failures: transport errors (timeouts, network, protocol) and 408/429/5xx answers."""
    import httpx

    if isinstance(exc, ReplayMissError):
        return False
    return isinstance(exc, (httpx.TransportError, RetryableStatus))


MIN_ATTEMPT_S = 0.1
"""The least time worth another attempt before a caller's deadline, seconds."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry (seconds). ``attempts`` counts the first try."""

    attempts: int = 4
    initial_wait_s: float = 0.5
    max_wait_s: float = 20.0
    total_s: float = 60.0
    jitter_s: float = 0.5

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, RetryableStatus):
            after = parse_retry_after(exc.response.headers.get("retry-after"))
            if after is not None:
                # Never earlier than the server asked; when it asks for longer than the budget, stop at once.
                budget = min(self.max_wait_s, max(0.0, self.total_s - (state.seconds_since_start or 0.0)))
                if after > budget:
                    raise RateLimitedError.from_response(exc.response, after, budget)
                return after
        from tenacity.wait import wait_exponential, wait_random

        backoff = wait_exponential(multiplier=self.initial_wait_s, max=self.max_wait_s) + wait_random(0, self.jitter_s)
        return min(float(backoff(state)), self.max_wait_s)

    def call(self, fn: Callable[[], T], *, until: float | None = None) -> T:
        """Run ``fn`` under this policy; the last exception is re-raised when retries run out.

        ``until``: a :func:`time.monotonic` time after which no attempt starts: a wait that would leave the next
        attempt less than :data:`MIN_ATTEMPT_S` stops the call at once with the last attempt's error (a caller with
        a time budget, e.g. a side source).
        """
        from tenacity import Retrying, retry_if_exception, stop_after_attempt, stop_after_delay

        wait = self._wait
        if until is not None:
            def wait(state: RetryCallState) -> float:
                pause = self._wait(state)
                if time.monotonic() + pause + MIN_ATTEMPT_S >= until and state.outcome is not None:
                    state.outcome.result()  # re-raises the last attempt's error: no time for another
                return pause

        retrying = Retrying(
            stop=stop_after_attempt(self.attempts) | stop_after_delay(self.total_s),
            wait=wait,
            retry=retry_if_exception(is_retryable),
            reraise=True,
        )
        return retrying(fn)
