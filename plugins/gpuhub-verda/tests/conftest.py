"""Shared fixtures of gpuhub-verda's tests: the plugin alone, its bundled recording replayed once."""

from __future__ import annotations

from pathlib import Path

import gpuhub_verda.plugin
import pytest

from gpuhub.plugin import Offer, ProviderStatus, Registry, make_engine, run_provider

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "reference"


def verda_registry() -> Registry:
    """The built-in GPU table and this plugin only, so other installed plugins cannot disturb these tests."""
    return Registry(entry_points=[], extra_plugins=[("verda", gpuhub_verda.plugin)], environ={})


@pytest.fixture(scope="session")
def registry() -> Registry:
    return verda_registry()


@pytest.fixture(scope="session")
def replayed(registry: Registry) -> tuple[tuple[Offer, ...], ProviderStatus]:
    return run_provider(make_engine(registry), "verda", mode="replay")


@pytest.fixture(scope="session")
def catalog_csv() -> Path:
    """../shared/reference/skypilot-catalog/verda/vms.csv, skipping when ../shared is absent."""
    path = SHARED / "skypilot-catalog" / "verda" / "vms.csv"
    if not path.is_file():
        pytest.skip(f"{path} is absent (../shared is not available)")
    return path
