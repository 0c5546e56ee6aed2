"""The state an :class:`~gpuhub.service.engine.Engine`'s parts share (caches, locks, settings), declared once so that
each part (:mod:`~gpuhub.service.snapshots`, :mod:`~gpuhub.service.ratelimits`, :mod:`~gpuhub.service.fetchone`)
is checked against it; :class:`~gpuhub.service.engine.Engine` sets it up.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cachetools import TTLCache

from gpuhub.fetch.plugins import Registry
from gpuhub.fetch.provider import ProviderStatus
from gpuhub.fetch.retry import RetryPolicy

if TYPE_CHECKING:
    import httpx

    from gpuhub.model import Offer
    from gpuhub.store import Store

__all__ = ["EngineState"]

_UNSET = object()


@dataclass
class _Entry:
    offers: Sequence[Offer]
    status: ProviderStatus
    fetched_at: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.timezone.utc))


class EngineState:
    """Settings, caches and locks of one engine (set by :meth:`Engine.__init__ <gpuhub.service.engine.Engine>`)."""

    registry: Registry
    timeout_s: float
    request_timeout_s: float
    retry: RetryPolicy
    max_response_bytes: int
    abandon_after_s: float
    fetch_count: dict[str, int]
    fresh_on_demand_s: float
    fresh_spot_s: float
    min_fraction: float
    _environ: Mapping[str, str] | None
    _transport: httpx.BaseTransport | None
    _cache: TTLCache[tuple[str, str, str | None], _Entry]
    _last_good: dict[tuple[str, str, str | None], _Entry]
    _inflight: dict[tuple[str, str, str | None], Future[_Entry]]
    _lock: threading.Lock
    _store_modes: tuple[str, ...]
    _store: Store | object | None
    _rate_limits: dict[tuple[str, str], dt.datetime]

    @property
    def environ(self) -> Mapping[str, str]:
        """The environment credentials and settings are read from (``os.environ`` unless the engine was given one)."""
        return os.environ if self._environ is None else self._environ
