"""Fixtures of the reliability suite: one registry (installed plugins + the core's fake provider), baselines."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fakecloud
from harness import Baseline, LoopbackOnly

from gpuhub import Offer, Registry
from gpuhub.provider import ProviderStatus
from gpuhub.testing import make_engine


def build_registry() -> Registry:
    """Installed provider plugins plus the core's fake provider, without politeness delays (the matrix retries
    fast on loopback; test_throttle checks the delay separately)."""
    registry = Registry(extra_plugins=[fakecloud.PLUGIN], environ={})
    for provider in registry.providers.values():
        provider.min_request_interval_s = 0.0  # type: ignore[misc]
    return registry


@pytest.fixture(scope="session")
def rel_registry() -> Registry:
    return build_registry()


@pytest.fixture(scope="session")
def replay_baselines(rel_registry: Registry) -> dict[str, tuple[tuple[Offer, ...], ProviderStatus]]:
    """Every provider's bundled recording replayed once (the offers that must be there in every cell)."""
    engine = make_engine(rel_registry)
    try:
        names = sorted(rel_registry.providers)
        return {status.provider: (offers, status) for offers, status in engine.collect(names, mode="replay")}
    finally:
        engine.shutdown()


@pytest.fixture(scope="session")
def live_baselines(rel_registry: Registry) -> dict[str, Baseline]:
    """Lazily filled: a provider's clean live run against its fault server (see :func:`live_baseline`)."""
    return {}


@pytest.fixture
def transport() -> Iterator[LoopbackOnly]:
    guard = LoopbackOnly()
    yield guard
    guard.shutdown()
