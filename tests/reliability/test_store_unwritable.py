"""A store that cannot be written is still read (issue 24, defect 9): a read-only store directory and file, or a full
disk, never makes ``gpuhub search`` ignore the store. The good stored offers are served (``stale`` when the refresh
then fails), one warning says the store is read-only, nothing is written and the store stays sound.

Through the public CLI, each search a separate process, against the loopback fault server replaying Lambda's
bundled recording (live mode, a fake API key), like ``test_rate_limits.py``. Tests run as root here, and root writes
through file modes, so the read-only searches run without the capabilities that let root do that
(``CAP_DAC_OVERRIDE``, ``CAP_DAC_READ_SEARCH``, ``CAP_FOWNER`` dropped from the bounding set before the exec): the
file system then refuses the writes as it would any user's. A full disk is a file size limit (``RLIMIT_FSIZE``):
every write past it fails with ``EFBIG``, which SQLite reports as a ``disk I/O error`` (when opening: not even its
shared-memory index can be made; or at the first write).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from distplugins import cli_env, statuses
from faultserver import Fault, FaultServer
from harness import case_or_skip, live_env, serving

from gpuhub import Registry

PRICE = ("gpu_1x_h100_sxm5", 3.29)
"""An offer of Lambda's bundled recording: 329 cents per hour."""
PR_CAPBSET_DROP = 24
WRITE_OVERRIDES = (1, 2, 3)
"""CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER (linux/capability.h)."""


def _as_a_user() -> None:
    """In the child, before the exec: give up root's right to write through file modes."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in WRITE_OVERRIDES:
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _disk_full_at(size: int) -> Callable[[], None]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))

    return limit


def _cli(env: dict[str, str], *extra: str, before: Callable[[], None] | None = None,
         ) -> tuple[list[dict[str, object]], str, str]:
    done = subprocess.run([sys.executable, "-m", "gpuhub.cli", "search", "-v", "--provider", "lambda", "--fetch",
                           "live", "--format", "json", "--all-regions", "--limit", "1000", *extra], env=env,
                          capture_output=True, text=True, timeout=180, preexec_fn=before)
    assert "Traceback" not in done.stderr, done.stderr
    offers = json.loads(done.stdout) if done.stdout.strip() else []
    return offers, statuses(done.stderr).get("lambda", ""), done.stderr


def _has_price(offers: list[dict[str, object]]) -> bool:
    return any(o["instance_type"] == PRICE[0] and o["price_per_hour"] == PRICE[1] for o in offers)


def _snapshots(store: Path) -> list[tuple[int, int]]:
    """(id, complete) of every stored snapshot, read without writing (and the file's integrity checked)."""
    db = sqlite3.connect(f"{(store / 'store.sqlite').as_uri()}?mode=ro", uri=True)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return [(int(i), int(c)) for i, c in db.execute("SELECT id, complete FROM snapshot ORDER BY id")]
    finally:
        db.close()


@pytest.fixture
def stored(rel_registry: Registry, tmp_path: Path) -> Iterator[tuple[FaultServer, dict[str, str], Path]]:
    """Lambda's server on loopback and a store holding one good live fetch of it (3.29 for gpu_1x_h100_sxm5)."""
    case = case_or_skip(rel_registry, "lambda")
    with serving(rel_registry, case) as server:
        store = tmp_path / "store"
        # Stored live data is never "fresh" here, so every search asks the server (as a search an hour later).
        env = cli_env(None, tmp_path / "cache", GPUHUB_STORE=str(store), GPUHUB_FRESH_ON_DEMAND_S="0",
                      GPUHUB_FRESH_SPOT_S="0", **live_env(rel_registry, case, server))
        offers, line, err = _cli(env)
        assert line.startswith("lambda: ok"), err
        assert _has_price(offers)
        assert any(complete for _, complete in _snapshots(store))
        yield server, env, store


@contextlib.contextmanager
def _read_only(store: Path) -> Iterator[None]:
    """The store directory, its subdirectories and files read-only (modes restored after)."""
    paths = [*sorted(store.rglob("*"), reverse=True), store]
    modes = {p: p.lstat().st_mode for p in paths}
    for path in paths:
        path.chmod(0o500 if path.is_dir() else 0o400)
    try:
        yield
    finally:
        for path, mode in modes.items():
            path.chmod(stat.S_IMODE(mode))


def _user_is_refused(tmp_path: Path) -> bool:
    """True when a child run through :func:`_as_a_user` cannot write a read-only file here."""
    probe = tmp_path / "probe"
    probe.write_text("x")
    probe.chmod(0o400)
    try:
        done = subprocess.run([sys.executable, "-c", f"open({str(probe)!r}, 'a').write('y')"], capture_output=True,
                              preexec_fn=_as_a_user, timeout=60)
    except OSError:
        return False
    finally:
        probe.chmod(0o600)
    return done.returncode != 0 and "PermissionError" in done.stderr.decode()


def test_a_read_only_store_is_still_read(stored: tuple[FaultServer, dict[str, str], Path], rel_registry: Registry,
                                         tmp_path: Path) -> None:
    server, env, store = stored
    if not _user_is_refused(tmp_path):
        pytest.skip("cannot run the CLI here without the right to write read-only files")
    before = _snapshots(store)
    case = case_or_skip(rel_registry, "lambda")
    with _read_only(store):
        server.inject(Fault.http_status(503), match=case.fault_match)  # every refresh fails
        offers, line, err = _cli(env, "--refresh", before=_as_a_user)
        assert line.startswith("lambda: stale"), err
        assert "HTTP 503" in line and "showing the last good data from" in line, line
        assert _has_price(offers), "the stored offers must be served when the store is read-only"
        assert err.count("is read-only") == 1 and "not usable" not in err, err
        assert "stored offers are served, new fetches are not kept" in err, err

        server.clear()  # the server is back: fresh offers, served, not kept
        offers, line, err = _cli(env, "--refresh", before=_as_a_user)
        assert line.startswith("lambda: ok"), err
        assert _has_price(offers)
        assert err.count("is read-only") == 1 and "not usable" not in err, err

        shown = subprocess.run([sys.executable, "-m", "gpuhub.cli", "store", "show", "--format", "json"], env=env,
                               capture_output=True, text=True, timeout=120, preexec_fn=_as_a_user)
        assert shown.returncode == 0, shown.stderr
        listed = json.loads(shown.stdout)
        assert listed["read_only"], listed  # known at once, before any write
        assert sorted(s["id"] for s in listed["snapshots"]) == [i for i, _ in before]
    assert _snapshots(store) == before  # nothing was written


@pytest.mark.parametrize(("limit", "words"), [
    (0, "is read-only (disk I/O error)"),  # not even the shared-memory index can be made: opened immutable
    (40_000, "is read-only from now on in this process"),  # opened for writing; the first write fails
])
def test_a_full_disk_store_is_still_read(limit: int, words: str, stored: tuple[FaultServer, dict[str, str], Path],
                                         rel_registry: Registry) -> None:
    server, env, store = stored
    before = _snapshots(store)
    case = case_or_skip(rel_registry, "lambda")
    server.inject(Fault.http_status(503), match=case.fault_match)
    offers, line, err = _cli(env, "--refresh", before=_disk_full_at(limit))
    assert line.startswith("lambda: stale"), err
    assert "HTTP 503" in line and "showing the last good data from" in line, line
    assert _has_price(offers), "the stored offers must be served when the disk is full"
    assert err.count("is read-only") == 1 and words in err and "not usable" not in err, err

    server.clear()
    offers, line, err = _cli(env, "--refresh", before=_disk_full_at(limit))
    assert line.startswith("lambda: ok"), err
    assert _has_price(offers)
    assert err.count("is read-only") <= 1 and "not usable" not in err, err
    assert _snapshots(store) == before  # a sound store, every committed snapshot still there, none half-written

    offers, line, err = _cli(env, "--refresh")  # space again: the next fetch is kept
    assert line.startswith("lambda: ok") and "read-only" not in err, err
    assert len(_snapshots(store)) > len(before)
