"""Fixtures of the reliability suite: one registry (installed plugins + the core's fake provider), baselines."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from harness import Baseline, LoopbackOnly, build_registry

from gpuhub import Offer, Registry
from gpuhub.fetch.diskcache import DiskCache
from gpuhub.fetch.provider import ProviderStatus
from gpuhub.kit.testing import make_engine


@pytest.fixture(scope="session", autouse=True)
def session_disk_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DiskCache]:
    """A private on-disk cache of parsed recordings for the session's engines (never the user's cache dir)."""
    disk = DiskCache(tmp_path_factory.mktemp("gpuhub-cache") / "parsed")
    harness.SESSION_DISK[:] = [disk]
    yield disk
    harness.SESSION_DISK.clear()


@pytest.fixture(scope="session")
def rel_registry() -> Registry:
    return build_registry()


@pytest.fixture(scope="session")
def replay_baselines(rel_registry: Registry,
                     session_disk_cache: DiskCache) -> dict[str, tuple[tuple[Offer, ...], ProviderStatus]]:
    """Every provider's bundled recording replayed once (the offers that must be there in every cell)."""
    engine = make_engine(rel_registry, disk=session_disk_cache)
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
