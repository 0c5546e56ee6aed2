"""``gpuhub serve`` in worker processes (issue 27): several processes answer on one loopback port, concurrent
searches get the same answers as one at a time, and the workers stop by themselves when the server is stopped or
killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")

from test_web_hardening import SERVE, _free_port, _get

REPO = Path(__file__).resolve().parent.parent


def _workers(pid: int) -> list[int]:
    """The child processes of ``pid`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return sorted(found)


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _start(tmp_path: Path) -> tuple[subprocess.Popen[bytes], int]:
    number = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUHUB_")}
    env.update(GPUHUB_STORE=str(tmp_path / "store"), GPUHUB_WEB_WORKERS="2")
    err = open(tmp_path / "stderr.txt", "w")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen([sys.executable, "-c", SERVE.format(tests=str(REPO / "tests")), str(number)], env=env,
                            stdout=subprocess.DEVNULL, stderr=err)
    err.close()
    until = time.monotonic() + 90
    while True:
        try:
            if _get(number, "/api/rankers", timeout_s=5)[0] == 200:
                return proc, number
        except OSError:
            pass
        assert proc.poll() is None, (tmp_path / "stderr.txt").read_text()
        assert time.monotonic() < until, "the server did not start: " + (tmp_path / "stderr.txt").read_text()
        time.sleep(0.2)


@pytest.mark.skipif(not Path("/proc/self/stat").exists() or not hasattr(os, "fork"), reason="Linux processes")
def test_two_workers_answer_concurrent_searches_and_stop_with_the_server(tmp_path: Path) -> None:
    proc, port = _start(tmp_path)
    try:
        workers = _workers(proc.pid)
        assert len(workers) == 2
        paths = [f"/api/search?gpu=H100&limit={n}" for n in range(1, 9)] * 2
        one_at_a_time = [_get(port, p) for p in paths]
        with ThreadPoolExecutor(8) as pool:
            at_once = list(pool.map(lambda p: _get(port, p), paths))
        assert [s for s, _ in at_once] == [200] * 16
        assert at_once == one_at_a_time
        first, eight = json.loads(at_once[0][1]), json.loads(at_once[7][1])
        assert len(first) == 1 and first == eight[:1]  # the cheapest H100 offer, whichever process answered
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) is not None
        deadline = time.monotonic() + 30
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.skipif(not Path("/proc/self/stat").exists() or not hasattr(os, "fork"), reason="Linux processes")
def test_workers_stop_by_themselves_when_the_server_process_is_killed(tmp_path: Path) -> None:
    proc, port = _start(tmp_path)
    workers = _workers(proc.pid)
    assert len(workers) == 2
    proc.kill()  # SIGKILL: the parent cannot stop anyone
    proc.wait()
    deadline = time.monotonic() + 30
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(w) for w in workers)
    with pytest.raises(OSError):
        _get(port, "/api/rankers", timeout_s=5)


def test_a_worker_socket_sends_responses_without_waiting_for_acknowledgements() -> None:
    """Connections accepted on a worker's socket have TCP_NODELAY (asyncio sets it only for a socket made with
    protocol IPPROTO_TCP): without it each response, written as headers then body, waited 40 ms for the client's
    delayed acknowledgement (one client on two workers: 64-68 ms a search instead of 21-25)."""
    import asyncio
    import socket

    from gpuhub.web.server import _listen

    listener = _listen("127.0.0.1", 0, socket.AF_INET, reuse_port=True)

    async def accept_one() -> list[int]:
        seen: list[int] = []
        accepted = asyncio.Event()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                seen.append(transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()
                accepted.set()

        server = await asyncio.get_running_loop().create_server(Probe, sock=listener)
        _, writer = await asyncio.open_connection(*listener.getsockname())
        await asyncio.wait_for(accepted.wait(), 10)
        writer.close()
        server.close()
        await server.wait_closed()
        return seen

    assert asyncio.run(accept_one()) == [1]
