"""Shared fixtures for the core's tests: the fake provider's registry and engine, isolated from installed plugins."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fakecloud

from gpuhub import Engine, Registry
from gpuhub.fetch.plugins import reset_registry
from gpuhub.kit.testing import make_engine
from gpuhub.service.searching import reset_default_engine


@pytest.fixture
def registry() -> Registry:
    """Built-ins plus the fake provider only (installed plugins are left out, so results are deterministic)."""
    return Registry(entry_points=[], extra_plugins=[fakecloud.PLUGIN])


@pytest.fixture
def engine(registry: Registry) -> Iterator[Engine]:
    eng = make_engine(registry)
    yield eng
    eng.shutdown()


@pytest.fixture
def global_engine(engine: Engine) -> Iterator[Engine]:
    """Install ``engine`` as the process-wide engine and registry (for the CLI and argument-less search())."""
    reset_registry(engine.registry)
    reset_default_engine(engine)
    yield engine
    reset_default_engine(None)
    reset_registry(None)
