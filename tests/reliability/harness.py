"""Shared machinery of the reliability suite: the loopback-only transport, engines, servers and baselines."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from faultserver import FaultServer, Match, matches
from provider_cases import BY_NAME, ProviderCase

from gpuhub import Engine, Offer, Provider, Registry
from gpuhub.fetch.diskcache import DiskCache
from gpuhub.fetch.provider import ProviderStatus
from gpuhub.fetch.retry import RetryPolicy
from gpuhub.kit.testing import make_engine, run_provider
from gpuhub.service.engine import RequestedMode

__all__ = ["ATTEMPTS", "MATRIX_RETRY", "REQUEST_TIMEOUT_S", "Baseline", "LoopbackOnly", "base_url_env",
           "live_engine", "offer_keys", "serving"]

ATTEMPTS = 3
MATRIX_RETRY = RetryPolicy(attempts=ATTEMPTS, initial_wait_s=0.0, max_wait_s=0.1, total_s=10.0, jitter_s=0.0)
"""No exponential backoff (initial wait 0), so any pause between attempts comes from ``Retry-After``, capped at
0.1 s: a 429 with ``Retry-After: 0.1`` must leave a gap of at least 0.1 s between attempts; a longer one (1 s, an
HTTP date) is beyond the budget and stops at once with "rate limited ... retry after <time>"."""
REQUEST_TIMEOUT_S = 0.3
"""Per-request HTTP timeout of the matrix engines, seconds; stalls last 5x as long."""
STALL_S = 5 * REQUEST_TIMEOUT_S
SEARCH_TIMEOUT_S = 20.0


SESSION_DISK: list[DiskCache] = []
"""The session's on-disk cache of parsed recordings (a temporary directory, set by conftest): the neighbours that
replay in every cell load from it instead of parsing again."""


class LoopbackOnly(httpx.BaseTransport):
    """A real HTTP transport that refuses every host but 127.0.0.1 (and remembers who tried to leave)."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport(retries=0)
        self.escapes: list[str] = []
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.host != "127.0.0.1":
            with self._lock:
                self.escapes.append(f"{request.method} {request.url.scheme}://{request.url.host}{request.url.path}")
            raise httpx.ConnectError(f"test guard: {request.url.host} is not loopback", request=request)
        return self.inner.handle_request(request)

    def close(self) -> None:  # the engine closes its client after each fetch; the pool lives for the test
        return

    def shutdown(self) -> None:
        self.inner.close()


def base_url_env(registry: Registry, name: str, server: FaultServer) -> dict[str, str]:
    """``GPUHUB_<NAME>_BASE_URL`` pointing the provider at ``server`` (keeping the default base URL's path), plus
    the case's other host settings."""
    provider = registry.providers[name]
    path = urlsplit(provider.base_url).path.rstrip("/")
    env = {_base_url_variable(name): server.url + path}
    case = BY_NAME.get(name)
    if case is not None:
        env.update({key: value.replace("{server}", server.url) for key, value in case.server_env.items()})
    return env


def live_env(registry: Registry, case: ProviderCase, server: FaultServer) -> dict[str, str]:
    """The case's fake credentials and settings, pointed at ``server``."""
    return {**{k: v for k, v in case.env.items() if v}, **base_url_env(registry, case.name, server)}


def live_engine(registry: Registry, environ: Mapping[str, str], transport: httpx.BaseTransport,
                retry: RetryPolicy = MATRIX_RETRY, request_timeout_s: float = REQUEST_TIMEOUT_S,
                timeout_s: float = SEARCH_TIMEOUT_S) -> Engine:
    """An engine over real loopback HTTP with the matrix's retry policy and timeouts.

    ``make_engine`` takes no per-request timeout, so it is set on the engine afterwards (read at each fetch).
    """
    engine = make_engine(registry, transport=transport, environ=environ, retry=retry, timeout_s=timeout_s,
                         disk=SESSION_DISK[0] if SESSION_DISK else None)
    engine.request_timeout_s = request_timeout_s
    # A provider that needs no credentials (Cudo's and OCI's public price lists) replays its bundled recording in
    # "auto" mode; pointed at the fault server it is asked live, as ``--fetch live`` would for it alone, while its
    # neighbours replay.
    public = {name for name, p in registry.providers.items()
              if not p.credentials and not p.static and environ.get(_base_url_variable(name))}
    if public:
        plan = engine.plan

        def planned(provider: Provider, mode: RequestedMode = "auto", fixtures_dir: Path | None = None,
                    record_dir: Path | None = None) -> Any:
            live = mode == "auto" and fixtures_dir is None and provider.name in public
            return plan(provider, "live" if live else mode, fixtures_dir, record_dir)

        engine.plan = planned  # type: ignore[method-assign]
    return engine


def _base_url_variable(name: str) -> str:
    return f"GPUHUB_{name.upper().replace('-', '_')}_BASE_URL"


@contextmanager
def serving(registry: Registry, case: ProviderCase, *, rewrite_origins: bool = True) -> Iterator[FaultServer]:
    """A started fault server replaying ``case``'s bundled recording; stopped on exit."""
    fixtures = registry.providers[case.name].fixtures_dir()
    assert fixtures is not None, f"{case.name} bundles no recording"
    server = FaultServer(fixtures, rewrite_origins=rewrite_origins, unrecorded=case.unrecorded).start()
    try:
        yield server
    finally:
        server.stop()


def offer_keys(offers: tuple[Offer, ...] | list[Offer]) -> list[tuple[str, str, str, str, str, str]]:
    """Sortable identity of each offer: type, region, zone, purchase, amount, currency."""
    return sorted((o.instance_type, o.region.code, o.region.zone or "", o.price.purchase, str(o.price.amount),
                   o.price.currency) for o in offers)


@dataclass(frozen=True)
class Baseline:
    """A provider's clean live run against the fault server: offers, status, and the order of its requests."""

    offers: tuple[Offer, ...]
    status: ProviderStatus
    targets: tuple[str, ...]

    def before(self, match: Match) -> int:
        """How many requests of the clean walk came before the first one matching ``match``."""
        for i, target in enumerate(self.targets):
            if matches(match, target):
                return i
        raise AssertionError(f"no request matching {match!r} in the clean walk {self.targets}")

    def count(self, match: Match) -> int:
        """How many requests of the clean walk match ``match``."""
        return sum(1 for t in self.targets if matches(match, t))


def build_registry() -> Registry:
    """Installed provider plugins plus the core's fake provider, without politeness delays (the matrix retries
    fast on loopback; test_throttle checks the delay separately)."""
    import fakecloud

    registry = Registry(extra_plugins=[fakecloud.PLUGIN], environ={})
    for provider in registry.providers.values():
        provider.min_request_interval_s = 0.0  # type: ignore[misc]
    return registry


def case_or_skip(registry: Registry, name: str) -> ProviderCase:
    if name not in registry.providers:
        pytest.skip(f"provider {name} is not installed ({[r.to_dict() for r in registry.reports if name in r.name]})")
    return BY_NAME[name]


def live_baseline(registry: Registry, baselines: dict[str, Baseline], case: ProviderCase) -> Baseline:
    """The provider's clean live walk against a fresh fault server, computed once per session."""
    if case.name not in baselines:
        guard = LoopbackOnly()
        with serving(registry, case) as server:
            engine = live_engine(registry, live_env(registry, case, server), guard)
            try:
                offers, status = run_provider(engine, case.name, mode="live")
            finally:
                engine.shutdown()
                guard.shutdown()
            assert status.state == "ok", status.line()
            assert not server.misses, f"requests without a recording: {server.misses}"
            assert not server.loose, f"requests whose body matches no recording: {server.loose}"
            assert not guard.escapes, f"left loopback: {guard.escapes}"
            baselines[case.name] = Baseline(offers, status, tuple(s.target for s in server.log))
    return baselines[case.name]
