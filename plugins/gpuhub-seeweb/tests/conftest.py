"""Shared fixtures of gpuhub-seeweb' tests: a registry with this plugin only, the replayed recording, and an
engine that serves a given plans answer in live mode."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gpuhub_seeweb.plugin
import httpx
import pytest

from gpuhub.plugin import CountingTransport, Offer, ProviderStatus, Registry, make_engine, run_provider

REFERENCE = Path(__file__).resolve().parents[3].parent / "shared" / "reference"

Served = tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]
Replayed = tuple[tuple[Offer, ...], ProviderStatus]


@pytest.fixture(scope="session")
def registry() -> Registry:
    """The built-in GPU table and this plugin only (other plugins cannot disturb these tests)."""
    return Registry(entry_points=[], extra_plugins=[("seeweb", gpuhub_seeweb.plugin)], environ={})


@pytest.fixture(scope="session")
def replayed(registry: Registry) -> Replayed:
    """The bundled recording, replayed once for the session."""
    return run_provider(make_engine(registry), "seeweb", mode="replay")


@pytest.fixture
def serve(registry: Registry) -> Callable[..., Served]:
    """``serve(body, status=200, environ=...)``: run the provider live against one canned answer."""

    def run(body: Any, status: int = 200, environ: dict[str, str] | None = None) -> Served:
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        transport = CountingTransport(lambda request, n: httpx.Response(
            status, content=content, headers={"content-type": "application/json"}))
        engine = make_engine(registry, transport=transport,
                             environ={"SEEWEB_API_TOKEN": "test-key"} if environ is None else environ)
        offers, state = run_provider(engine, "seeweb", mode="live")
        return offers, state, transport

    return run


@pytest.fixture
def reference() -> Callable[..., Path]:
    """``reference("skypilot-catalog", "seeweb", "vms.csv")``: a file under ``../shared/reference``, or a skip."""

    def find(*parts: str) -> Path:
        path = REFERENCE.joinpath(*parts)
        if not path.exists():
            pytest.skip(f"{path} not present (../shared is absent)")
        return path

    return find
