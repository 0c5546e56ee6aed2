"""Shared fixtures of gpuhub-vast's tests: a registry with this plugin only, the replayed recording, and live
runs against a handler (an httpx transport through the engine's seam)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import gpuhub_vast.plugin
import httpx
import pytest

from gpuhub.plugin import CountingTransport, Offer, ProviderStatus, Registry, make_engine, run_provider

REFERENCE = Path(__file__).resolve().parents[3].parent / "shared" / "reference"

Handler = Callable[[httpx.Request, int], httpx.Response]
Served = tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]


@pytest.fixture(scope="session")
def registry() -> Registry:
    """The built-in GPU table and this plugin only."""
    return Registry(entry_points=[], extra_plugins=[("vast", gpuhub_vast.plugin)], environ={})


@pytest.fixture(scope="session")
def replayed(registry: Registry) -> tuple[tuple[Offer, ...], ProviderStatus]:
    """The bundled recording, replayed once for the session."""
    return run_provider(make_engine(registry), "vast", mode="replay")


@pytest.fixture
def live(registry: Registry) -> Callable[..., Served]:
    """``live(handler, environ=...)``: run the provider live, every request answered by ``handler``."""

    def run(handler: Handler, environ: dict[str, str] | None = None) -> Served:
        transport = CountingTransport(handler)
        engine = make_engine(registry, transport=transport,
                             environ={"VAST_API_KEY": "test-key"} if environ is None else environ)
        offers, status = run_provider(engine, "vast", mode="live")
        return offers, status, transport

    return run


@pytest.fixture
def catalog() -> Path:
    """The SkyPilot catalog's Vast file under ``../shared/reference``, or a skip."""
    path = REFERENCE / "skypilot-catalog" / "vast" / "vms.csv"
    if not path.exists():
        pytest.skip(f"{path} not present (../shared is absent)")
    return path
