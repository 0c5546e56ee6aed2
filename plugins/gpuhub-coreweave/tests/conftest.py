"""Shared fixtures for gpuhub-coreweave's tests: one registry and one replay of the bundled table per session."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import gpuhub_coreweave.plugin
import pytest

from gpuhub.plugin import Offer, ProviderStatus, plugin_fixtures

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "reference"


registry, replayed, serve, live, reference = plugin_fixtures(
    "coreweave", gpuhub_coreweave.plugin, __file__, replay_mode="auto")


@pytest.fixture(scope="session")
def offers(replayed: tuple[tuple[Offer, ...], ProviderStatus]) -> tuple[Offer, ...]:
    return replayed[0]


@pytest.fixture(scope="session")
def shared_sample() -> Callable[[str], Path]:
    """A function giving a file of ../shared/reference/provider-samples/coreweave, skipping when it is absent."""

    def get(name: str) -> Path:
        path = SHARED / "provider-samples" / "coreweave" / name
        if not path.is_file():
            pytest.skip(f"{path} is absent (../shared is not available)")
        return path

    return get


@pytest.fixture(scope="session")
def shared_reference() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent")
    return SHARED
