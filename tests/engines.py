"""An engine installed process-wide for a block of tests (the CLI's and argument-less ``gpuhub.search()``'s)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from gpuhub import Engine
from gpuhub.fetch.plugins import reset_registry
from gpuhub.service.searching import reset_default_engine


@contextlib.contextmanager
def process_wide(engine: Engine) -> Iterator[Engine]:
    """``engine`` and its registry as the process's for the block; afterwards none, and ``engine`` shut down."""
    reset_registry(engine.registry)
    reset_default_engine(engine)
    try:
        yield engine
    finally:
        reset_default_engine(None)
        reset_registry(None)
        engine.shutdown()


@contextlib.contextmanager
def installed_providers(*needed: str) -> Iterator[Engine]:
    """Every installed plugin's providers process-wide (:func:`process_wide`), or the test skipped naming the
    plugin of the first of ``needed`` that is not installed."""
    import pytest

    from gpuhub.fetch.plugins import Registry
    from gpuhub.kit.testing import make_engine

    registry = Registry()
    for name in needed:
        if name not in registry.providers:
            pytest.skip(f"gpuhub-{name} is not installed")
    with process_wide(make_engine(registry)) as engine:
        yield engine


@contextlib.contextmanager
def bundled_market() -> Iterator[Engine]:
    """Every installed plugin replaying its bundled recording, process-wide (:func:`process_wide`), or the test
    skipped when the bundled plugins are not all installed (the market's H100 offers need them)."""
    import pytest

    from gpuhub.fetch.plugins import Registry
    from gpuhub.kit.testing import make_engine

    registry = Registry()
    if len(registry.providers) < 20:
        pytest.skip("needs every bundled plugin installed (the market's H100 offers)")
    with process_wide(make_engine(registry)) as engine:
        yield engine
