"""Shared fixtures of gpuhub-cudo's tests: the plugin alone, its bundled recording replayed once."""

from __future__ import annotations

from pathlib import Path

import gpuhub_cudo.plugin
import pytest

from gpuhub.plugin import Offer, ProviderStatus, Registry, make_engine, run_provider

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "reference"


@pytest.fixture(scope="session")
def registry() -> Registry:
    """The built-in GPU table and this plugin only."""
    return Registry(entry_points=[], extra_plugins=[("cudo", gpuhub_cudo.plugin)], environ={})


@pytest.fixture(scope="session")
def replayed(registry: Registry) -> tuple[tuple[Offer, ...], ProviderStatus]:
    return run_provider(make_engine(registry), "cudo", mode="replay")


@pytest.fixture(scope="session")
def catalog_csv() -> Path:
    """../shared/reference/skypilot-catalog/cudo/vms.csv, skipping when ../shared is absent."""
    path = SHARED / "skypilot-catalog" / "cudo" / "vms.csv"
    if not path.is_file():
        pytest.skip(f"{path} is absent (../shared is not available)")
    return path
