"""Throwaway servers for the history/store tests, all on 127.0.0.1: PostgreSQL (Debian's package, a fresh
``initdb`` in a temporary directory on a free port), S3 (moto's server mode) and a plain HTTP file server.

Each server is stopped by the fixture that started it. When a server cannot start here the tests that need it are
skipped with the reason; with ``CI=true`` they fail instead, because CI must exercise them.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import http.server
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def unavailable(reason: str) -> None:
    """Skip (developer machine) or fail (CI) because a server the test needs cannot start."""
    if in_ci():
        pytest.fail(f"CI must run this test, but {reason}", pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _pg_bin(name: str) -> str | None:
    """The newest Debian PostgreSQL server binary ``name``, else one on PATH; ``GPUHUB_TEST_PG_BINDIR`` names the
    only directory to look in (``/nonexistent`` shows how the tests behave on a machine without PostgreSQL)."""
    only = os.environ.get("GPUHUB_TEST_PG_BINDIR")
    if only is not None:
        path = Path(only) / name
        return str(path) if path.is_file() else None
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
                        key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    return candidates[-1] if candidates else shutil.which(name)


_WATCHDOG = """
import os, shutil, subprocess, sys, time
parent, pg_ctl, directory, user = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] or None
while os.path.isdir(directory):
    try:
        os.kill(parent, 0)
    except ProcessLookupError:
        subprocess.run([pg_ctl, "-D", directory + "/data", "-m", "immediate", "-w", "stop"], user=user,
                       cwd=directory, capture_output=True, timeout=60, check=False)
        shutil.rmtree(directory, ignore_errors=True)
        break
    time.sleep(1)
"""
"""Stops the cluster and removes its directory when the test process dies without its teardown (killed, timed
out); exits by itself once the fixture has stopped the cluster normally (the directory is gone)."""


@dataclass
class PgServer:
    """A running throwaway PostgreSQL cluster; ``url(db)`` is a libpq URL for database ``db``."""

    port: int
    directory: Path
    pg_ctl: str
    user: str | None
    watchdog: subprocess.Popen[bytes] | None = None

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://gpuhub@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(list(args), capture_output=True, text=True, timeout=120, check=False,
                              user=self.user, cwd=self.directory)

    def stop(self) -> None:
        self._run(self.pg_ctl, "-D", str(self.directory / "data"), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.directory, ignore_errors=True)
        if self.watchdog is not None:
            self.watchdog.wait(timeout=30)  # it sees the directory gone and exits


def start_postgres() -> PgServer:
    """initdb into a fresh temporary directory and start it on 127.0.0.1:<free port>.

    As root (CI), the cluster runs as the ``postgres`` user (PostgreSQL refuses to run as root).

    Raises:
        RuntimeError: no PostgreSQL server binaries, or the server did not start (with its log).
    """
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        raise RuntimeError("PostgreSQL server binaries (initdb, pg_ctl) are not installed: "
                           "apt-get install -y postgresql")
    user: str | None = None
    directory = Path(tempfile.mkdtemp(prefix="gpuhub-pg-"))
    if os.geteuid() == 0:
        try:
            entry = pwd.getpwnam("postgres")
        except KeyError:
            raise RuntimeError("running as root and there is no 'postgres' user to run the server as") from None
        user = "postgres"
        os.chown(directory, entry.pw_uid, entry.pw_gid)
    server = PgServer(free_port(), directory, pg_ctl, user)
    done = server._run(initdb, "-D", str(directory / "data"), "-U", "gpuhub", "--auth=trust", "-E", "UTF8",
                       "--no-sync", "--no-instructions")
    if done.returncode != 0:
        shutil.rmtree(directory, ignore_errors=True)
        raise RuntimeError(f"initdb failed: {(done.stderr or done.stdout)[-800:]}")
    options = f"-h 127.0.0.1 -p {server.port} -k {directory} -F -c max_connections=60"
    done = server._run(pg_ctl, "-D", str(directory / "data"), "-o", options, "-l", str(directory / "log"),
                       "-w", "-t", "60", "start")
    if done.returncode != 0:
        log = (directory / "log").read_text(errors="replace")[-800:] if (directory / "log").exists() else ""
        shutil.rmtree(directory, ignore_errors=True)
        raise RuntimeError(f"pg_ctl start failed: {(done.stderr or done.stdout)[-400:]} {log}")
    watch = [sys.executable, "-c", _WATCHDOG, str(os.getpid()), pg_ctl, str(directory), user or ""]
    server.watchdog = subprocess.Popen(watch,
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL, start_new_session=True)
    return server


@contextlib.contextmanager
def moto_s3() -> Iterator[str]:
    """moto's S3 server on 127.0.0.1:<free port>; yields its endpoint URL."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


class EtagHandler(http.server.BaseHTTPRequestHandler):
    """GET files under ``root`` with a strong ETag (SHA-256 of the bytes) and If-None-Match -> 304; every request
    is logged in ``log`` as (path, status)."""

    root: Path
    log: list[tuple[str, int]]

    def do_GET(self) -> None:
        path = (self.root / self.path.lstrip("/").split("?")[0]).resolve()
        if not path.is_file() or self.root.resolve() not in path.parents:
            self._answer(404, b"not found")
            return
        data = path.read_bytes()
        etag = '"' + hashlib.sha256(data).hexdigest()[:32] + '"'
        if self.headers.get("If-None-Match") == etag:
            self._answer(304, b"", etag)
            return
        self._answer(200, data, etag)

    def _answer(self, status: int, body: bytes, etag: str | None = None) -> None:
        self.log.append((self.path, status))
        self.send_response(status)
        if etag:
            self.send_header("ETag", etag)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def http_directory(root: Path) -> Iterator[tuple[str, list[tuple[str, int]]]]:
    """An HTTP server for the files under ``root`` on 127.0.0.1:<free port>; yields its base URL and the request
    log."""
    log: list[tuple[str, int]] = []
    handler = type("Handler", (EtagHandler,), {"root": root, "log": log})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", log
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
