"""``gpuhub search --timeout T`` returns and the process exits within T + 2 s whatever a plugin does (issue 12,
defect 1): a fetch that sleeps, hangs, yields offers forever, builds a huge answer, or reads an endless body; a
plugin that hangs at import. Each case is a real CLI process with the misbehaving plugin installed as a
distribution; bounds are generous (interpreter start-up on a loaded machine), never exact timings.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from distplugins import cli_env, make_dist, popen_cli, run_cli, statuses

T = 8.0
SLACK_S = 10.0
"""Start-up and printing on a loaded 2-core machine; the old behaviour was 63 s to forever."""

FETCHES = {
    "sleeps": "time.sleep(3600)",
    "hangs": "threading.Event().wait()",
    "yields_forever": "n = 0\nwhile True:\n    yield _offer(ctx, n)\n    n += 1",
    "huge_answer": "return [_offer(ctx, n) for n in range(10 ** 6)]",
    "endless_body": "return ctx.get_json(os.environ['EVIL_URL'])",
}


class _Endless(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        try:
            self.wfile.write(b"[")
            while True:
                self.wfile.write(b'{"x": 1},' * 4096)
                time.sleep(0.01)
        except OSError:
            return

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def endless_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endless)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/offers"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache/store where Lambda's recording is already parsed: the timed runs measure the deadline, not a cold
    parse on a loaded machine (the neighbour must still come back within the deadline)."""
    cache = tmp_path_factory.mktemp("warm-cache")
    done, _ = run_cli(["search", "-v", "--provider", "lambda", "--limit", "1"], cli_env(None, cache))
    assert done.returncode == 0, done.stderr
    return cache


@pytest.mark.parametrize("behaviour", list(FETCHES))
def test_search_exits_within_the_timeout_whatever_a_fetch_does(behaviour: str, tmp_path: Path,
                                                                endless_url: str, warm_cache: Path) -> None:
    make_dist(tmp_path / "site", "gpuhub-evil", "gpuhub_evil", fetch=FETCHES[behaviour])
    env = cli_env(tmp_path / "site", warm_cache, EVIL_TOKEN="t0k3n-evil", EVIL_URL=endless_url)
    done, wall = run_cli(["search", "-v", "--provider", "lambda", "--provider", "evil", "--timeout", f"{T:g}",
                          "--limit", "1", "--format", "json"], env)
    assert wall < T + 2 + SLACK_S, (wall, done.stderr[-1500:])
    assert done.returncode == 0, done.stderr[-1500:]
    lines = statuses(done.stderr)
    assert lines["lambda"].startswith(("lambda: ok, ", "lambda: stale, ")), done.stderr  # its offers are there
    assert lines["evil"].startswith("evil: failed"), done.stderr
    assert "timed out after" in lines["evil"] or "over 64 MiB" in lines["evil"], lines["evil"]


def test_plugin_hanging_at_import_is_reported_hung_and_left_out(tmp_path: Path, warm_cache: Path) -> None:
    make_dist(tmp_path / "site", "gpuhub-stuck", "gpuhub_stuck", provider="stuck",
              import_time="threading.Event().wait()")
    env = cli_env(tmp_path / "site", warm_cache, GPUHUB_PLUGIN_TIMEOUT="2")
    done, wall = run_cli(["plugins", "--format", "json"], env)
    assert wall < 2 + 2 * SLACK_S, wall  # start-up imports every plugin (seconds when loaded); before: never ended
    assert done.returncode == 0, done.stderr
    report = {r["name"]: r for r in json.loads(done.stdout)}
    assert report["gpuhub_stuck"]["status"] == "hung", report["gpuhub_stuck"]
    assert "did not finish within 2 s" in report["gpuhub_stuck"]["error"]
    assert report["lambda"]["status"] == "loaded"
    # search --timeout bounds plugin loading too (no GPUHUB_PLUGIN_TIMEOUT: half of --timeout)
    env.pop("GPUHUB_PLUGIN_TIMEOUT")
    done, wall = run_cli(["search", "-v", "--provider", "lambda", "--timeout", f"{T:g}", "--limit", "1"], env)
    assert wall < T + 2 + SLACK_S, (wall, done.stderr[-1500:])
    assert done.returncode == 0 and statuses(done.stderr)["lambda"].startswith("lambda: ok, ")


def test_a_real_ctrl_c_stops_the_search_promptly(tmp_path: Path) -> None:
    make_dist(tmp_path / "site", "gpuhub-evil", "gpuhub_evil", fetch=FETCHES["hangs"])
    env = cli_env(tmp_path / "site", tmp_path / "cache", EVIL_TOKEN="t0k3n-evil")
    proc = popen_cli(["search", "-v", "--provider", "evil", "--provider", "lambda"], env)  # default timeout: 60 s
    try:
        time.sleep(3.0)
        proc.send_signal(signal.SIGINT)
        started = time.monotonic()
        _out, errs = proc.communicate(timeout=30)
        assert time.monotonic() - started < 10, "Ctrl-C did not stop the search promptly"
        assert proc.returncode == 130 and "interrupted" in errs, (proc.returncode, errs)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
