"""Live fan-out: a full live refresh over every installed provider against a local server with a delay per request.

    . .venv/bin/activate
    python bench/live_fanout.py --delay 0.1 --runs 3

The server listens on 127.0.0.1 only (ephemeral port, one thread per request, at most ``--max-requests`` requests
and ``--max-seconds`` seconds, then it stops by itself). It serves the installed providers' bundled recordings:
each provider's API root is pointed at ``http://127.0.0.1:PORT/<recorded host>`` through its
``GPUHUB_<NAME>_BASE_URL`` setting (and AWS's ``GPUHUB_AWS_EC2_ENDPOINT`` template), and the server answers each
request with the recorded response (matched by gpuhub's own ``ReplayTransport`` on the original URL: method, path,
query in any order, body) after sleeping ``--delay`` seconds. Placeholder credentials are set so every provider
takes its live path; they only reach the local server (AWS signs its EC2 requests locally with botocore).

It reports, as medians over ``--runs``: each provider refreshed alone (a fresh engine, ``mode="live"``), and all
providers refreshed together by one engine (``Engine.collect``, the same fan-out ``gpuhub search`` uses); the ratio
of the full refresh to the slowest single provider (target <= 1.2); and the requests per provider (a provider
walking N pages one after another needs at least N x delay).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx

if __name__ == "__main__":  # --core DIR: import that core snapshot (bench/core.py) instead of the installed one
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from core import use_core

    use_core(sys.argv[sys.argv.index("--core") + 1] if "--core" in sys.argv else None)

from gpuhub.errors import ReplayMissError
from gpuhub.fetch.plugins import Registry
from gpuhub.fetch.recording import load_manifest
from gpuhub.fetch.retry import RetryPolicy
from gpuhub.fetch.transports import ReplayTransport
from gpuhub.kit.testing import make_engine

PLACEHOLDER_CREDENTIALS = {  # never real: they only reach 127.0.0.1
    "AWS_ACCESS_KEY_ID": "AKIABENCHPLACEHOLDER", "AWS_SECRET_ACCESS_KEY": "bench-placeholder-secret",
    "GOOGLE_API_KEY": "bench-placeholder-key", "LAMBDA_API_KEY": "bench-placeholder-key",
}


class RecordedServer:
    """A local HTTP server answering from recordings, by original host (the first path segment)."""

    def __init__(self, transports: dict[str, ReplayTransport], delay: float, max_requests: int,
                 max_seconds: float) -> None:
        self.transports = transports  # recorded host -> the transport of the provider that recorded it
        self.delay = delay
        self.max_requests = max_requests
        self.requests: Counter[str] = Counter()
        self.misses: list[str] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                self._answer()

            def do_POST(self) -> None:
                self._answer()

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                status, headers, content = server.respond(self.command, self.path, body)
                time.sleep(server.delay)
                self.send_response(status)
                for key, value in headers.items():
                    if key.lower() not in ("content-length", "transfer-encoding", "content-encoding", "connection"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True, name="bench-recorded-server")
        self._stopper = threading.Timer(max_seconds, self.stop)
        self._stopper.daemon = True

    def __enter__(self) -> RecordedServer:
        self._thread.start()
        self._stopper.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stopper.cancel()
        self.httpd.shutdown()
        self.httpd.server_close()

    def respond(self, method: str, path: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
        host, _, rest = path.lstrip("/").partition("/")
        with self._lock:
            self.requests[host] += 1
            if sum(self.requests.values()) > self.max_requests:
                return 503, {}, b"request cap of the benchmark server reached"
        transport = self.transports.get(host)
        if transport is None:
            self.misses.append(f"{method} {path}")
            return 404, {}, b"unknown host"
        request = httpx.Request(method, f"https://{host}/{rest}", content=body)
        try:
            response = transport.handle_request(request)
        except ReplayMissError:
            with self._lock:
                self.misses.append(f"{method} {host}/{rest[:120]}")
            return 404, {}, b"not recorded"
        return response.status_code, dict(response.headers), response.content


def build_transports(registry: Registry) -> tuple[dict[str, tuple[str, Path]], dict[str, str]]:
    """Recorded host -> (provider, recording dir); and providers that cannot be pointed at the server, with why."""
    hosts: dict[str, tuple[str, Path]] = {}
    unusable: dict[str, str] = {}
    for name, provider in sorted(registry.providers.items()):
        if provider.static:
            unusable[name] = "static price table: fetch never makes a request, there is nothing to point elsewhere"
            continue
        directory = provider.fixtures_dir()
        if directory is None or not (directory / "manifest.json").is_file():
            unusable[name] = "no bundled recording to serve"
            continue
        for exchange in load_manifest(directory).exchanges:
            hosts.setdefault(urlsplit(exchange["request"]["url"]).netloc, (name, directory))
    return hosts, unusable


def settings(port: int, hosts: dict[str, tuple[str, Path]], registry: Registry) -> dict[str, str]:
    """GPUHUB_<NAME>_BASE_URL for each provider (its default base URL's host, served under that path), and the
    region lists that make a live walk ask for what was recorded (Azure: the recorded regions)."""
    root = f"http://127.0.0.1:{port}"
    env = dict(PLACEHOLDER_CREDENTIALS)
    for name, provider in registry.providers.items():
        if provider.base_url:
            env[f"GPUHUB_{name.upper()}_BASE_URL"] = f"{root}/{urlsplit(provider.base_url).netloc}"
    if "aws" in registry.providers:
        env["GPUHUB_AWS_EC2_ENDPOINT"] = f"{root}/ec2.{{region}}.amazonaws.com/"
    if "azure" in registry.providers:
        # A live Azure walk covers every known region; the recording holds a subset: walk the recorded ones.
        regions: dict[str, None] = {}
        for name, directory in set(hosts.values()):
            if name == "azure":
                for exchange in load_manifest(directory).exchanges:
                    query = dict(parse_qsl(urlsplit(exchange["request"]["url"]).query))
                    found = re.search(r"armRegionName eq '([a-z0-9]+)'", query.get("$filter", ""))
                    if found:
                        regions[found.group(1)] = None
        if regions:
            env["GPUHUB_AZURE_REGIONS"] = ",".join(regions)
    return env


def refresh(registry: Registry, names: list[str], environ: dict[str, str]) -> tuple[float, list[str]]:
    engine = make_engine(registry, environ=environ, retry=RetryPolicy(attempts=1, initial_wait_s=0, max_wait_s=0,
                                                                       total_s=60, jitter_s=0), timeout_s=300)
    t0 = time.perf_counter()
    collected = engine.collect(names, mode="live", refresh=True)
    wall = time.perf_counter() - t0
    engine.shutdown()
    return wall, [s.line() for _, s in collected]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="live fan-out against a local delayed server")
    parser.add_argument("--delay", type=float, default=0.1, help="seconds slept before each answer")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-requests", type=int, default=5000)
    parser.add_argument("--max-seconds", type=float, default=300)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--core", help="core snapshot directory (bench/core.py snapshot); default: installed gpuhub")
    args = parser.parse_args(argv)
    registry = Registry()
    hosts, unusable = build_transports(registry)
    transports: dict[str, ReplayTransport] = {}
    for host, (_, directory) in hosts.items():
        # One transport per provider recording, shared by its hosts; rebuilt per run so ordered replays restart.
        transports[host] = ReplayTransport(load_manifest(directory))
    names = sorted(n for n in registry.providers if n not in unusable)
    import gpuhub

    result: dict[str, Any] = {"core": str(Path(gpuhub.__file__).parent.parent),
                              "delay_s": args.delay, "runs": args.runs, "unusable": unusable, "providers": names,
                              "loadavg_before": os.getloadavg(), "single": {}, "requests": {}}

    def fresh(server: RecordedServer) -> None:
        by_dir: dict[Path, ReplayTransport] = {}
        for host, (_, directory) in hosts.items():
            by_dir.setdefault(directory, ReplayTransport(load_manifest(directory)))
            server.transports[host] = by_dir[directory]

    with RecordedServer(transports, args.delay, args.max_requests, args.max_seconds) as server:
        environ = settings(server.port, hosts, registry)
        for name in names:
            walls = []
            for _ in range(args.runs):
                fresh(server)
                before = Counter(server.requests)
                wall, lines = refresh(registry, [name], environ)
                walls.append(wall)
                result["requests"][name] = sum((server.requests - before).values())
            result["single"][name] = {"median_s": statistics.median(walls), "all_s": walls, "status": lines}
        walls, statuses = [], []
        for _ in range(args.runs):
            fresh(server)
            wall, statuses = refresh(registry, names, environ)
            walls.append(wall)
        result["all"] = {"median_s": statistics.median(walls), "all_s": walls, "status": statuses}
        result["misses"] = server.misses[:20]
    slowest = max(names, key=lambda n: result["single"][n]["median_s"])
    result["slowest"] = slowest
    result["ratio"] = result["all"]["median_s"] / result["single"][slowest]["median_s"]
    result["serial_sum_s"] = sum(result["single"][n]["median_s"] for n in names)
    result["loadavg_after"] = os.getloadavg()

    print(f"core {result['core']}; delay {args.delay * 1e3:.0f} ms per request, medians of {args.runs} runs, "
          "load average "
          f"{' '.join(f'{x:.2f}' for x in result['loadavg_before'])}")
    for name in names:
        single = result["single"][name]
        print(f"  {name:10} alone {single['median_s']:6.2f} s, {result['requests'][name]:3d} requests "
              f"(>= {result['requests'][name] * args.delay:.1f} s if one at a time)  {single['status'][0]}")
    print(f"  all {len(names)} together {result['all']['median_s']:6.2f} s; slowest alone: {slowest} "
          f"{result['single'][slowest]['median_s']:.2f} s; ratio {result['ratio']:.2f} (target <= 1.2); "
          f"sum of singles {result['serial_sum_s']:.2f} s")
    for line in result["all"]["status"]:
        print(f"    {line}")
    for name, why in unusable.items():
        print(f"  not pointed at the server: {name}: {why}")
    if result["misses"]:
        print("  requests without a recording:", *result["misses"], sep="\n    ")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0 if not result["misses"] else 1


if __name__ == "__main__":
    sys.exit(main())
