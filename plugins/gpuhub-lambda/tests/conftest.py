"""Shared fixtures of gpuhub-lambda's tests: an engine that serves a given Lambda answer in live mode."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gpuhub_lambda.plugin
import httpx
import pytest

from gpuhub.plugin import CountingTransport, Engine, Offer, ProviderStatus, Registry, make_engine, run_provider

REFERENCE = Path(__file__).resolve().parents[3].parent / "shared" / "reference"

Served = tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]


def lambda_registry() -> Registry:
    """A registry with the built-in GPU table and this plugin only (other plugins cannot disturb these tests)."""
    return Registry(entry_points=[], extra_plugins=[("lambda", gpuhub_lambda.plugin)], environ={})


@pytest.fixture(scope="session")
def registry() -> Registry:
    return lambda_registry()


@pytest.fixture
def serve(registry: Registry) -> Callable[..., Served]:
    """``serve(body, status=200, environ=...)``: run the provider live against one canned answer."""

    def run(body: Any, status: int = 200, environ: dict[str, str] | None = None) -> Served:
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        transport = CountingTransport(lambda request, n: httpx.Response(
            status, content=content, headers={"content-type": "application/json"}))
        engine: Engine = make_engine(registry, transport=transport,
                                     environ={"LAMBDA_API_KEY": "test-key"} if environ is None else environ)
        offers, state = run_provider(engine, "lambda", mode="live")
        return offers, state, transport

    return run


@pytest.fixture(scope="session")
def replayed(registry: Registry) -> tuple[tuple[Offer, ...], ProviderStatus]:
    """The bundled recording, replayed once for the whole session."""
    return run_provider(make_engine(registry), "lambda", mode="replay")


def _reference(*parts: str) -> Path:
    path = REFERENCE.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not present (../shared is absent)")
    return path


@pytest.fixture
def reference() -> Callable[..., Path]:
    """``reference("provider-samples", "lambda", name)``: a file under ``../shared/reference``, or a skip."""
    return _reference
