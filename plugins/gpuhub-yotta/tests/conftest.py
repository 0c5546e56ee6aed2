"""Shared fixtures of gpuhub-yotta's tests: one replay of the bundled table per session."""

from __future__ import annotations

from pathlib import Path

import gpuhub_yotta.plugin
import pytest

from gpuhub.plugin import Offer, ProviderStatus, Registry, make_engine, run_provider

CATALOG = Path(__file__).resolve().parents[3].parent / "shared" / "reference" / "skypilot-catalog" / "yotta"


@pytest.fixture(scope="session")
def registry() -> Registry:
    """The built-in GPU table and this plugin only, so other installed plugins cannot disturb these tests."""
    return Registry(entry_points=[], extra_plugins=[("yotta", gpuhub_yotta.plugin)], environ={})


@pytest.fixture(scope="session")
def replayed(registry: Registry) -> tuple[tuple[Offer, ...], ProviderStatus]:
    return run_provider(make_engine(registry), "yotta")


@pytest.fixture
def catalog() -> Path:
    """../shared/reference/skypilot-catalog/yotta/vms.csv, or a skip when ../shared is absent."""
    path = CATALOG / "vms.csv"
    if not path.is_file():
        pytest.skip(f"{path} is absent (../shared is not available)")
    return path
