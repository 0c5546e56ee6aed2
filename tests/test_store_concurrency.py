"""One SQLite store shared by three processes at once (issue 24, defect 1): a prune loop (``gpuhub store prune`` and
``gpuhub store show``, in one long-lived process), a search loop whose prices change every round (``gpuhub.search``
with ``refresh``, a new engine each round) and ``gpuhub serve`` answering ``/api/search`` from the store.

Each round the fake cloud (loopback) raises the H100 price by a cent, the search process refreshes and commits a
snapshot, and the server — whose in-memory cache is off, so it reads the store — must serve exactly that price. At
the end ``PRAGMA integrity_check`` says ``ok``, no process printed "malformed" or set the store aside as damaged,
and a new CLI search reads the last committed price from the store.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from test_store_processes import PAGES, FakeApi

REPO = Path(__file__).resolve().parent.parent
RECORDED = PAGES[1]
ROUNDS = 30
SETUP = """
import sys
sys.path.insert(0, {tests!r})
import fakecloud
from gpuhub import Engine, Registry
from gpuhub.fetch.plugins import reset_registry
from gpuhub.service.searching import reset_default_engine
from gpuhub.kit.testing import FAST_RETRY
registry = Registry(entry_points=[], extra_plugins=[fakecloud.PLUGIN])
reset_registry(registry)
def new_engine():
    # ttl_s: no in-memory cache between searches, every search reads the store
    engine = Engine(registry, retry=FAST_RETRY, request_timeout_s=5.0, timeout_s=30.0, ttl_s=0.001)
    reset_default_engine(engine)
    return engine
new_engine()
from gpuhub.cli.commands import main
"""
PRUNE_LOOP = SETUP + """
import os, time
from pathlib import Path
stop = Path({stop!r})
n = 0
while not stop.exists():
    for argv in (["store", "prune", "--keep", "1"], ["store", "show", "--format", "json"]):
        sys.argv = ["gpuhub", *argv]
        try:
            main()
        except SystemExit as exc:
            if exc.code:
                print("exit", exc.code, argv, flush=True)
    n += 1
    time.sleep(0.05)  # leave the machine to the other two
    Path(str(stop) + ".count").write_text(str(n))
print("prunes", n, flush=True)
"""
SEARCH_LOOP = SETUP + """
import gpuhub, json
for line in sys.stdin:
    new_engine()  # a new engine (and store handle) each round, as a long-lived program may make them
    result = gpuhub.search(provider="fakecloud", instance_type="h100x8", refresh=True, distinct=False)
    prices = sorted({{float(o.price.amount) for o in result.offers}})
    print(json.dumps({{"round": int(line), "prices": prices, "status": [s.line() for s in result.statuses]}}),
          flush=True)
"""
SERVE = SETUP + """
from gpuhub.store import open_store
open_store().get_meta("plugin-index")  # the CLI opens the store for its plugin index before the engine does
port = sys.argv[1]
sys.argv = ["gpuhub", "serve", "--port", port, "--fetch", "live"]
main()
"""


def _price(round_: int) -> Decimal:
    return Decimal("3.00") + Decimal(round_) / 100


@pytest.fixture
def api() -> Iterator[FakeApi]:
    server = FakeApi()
    original = PAGES[1]
    yield server
    PAGES[1] = original
    server.close()


def _set_price(price: Decimal) -> None:
    """The H100's per-GPU-hour price the fake cloud answers from now on (2.99 in the recording)."""
    PAGES[1] = RECORDED.replace(b'"2.99"', f'"{price}"'.encode())


def _env(store: Path, api: FakeApi) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GPUHUB_", "FAKECLOUD_"))}
    return {**base, "GPUHUB_STORE": str(store), "FAKECLOUD_TOKEN": "test-token-1234",
            "GPUHUB_FAKECLOUD_BASE_URL": api.url, "GPUHUB_STORE_KEEP": "3"}


def _python(code: str, env: dict[str, str], *args: str, stdin: bool = False) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", code.format(tests=str(REPO / "tests"), stop=args[0] if args
                                                               else ""), *args],
                            env=env, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str, deadline_s: float = 60.0) -> Any:
    until = time.monotonic() + deadline_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                return json.loads(response.read())
        except OSError:
            if time.monotonic() > until:
                raise
            time.sleep(0.1)


def _stop(proc: subprocess.Popen[str]) -> tuple[str, str]:
    with contextlib.suppress(ProcessLookupError):
        proc.terminate()
    try:
        return proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()


def test_prune_search_and_serve_share_one_store(api: FakeApi, tmp_path: Path) -> None:
    store = tmp_path / "store"
    env = _env(store, api)
    stop = tmp_path / "stop"
    port = _free_port()
    searcher = _python(SEARCH_LOOP, env, stdin=True)
    assert searcher.stdin is not None and searcher.stdout is not None
    searcher.stdin.write("0\n")
    searcher.stdin.flush()
    first = json.loads(searcher.stdout.readline() or "{}")
    assert first.get("prices") == [23.92], first  # 8 GPUs × 2.99: the store exists before the others start
    server = _python(SERVE, env, str(port))
    pruner = _python(PRUNE_LOOP, env, str(stop))
    try:
        for round_ in range(1, ROUNDS + 1):
            _set_price(_price(round_))
            searcher.stdin.write(f"{round_}\n")
            searcher.stdin.flush()
            answer = json.loads(searcher.stdout.readline() or "{}")
            expected = float(_price(round_) * 8)
            assert answer.get("prices") == [expected], (round_, answer)
            rows = _get(f"http://127.0.0.1:{port}/api/search?provider=fakecloud&instance_type=h100x8"
                        "&all_regions=true")
            assert sorted({r["price_per_hour"] for r in rows}) == [expected], (round_, rows)
        count = Path(str(stop) + ".count")
        until = time.monotonic() + 120  # the prune loop runs at least as many rounds (a loaded machine is slow)
        while (not count.exists() or int(count.read_text() or 0) < ROUNDS) and time.monotonic() < until:
            time.sleep(0.2)
    finally:
        stop.touch()
        _, search_err = searcher.communicate("", timeout=60)
        prune_out, prune_err = pruner.communicate(timeout=120)
        serve_out, serve_err = _stop(server)
    everything = "\n".join((search_err, prune_out, prune_err, serve_out, serve_err))
    assert "malformed" not in everything and "damaged" not in everything, everything[-3000:]
    assert "exit" not in prune_out, prune_out[-2000:]
    assert int(prune_out.split("prunes")[-1]) >= ROUNDS, prune_out
    assert sorted(p.name for p in store.iterdir() if "damaged" in p.name) == []
    with sqlite3.connect(store / "store.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    # A new process reads the newest committed snapshot from the store (no request: fresh enough).
    _set_price(Decimal("99.99"))
    code = SETUP + ("sys.argv = ['gpuhub', 'search', '-v', '-f', 'json', '--provider', 'fakecloud', "
                    "'--all-regions']\nmain()\n")
    proc = subprocess.run([sys.executable, "-c", code.format(tests=str(REPO / "tests"))], env=env, text=True,
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = [r for r in json.loads(proc.stdout) if r["instance_type"] == "h100x8"]
    assert {r["price_per_hour"] for r in rows} == {float(_price(ROUNDS) * 8)}, proc.stderr
    assert "from the store" in proc.stderr, proc.stderr
