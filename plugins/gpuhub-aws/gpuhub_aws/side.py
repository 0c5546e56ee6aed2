"""The side sources of an AWS fetch — the Spot Instance Advisor feed, Service Quotas, spot placement scores and
capacity block offerings — walked concurrently inside one time budget.

They add at most ``GPUHUB_AWS_SIDE_SOURCES_S`` seconds (default :data:`DEFAULT_BUDGET_S`) to a live fetch, and never
more than half the time the engine still gives the fetch (:meth:`ProviderContext.time_left_s`): every request they
send ends by the budget's deadline (its timeouts cut to the time left, no retry started that could not end in time),
and the fetch waits for them no longer. A side source that fails or does not answer in time never fails the
provider's prices: it is absent, and the status says which and why (a warning; for capacity blocks, which are offers
themselves, ``ok (partial)``). Replayed fetches have no budget (a recording answers at once).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_for
from typing import Any, TypeVar

from gpuhub.plugin import ProviderContext, ProviderError

__all__ = ["DEFAULT_BUDGET_S", "SideSources", "side_budget"]

DEFAULT_BUDGET_S = 20.0
"""Seconds the side sources may add to a live fetch, unless ``GPUHUB_AWS_SIDE_SOURCES_S`` says otherwise."""
WORKERS = 8
"""Side-source requests in flight at once (one per region's quotas or capacity blocks, the advisor, placement)."""
GRACE_S = 1.0
"""How long past the deadline the fetch still waits for a request already cut to end by it, seconds."""
T = TypeVar("T")


def side_budget(ctx: ProviderContext) -> float | None:
    """``GPUHUB_AWS_SIDE_SOURCES_S`` in seconds (default :data:`DEFAULT_BUDGET_S`); None when replayed.

    Raises:
        ProviderError: not a number of seconds in (0, 3600].
    """
    if ctx.mode == "replay":
        return None
    text = ctx.setting("SIDE_SOURCES_S")
    try:
        budget = float(text) if text else DEFAULT_BUDGET_S
    except ValueError:
        budget = -1.0
    if not 0 < budget <= 3600:
        raise ProviderError(f"GPUHUB_AWS_SIDE_SOURCES_S={text!r}: give seconds, more than 0 and at most 3600 "
                            f"(default {DEFAULT_BUDGET_S:g})")
    return budget


class SideSources:
    """The side-source jobs of one fetch: :meth:`submit` starts one, :meth:`result` waits for it until the budget's
    :attr:`deadline` (plus :data:`GRACE_S`) and answers ``late(reason)`` for one that did not end in time or raised.

    Args:
        ctx: the fetch's context.
        budget_s: :func:`side_budget`, seconds from now (None: no limit); cut to half the fetch's time left.
    """

    def __init__(self, ctx: ProviderContext, budget_s: float | None) -> None:
        self.ctx = ctx
        left = ctx.time_left_s()
        self.budget_s = budget_s if budget_s is None or left is None else min(budget_s, left / 2)
        self.deadline = None if self.budget_s is None else time.monotonic() + self.budget_s
        """When every side-source request has ended (a :func:`time.monotonic` time; None: replayed, no limit)."""
        self._pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="gpuhub-aws-side")
        self._jobs: dict[str, Future[Any]] = {}

    def submit(self, name: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> None:
        """Start ``fn(*args, **kwargs)`` as the job ``name``."""
        self._jobs[name] = self._pool.submit(fn, *args, **kwargs)

    def late(self) -> str:
        """Why a job that did not end in time has no answer."""
        return (f"did not answer within the side sources' time budget of {self.budget_s or 0:.3g} s "
                "(GPUHUB_AWS_SIDE_SOURCES_S)")

    def result(self, name: str, late: Callable[[str], T]) -> T:
        """The answer of job ``name``; ``late(reason)`` when it did not end by the deadline or raised."""
        job = self._jobs[name]
        timeout = None if self.deadline is None else max(0.0, self.deadline - time.monotonic()) + GRACE_S
        done, _ = wait_for([job], timeout=timeout)
        if not done:
            return late(self.late())
        error = job.exception()
        if error is not None:
            return late(f"failed ({type(error).__name__}: {str(error)[:160]})")
        answer: T = job.result()
        return answer

    def close(self) -> None:
        """Stop waiting: jobs not started are cancelled; a running one ends by the deadline on its own."""
        self._pool.shutdown(wait=False, cancel_futures=True)
