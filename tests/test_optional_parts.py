"""A machine without the optional system parts (Chromium, a PostgreSQL server) runs the suite with the tests that
need them skipped, each with its reason; with ``CI=true`` the same tests fail, because CI's second step installs
the parts and must exercise them (``.ci/run``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


PG_TEST = "tests/history/test_servers.py::test_postgres_fixture_gives_an_empty_database_per_test"


def _pytest(ci: str, *options: str) -> subprocess.CompletedProcess[str]:
    """The browser tests and one PostgreSQL test, run as on a machine without Chromium and PostgreSQL."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")}
    env |= {"CI": ci, "GPUHUB_CHROMIUM": "/nonexistent", "GPUHUB_TEST_PG_BINDIR": "/nonexistent"}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-n", "0", "-p", "no:randomly", *options,
                           "tests/test_web_browser.py", PG_TEST],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_without_chromium_and_postgresql_their_tests_skip_with_the_reason() -> None:
    done = _pytest(ci="")
    assert done.returncode == 0, done.stdout[-2000:]
    assert "2 skipped" in done.stdout and "error" not in done.stdout.lower()
    assert "no Chromium at /nonexistent (apt-get install chromium chromium-driver)" in done.stdout
    assert "PostgreSQL server binaries (initdb, pg_ctl) are not installed: apt-get install -y postgresql" in done.stdout


def test_with_ci_true_a_missing_part_fails_its_tests() -> None:
    done = _pytest("true", "--continue-on-collection-errors")
    assert done.returncode == 1, done.stdout[-2000:]
    assert "2 errors" in done.stdout  # the browser module at collection, the PostgreSQL fixture at setup
    assert "browser tests cannot run in CI: no Chromium at /nonexistent" in done.stdout
    assert "CI must run this test, but PostgreSQL could not start" in done.stdout
