"""The store across real processes (each CLI run is a fresh ``python`` process) against a loopback API.

A fake cloud (fakecloud, two pages from ``fixtures/fakecloud``) is served on 127.0.0.1; every process runs the CLI
with only the fake provider installed and ``GPUHUB_STORE`` in a temporary directory. Shown: a second search within
the freshness window sends no request; the last good snapshot survives a later process that meets 503s, a stall or
an empty page half-way (served stale with its age, exit 0); processes started together share one fetch; a writer
killed mid-transaction leaves the previous snapshot readable and no growing debris.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from gpuhub.store import open_store

REPO = Path(__file__).resolve().parent.parent
PAGES = {n: (REPO / "fixtures" / "fakecloud" / f"page{n}.json").read_bytes() for n in (1, 2)}
CLI = """
import sys
sys.path.insert(0, {tests!r})
import fakecloud
from gpuhub import Engine, Registry
from gpuhub.fetch.plugins import reset_registry
from gpuhub.service.searching import reset_default_engine
from gpuhub.kit.testing import FAST_RETRY
registry = Registry(entry_points=[], extra_plugins=[fakecloud.PLUGIN])
reset_registry(registry)
reset_default_engine(Engine(registry, retry=FAST_RETRY, request_timeout_s=1.0, timeout_s=20.0))
from gpuhub.cli.commands import main
sys.argv = ["gpuhub", *sys.argv[1:]]
main()
"""


class FakeApi:
    """fakecloud's API on loopback; ``mode``: ok, 503, stall (page 1 answers after 3 s), empty-page (page 1 is
    empty but says there is a page 2), slow (every page after ``delay_s``)."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.delay_s = 0.0
        self.requests: list[str] = []
        self._lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                page = int(parse_qs(urlsplit(self.path).query).get("page", ["1"])[0])
                with api._lock:
                    api.requests.append(f"page={page}")
                if api.mode == "503":
                    self._send(503, b'{"error": "unavailable"}')
                    return
                if api.mode == "stall" and page == 1:
                    time.sleep(3.0)
                time.sleep(api.delay_s)
                body = PAGES[page]
                if api.mode == "empty-page" and page == 1:
                    body = json.dumps({"offers": [], "next_page": 2}).encode()
                self._send(200, body)

            def _send(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def api() -> Iterator[FakeApi]:
    server = FakeApi()
    yield server
    server.close()


def _env(store: Path, api: FakeApi) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GPUHUB_", "FAKECLOUD_"))}
    return {**base, "GPUHUB_STORE": str(store), "FAKECLOUD_TOKEN": "test-token-1234",
            "GPUHUB_FAKECLOUD_BASE_URL": api.url}


def _start(store: Path, api: FakeApi, *args: str) -> subprocess.Popen[str]:
    code = CLI.format(tests=str(REPO / "tests"))
    return subprocess.Popen([sys.executable, "-c", code, "search", "-v", "--format", "json", "--limit", "50",
                             "--all-regions", *args],
                            env=_env(store, api), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _search(store: Path, api: FakeApi, *args: str) -> tuple[int, list[dict[str, Any]], str]:
    proc = _start(store, api, *args)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, json.loads(out) if out.strip() else [], err


def _h100x8(records: list[dict[str, Any]]) -> set[tuple[str, float]]:
    return {(r["region"], r["price_per_hour"]) for r in records if r["instance_type"] == "h100x8"}


def test_second_search_in_the_freshness_window_sends_no_request(api: FakeApi, tmp_path: Path) -> None:
    code, first, err = _search(tmp_path, api)
    assert code == 0 and "fakecloud: ok, 7 offers" in err, err
    assert api.requests == ["page=1", "page=2"]
    assert _h100x8(first) == {("us-east-1", 23.92), ("eu-central-1", 23.92)}  # 8 × 2.99 per GPU-hour
    code, second, err = _search(tmp_path, api)
    assert code == 0 and "fakecloud: ok, 7 offers" in err and "from the store, fetched" in err, err
    assert api.requests == ["page=1", "page=2"]  # nothing sent
    assert second == first
    code, third, err = _search(tmp_path, api, "--max-age", "0")  # too old for this search: fetched again
    assert code == 0 and api.requests == ["page=1", "page=2"] * 2 and third == first, err


@pytest.mark.parametrize("fault", ["503", "stall", "empty-page"])
def test_last_good_is_kept_across_processes(fault: str, api: FakeApi, tmp_path: Path) -> None:
    code, good, err = _search(tmp_path, api)
    assert code == 0 and "fakecloud: ok, 7 offers" in err, err
    api.mode = fault
    code, stale, err = _search(tmp_path, api, "--refresh", *(["--timeout", "1"] if fault == "stall" else []))
    assert code == 0, err
    [line] = [x for x in err.splitlines() if x.startswith("fakecloud:")]
    assert line.startswith("fakecloud: stale, 7 offers") and "showing the last good data from" in line, line
    why = {"503": "HTTP 503", "stall": "timed out",
           "empty-page": "part of its catalog (empty pages half-way through the walk)"}[fault]
    assert why in line, line
    assert _h100x8(stale) == _h100x8(good) == {("us-east-1", 23.92), ("eu-central-1", 23.92)}
    # A third process (no fault, in the freshness window) still gets the complete snapshot, not the bad refresh.
    api.mode = "ok"
    sent = len(api.requests)
    code, third, err = _search(tmp_path, api)
    assert code == 0 and "fakecloud: ok, 7 offers" in err, err
    if fault != "stall":  # a stalled fetch finished in the background and stored a good snapshot
        assert len(api.requests) == sent
    assert third == good
    store = open_store(str(tmp_path))
    assert store is not None
    good_ones = [s for s in store.snapshots("fakecloud") if s.complete]
    assert good_ones and all(s.offers == 7 for s in good_ones)
    if fault != "stall":
        assert any(not s.complete for s in store.snapshots("fakecloud"))  # the bad refresh is on record


def test_processes_started_together_share_one_fetch(api: FakeApi, tmp_path: Path) -> None:
    api.delay_s = 0.3
    procs = [_start(tmp_path, api) for _ in range(4)]
    results = [p.communicate(timeout=180) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e for _, e in results]
    assert sorted(api.requests) == ["page=1", "page=2"], api.requests  # one request sequence in total
    outputs = [json.loads(out) for out, _ in results]
    assert all(o == outputs[0] and len(o) == 7 for o in outputs)
    assert all("fakecloud: ok, 7 offers" in err for _, err in results)


KILLED_WRITER = """
import sys, time
from pathlib import Path
sys.path.insert(0, {tests!r})
import fakecloud
from gpuhub import Registry
from gpuhub.store.sqlite import SqliteStore
from gpuhub.kit.testing import make_engine, run_provider

real_prune = SqliteStore._prune

def stuck(self, db, keep, older_than_s):  # inside the transaction: content and row written, not committed
    real_prune(self, db, keep, older_than_s)
    Path({ready!r}).write_text("writing")
    time.sleep(120)

SqliteStore._prune = stuck
store = SqliteStore(Path({store!r}))
registry = Registry(entry_points=[], extra_plugins=[fakecloud.PLUGIN])
engine = make_engine(registry, store=store, environ={{"FAKECLOUD_TOKEN": "t0ken-1234",
                                                     "GPUHUB_FAKECLOUD_BASE_URL": {url!r}}})
run_provider(engine, "fakecloud", mode="live", refresh=True)
"""


def test_snapshot_half_written_by_a_killed_process_is_never_read(api: FakeApi, tmp_path: Path) -> None:
    code, good, err = _search(tmp_path, api)
    assert code == 0, err
    store = open_store(str(tmp_path))
    assert store is not None
    [before] = store.snapshots("fakecloud")
    store.close()
    page = PAGES[1].replace(b'"2.99"', b'"9.99"')
    sizes = []
    for attempt in range(2):
        ready = tmp_path / f"ready-{attempt}"
        PAGES[1], original = page, PAGES[1]
        try:
            proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER.format(
                tests=str(REPO / "tests"), ready=str(ready), store=str(tmp_path), url=api.url)])
            deadline = time.monotonic() + 120
            while not ready.exists() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            assert ready.exists(), "the writer never reached its transaction"
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            PAGES[1] = original
        ready.unlink()
        code, after, err = _search(tmp_path, api)  # within the freshness window: served from the store
        assert code == 0 and after == good, err  # the old prices (23.92), never the half-written 79.92
        store = open_store(str(tmp_path))
        assert store is not None
        assert store.snapshots("fakecloud") == [before]
        store.close()
        sizes.append((tmp_path / "store.sqlite").stat().st_size)
        names = sorted(p.name for p in tmp_path.iterdir())
        assert set(names) <= {"store.sqlite", "store.sqlite-wal", "store.sqlite-shm", "locks"}, names
    assert sizes[0] == sizes[-1], sizes  # no debris that grows
