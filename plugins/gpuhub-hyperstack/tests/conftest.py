"""Shared fixtures of gpuhub-hyperstack's tests: one replay of the bundled table per session."""

from __future__ import annotations

from pathlib import Path

import gpuhub_hyperstack.plugin
import pytest

from gpuhub.plugin import Offer, ProviderStatus, Registry, make_engine, run_provider

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "reference"


@pytest.fixture(scope="session")
def registry() -> Registry:
    """The built-in GPU table and this plugin only."""
    return Registry(entry_points=[], extra_plugins=[("hyperstack", gpuhub_hyperstack.plugin)], environ={})


@pytest.fixture(scope="session")
def replayed(registry: Registry) -> tuple[tuple[Offer, ...], ProviderStatus]:
    return run_provider(make_engine(registry), "hyperstack")


@pytest.fixture(scope="session")
def catalog_csv() -> Path:
    """../shared/reference/skypilot-catalog/hyperstack/vms.csv, skipping when ../shared is absent."""
    path = SHARED / "skypilot-catalog" / "hyperstack" / "vms.csv"
    if not path.is_file():
        pytest.skip(f"{path} is absent (../shared is not available)")
    return path
