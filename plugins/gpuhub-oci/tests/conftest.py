"""Shared fixtures of gpuhub-oci's tests: the plugin alone, its bundled recording replayed once."""

from __future__ import annotations

from pathlib import Path

import gpuhub_oci.plugin
import pytest

from gpuhub.plugin import Offer, ProviderStatus, Registry, make_engine, run_provider

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "reference"


@pytest.fixture(scope="session")
def registry() -> Registry:
    """The built-in GPU table and this plugin only."""
    return Registry(entry_points=[], extra_plugins=[("oci", gpuhub_oci.plugin)], environ={})


@pytest.fixture(scope="session")
def replayed(registry: Registry) -> tuple[tuple[Offer, ...], ProviderStatus]:
    return run_provider(make_engine(registry), "oci", mode="replay")


@pytest.fixture(scope="session")
def digest_csv() -> Path:
    """../shared/reference/skypilot-catalog/oci/vms.gpu-digest.csv, skipping when ../shared is absent."""
    path = SHARED / "skypilot-catalog" / "oci" / "vms.gpu-digest.csv"
    if not path.is_file():
        pytest.skip(f"{path} is absent (../shared is not available)")
    return path
