"""pytest setup of gpuhub-azure's tests: makes ``azure_helpers`` importable and replays the recording once."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from azure_helpers import azure_registry

from gpuhub.plugin import Offer, ProviderStatus, make_engine, run_provider


@pytest.fixture(scope="session")
def replayed() -> tuple[tuple[Offer, ...], ProviderStatus]:
    """The bundled recording, replayed once for the whole session."""
    return run_provider(make_engine(azure_registry()), "azure", mode="replay")
