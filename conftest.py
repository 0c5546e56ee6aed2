"""Process-wide state no test may leave behind for the next: the user cache directory, the engine logger, the
registry of known credential values (what every log record and message is redacted against).

Every test process (and every pytest-xdist worker) gets a user cache directory of its own.

A test that runs gpuhub with its default store (``gpuhub.search()``, the CLI in-process or as a subprocess that
inherits the environment) would otherwise write into the user's ``~/.cache/gpuhub``, shared with the user, with
the other worker and with a second copy of the suite running beside this one. platformdirs reads
``XDG_CACHE_HOME`` at each call, so setting it here covers every default location; tests that set
``GPUHUB_CACHE_DIR``/``GPUHUB_STORE`` themselves are unaffected.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest

_OWN: list[str] = []


README_TEST_COMMAND = "python3 -m venv .venv && . .venv/bin/activate && bash scripts/test.sh"


def _core_missing() -> str | None:
    """Why this interpreter cannot run the suite: the core distribution (and so its dependencies: cachetools,
    httpx, typer, ...) is not installed in it, or one of its requirements is missing; None when it can."""
    from importlib import metadata

    from packaging.requirements import Requirement  # pytest's own dependency

    try:
        requirements = [Requirement(r) for r in metadata.requires("gpuhub-core") or []]
    except metadata.PackageNotFoundError:
        return "gpuhub-core is not installed in this interpreter"
    missing = []
    for requirement in requirements:
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue  # an extra's, or another interpreter's
        try:
            metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:
            missing.append(requirement.name)
    return f"gpuhub-core's requirements are not installed: {', '.join(missing)}" if missing else None


_MISSING = _core_missing()
if _MISSING is not None:  # one line naming the fix, before tests/conftest.py fails to import gpuhub's dependencies
    pytest.exit(f"{_MISSING}; the tests need the core, every plugin and the test extras installed: "
                f"{README_TEST_COMMAND} (the README's test command)", returncode=4)


def pytest_configure(config: pytest.Config) -> None:
    top = tempfile.mkdtemp(prefix="gpuhub-test-cache-")
    _OWN.append(top)
    os.environ["XDG_CACHE_HOME"] = top
    for name in ("COLUMNS", "LINES"):  # the developer's terminal never sizes the tables the tests read
        os.environ.pop(name, None)


def _uninstalled_plugin(path: os.PathLike[str] | str) -> str | None:
    """The distribution of ``plugins/gpuhub-<name>/`` when ``path`` lies in it and its package is not installed."""
    import importlib.util
    from pathlib import Path

    parts = Path(path).resolve().relative_to(Path(__file__).resolve().parent).parts \
        if Path(path).resolve().is_relative_to(Path(__file__).resolve().parent) else ()
    if len(parts) < 2 or parts[0] != "plugins" or not parts[1].startswith("gpuhub-"):
        return None
    package = parts[1].replace("-", "_")
    return None if importlib.util.find_spec(package) is not None else parts[1]


_NOT_INSTALLED: set[str] = set()


def pytest_ignore_collect(collection_path: os.PathLike[str], config: pytest.Config) -> bool | None:
    """A plugin's tests are collected only where the plugin is installed (``scripts/test.sh`` installs every one);
    elsewhere they are left out and named in the report header, never a collection error."""
    missing = _uninstalled_plugin(collection_path)
    if missing is None:
        return None
    _NOT_INSTALLED.add(missing)
    return True


def pytest_report_collectionfinish(config: pytest.Config) -> list[str]:
    """Say which plugins' tests were left out because the plugin is not installed."""
    if not _NOT_INSTALLED:
        return []
    return [f"left out, not installed (pip install -e plugins/NAME[test]): {', '.join(sorted(_NOT_INSTALLED))}"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests that need an optional system part, so CI can run just those after installing the part
    (``.ci/run``: ``-m "postgres or browser"``): ``postgres`` for every test using the throwaway PostgreSQL server
    through a fixture it names (``pg_server``, directly or through ``pg_url``); a fixture that asks for it
    at run time marks its own ``postgres`` parameter, and tests/test_web_browser.py marks itself ``browser``."""
    for item in items:
        if "pg_server" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.postgres)


def pytest_unconfigure(config: pytest.Config) -> None:
    while _OWN:
        shutil.rmtree(_OWN.pop(), ignore_errors=True)


@pytest.fixture(autouse=True)
def _engine_logger_restored() -> Iterator[None]:
    """``gpuhub.cli.commands.main()`` silences the engine's log (``propagate = False``: the status line already says
    what failed) for the rest of its process; a test that calls it in-process must not take that into the next test's
    log assertions (under pytest-xdist the order of files differs)."""
    logger = logging.getLogger("gpuhub.service.engine")
    kept = (logger.propagate, list(logger.handlers), logger.level, logger.disabled)
    yield
    logger.propagate, logger.handlers[:], logger.level, logger.disabled = kept[0], kept[1], kept[2], kept[3]


@pytest.fixture(autouse=True)
def _known_secrets_restored() -> Iterator[None]:
    """A credential a test's fetch registered (Azure's tests use the ARM token ``token``) would otherwise be blanked
    in every later test of the process ("unclosed REDACTED: line 157"); under pytest-xdist the order of files
    differs from run to run."""
    from gpuhub.fetch.recording import known_secrets, restore_secrets

    kept = known_secrets()
    yield
    restore_secrets(kept)


@pytest.fixture(autouse=True)
def _process_registry_restored() -> Iterator[None]:
    """A test that installs its own registry or engine process-wide (a fake provider only, or AWS only) and does not
    put the old ones back would answer every later ``search()`` of its pytest-xdist worker from them ("provider:
    'kubernetes' is not allowed; allowed values: aws"); both are put back after each test."""
    import gpuhub.fetch.plugins as plugins
    import gpuhub.service.searching as searching

    kept = (plugins._registry, searching._engine)
    yield
    plugins.reset_registry(kept[0])
    searching.reset_default_engine(kept[1])


_TERMINAL = ("COLUMNS", "LINES")


@pytest.fixture(autouse=True)
def _terminal_size_left_alone(request: pytest.FixtureRequest) -> Iterator[None]:
    """The CLI sizes its table by ``COLUMNS`` (else 240 when piped): a test that leaves ``COLUMNS`` set would narrow
    every later table of its process. The size is restored after each test, and the test that changed it fails
    so the leak is fixed where it starts."""
    kept = {name: os.environ.get(name) for name in _TERMINAL}
    yield
    now = {name: os.environ.get(name) for name in _TERMINAL}
    for name, value in kept.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    assert now == kept, f"{request.node.nodeid} left the terminal size set: {now} (was {kept})"
