"""An engine installed process-wide for a block of tests (the CLI's and argument-less ``gpuhub.search()``'s)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from gpuhub import Engine
from gpuhub.fetch.plugins import reset_registry
from gpuhub.service.searching import reset_default_engine

if TYPE_CHECKING:
    from gpuhub.store.columns import OfferColumns


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


def stored_bundled_columns(home: Path) -> dict[str, OfferColumns]:
    """Every installed provider's bundled data, stored by a search under ``home`` and read back, per provider
    (each snapshot's rows as the store keeps them)."""
    import pytest

    import gpuhub
    from gpuhub.store import open_store
    from gpuhub.store.sqlite import SqliteStore

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GPUHUB_STORE", str(home / "store"))
        patch.setenv("GPUHUB_CACHE_DIR", str(home / "cache"))
        reset_default_engine(None)
        try:
            gpuhub.search(fetch="replay", limit=1)
        finally:
            reset_default_engine(None)
        store = open_store()
        assert isinstance(store, SqliteStore)
        out = {}
        for provider in sorted({s.provider for s in store.snapshots(limit=None)}):
            snap = store.latest_good(provider)
            assert snap is not None
            out[provider] = store.read_columns(snap)
        store.close()
    return out


def console_script(*args: str, env: dict[str, str], reports: str) -> subprocess.CompletedProcess[str]:
    """``gpuhub ARGS`` as the console script runs it (:func:`gpuhub._entry.main`) with ``env`` added to this
    process's environment (less its cloud credentials, gpuhub settings and COLUMNS), reporting on stderr's last line
    whether the module ``reports`` was imported (``typer imported: False``)."""
    code = ("import atexit, sys\n"
            f"atexit.register(lambda: sys.stderr.write('{reports} imported: %s\\n' % ('{reports}' in sys.modules)))\n"
            "sys.argv[0] = 'gpuhub'\nfrom gpuhub._entry import main\nmain()\n")
    base = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "GOOGLE_", "GPUHUB_", "COLUMNS"))}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env={**base, **env},
                          timeout=300, check=False)
