"""Shared fixtures of gpuhub-spheron's tests: a registry of this plugin only, its replay, a live run on one answer."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gpuhub_spheron.plugin
import httpx
import pytest

from gpuhub.plugin import CountingTransport, Offer, ProviderStatus, Registry, make_engine, run_provider

REFERENCE = Path(__file__).resolve().parents[3].parent / "shared" / "reference"
CATALOG = REFERENCE / "skypilot-catalog" / "spheron" / "vms.csv"

Replayed = tuple[tuple[Offer, ...], ProviderStatus]
Served = tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]


def spheron_registry() -> Registry:
    """The built-in GPU table and this plugin only (other installed plugins cannot disturb these tests)."""
    return Registry(entry_points=[], extra_plugins=[("spheron", gpuhub_spheron.plugin)], environ={})


@pytest.fixture(scope="session")
def registry() -> Registry:
    return spheron_registry()


@pytest.fixture(scope="session")
def replayed(registry: Registry) -> Replayed:
    """The bundled recording, replayed once for the whole session."""
    return run_provider(make_engine(registry), "spheron", mode="replay")


@pytest.fixture
def serve(registry: Registry) -> Callable[..., Served]:
    """``serve(body, status=200)``: run the provider live against one canned answer of the feed."""

    def run(body: Any, status: int = 200, environ: dict[str, str] | None = None) -> Served:
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        transport = CountingTransport(lambda request, n: httpx.Response(
            status, content=content, headers={"content-type": "application/json"}))
        env = {"SPHERON_API_KEY": "test-key"} if environ is None else environ
        engine = make_engine(registry, transport=transport, environ=env)
        offers, state = run_provider(engine, "spheron", mode="live")
        return offers, state, transport

    return run


@pytest.fixture
def catalog() -> Path:
    """../shared/reference/skypilot-catalog/spheron/vms.csv, or a skip when ../shared is absent."""
    if not CATALOG.is_file():
        pytest.skip(f"{CATALOG} is absent (../shared is not available)")
    return CATALOG
