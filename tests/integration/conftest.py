"""The tested configuration: the core and every plugin of this repository installed together (issue 13).

Every test goes through the public surfaces: the ``gpuhub`` command in a fresh process (isolated
``GPUHUB_CACHE_DIR``/``GPUHUB_STORE``, no credentials, so each provider replays its bundled data) or
``gpuhub.search()`` with the real plugin registry.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

PROVIDERS = ("aws", "azure", "coreweave", "gcp", "kubernetes", "lambda")
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "reference"
_CREDENTIALS = ("LAMBDA_API_KEY", "GOOGLE_API_KEY", "AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_SECRET",
                "AZURE_SUBSCRIPTION_ID", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                "AWS_PROFILE")

Run = Callable[..., subprocess.CompletedProcess[str]]


def _command() -> list[str]:
    script = Path(sys.executable).with_name("gpuhub")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "gpuhub.cli"]


@pytest.fixture(scope="session")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gpuhub-home")


def _environ(home: Path, extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in _CREDENTIALS and not k.startswith("GPUHUB_")}
    env.update({"GPUHUB_CACHE_DIR": str(home / "cache"), "GPUHUB_STORE": str(home / "store"),
                "HOME": str(home), "NO_COLOR": "1", "COLUMNS": "240"})
    env.update(extra)
    return env


@pytest.fixture(scope="session")
def gpuhub_cli(home: Path) -> Run:
    """``gpuhub_cli("search", "--gpu", "H100", env={...})``: the installed command in a fresh process."""

    def run(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None,
            check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([*_command(), *args], capture_output=True, text=True, timeout=300,
                              env=_environ(home, env or {}), cwd=cwd or home)
        if check:
            assert done.returncode == 0, done.stderr
        return done

    return run


def search_json(run: Run, *args: str, env: dict[str, str] | None = None) -> tuple[list[dict[str, Any]], str]:
    """Every matching offer record (no limit) and the status lines (``-v``: one per provider)."""
    done = run("search", "-v", "--limit", "1000000", "--all-regions", "--include-accelerators", "--format", "json",
               *args, env=env)
    return json.loads(done.stdout), done.stderr


@pytest.fixture(scope="session")
def every_offer(gpuhub_cli: Run) -> tuple[list[dict[str, Any]], str]:
    """All offers of all providers, all plugins installed, and the status lines on stderr (every provider named, so
    the Kubernetes plugin's example clusters are in too: an unnamed search leaves examples out)."""
    return search_json(gpuhub_cli, *[arg for name in PROVIDERS for arg in ("--provider", name)])


@pytest.fixture()
def python_search(home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Any]]:
    """``gpuhub.search`` with the real registry (every installed plugin), isolated cache, no credentials."""
    import gpuhub
    from gpuhub.fetch.plugins import reset_registry
    from gpuhub.service.searching import reset_default_engine

    for name in _CREDENTIALS:
        monkeypatch.delenv(name, raising=False)
    for name in [k for k in os.environ if k.startswith("GPUHUB_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("GPUHUB_CACHE_DIR", str(home / "cache-py"))
    monkeypatch.setenv("GPUHUB_STORE", str(home / "store-py"))
    reset_registry()
    reset_default_engine()
    yield gpuhub.search
    reset_registry()
    reset_default_engine()
