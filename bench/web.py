"""Benchmarks of ``gpuhub serve`` (issue 18), measured at the server (in-process ASGI calls: no network, no browser):

- the first page (``/``) over the installed plugins' bundled recordings, store warm (after one warm-up request);
- a filter change answered by ``/api/search`` at N synthetic offers (bench/generate.py, replayed through
  bench/synthcloud.py's providers), each request a different filter so no answer is reused;
- the page and the chart points (``/api/points``) when 5,000 offers match (the table pages 100 rows; the chart
  gets every point);
- with ``--browser`` (and ``--data``): Debian's Chromium loading a page where 5,000 offers match until the chart
  is drawn, then a column sort (wall time).

- with ``--concurrency`` (and ``--data``; issue 27): real servers on 127.0.0.1 (``gpuhub.web.serve``, one with one
  worker process and one with two, both started here and stopped at the end), each given 1 client and then 8
  concurrent clients (threads, keep-alive connections) sending ``/api/search`` with the filters below in turn for
  ``--seconds`` each; interleaved, ``--runs`` rounds. Reports requests per second, p50/p99 latency (ms) and the
  servers' CPU milliseconds per request (from /proc), with the load average.

Usage::

    python bench/generate.py --sizes 100k            # -> /tmp/gpuhub-bench-data/100k
    python bench/web.py --data /tmp/gpuhub-bench-data/100k --runs 15 [--browser]
    python bench/web.py --data /tmp/gpuhub-bench-data/100k --concurrency --runs 3 --seconds 15 --json web27.json
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from starlette.testclient import TestClient

from gpuhub import Registry
from gpuhub.kit.testing import make_engine
from gpuhub.web.app import create_app

FILTERS = ["gpu=H100&purchase=on_demand", "min_gpus=8&max_price=30", "gpu=A100-80GB&continent=Europe",
           "purchase=spot&min_vram=40", "provider=aws&gpu=L4", "gpu=H100&min_gpus=8&sort=price_per_gpu",
           "country=US&purchase=reserved_1y", "min_total_vram=320&purchase=on_demand", "gpu=A10G,L4&max_price=2",
           "provider=gcp,azure&min_gpus=4", "continent=Asia&gpu=H100", "workload=training&min_gpus=8",
           "max_price=1.5&exclude_fractional=1", "gpu=V100&purchase=spot", "min_vcpus=96&min_memory=512"]


def _time(client: TestClient, url: str, runs: int) -> tuple[float, float, int]:
    """(median ms, max ms, response bytes) of ``runs`` GETs of ``url``."""
    times, size = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, response.text[:300]
        size = len(response.content)
    return statistics.median(times), max(times), size


def bundled(runs: int) -> dict[str, Any]:
    engine = make_engine(Registry())
    with TestClient(create_app(engine)) as client:
        start = time.perf_counter()
        client.get("/api/search?limit=1")
        load = time.perf_counter() - start
        out = {"load_s": load}
        for name, url in (("page_default", "/"), ("page_h100x8", "/?gpu=H100&min_gpus=8&purchase=on_demand"),
                          ("api_h100x8", "/api/search?gpu=H100&min_gpus=8&purchase=on_demand"),
                          ("points_all", "/api/points")):
            out[name] = _time(client, url, runs)
    engine.shutdown()
    return out


def synthetic(data: Path, runs: int) -> dict[str, Any]:
    import synthcloud

    engine = make_engine(Registry(entry_points=[], extra_plugins=[("bench_synth", synthcloud)]))
    with TestClient(create_app(engine, fixtures_dir=data / "gpuhub", fetch="replay")) as client:
        start = time.perf_counter()
        first = client.get("/api/result?limit=1").json()
        out: dict[str, Any] = {"load_s": time.perf_counter() - start, "offers": first["considered"]}
        times = []
        for i in range(runs):
            url = "/api/search?" + FILTERS[i % len(FILTERS)]
            client.get(url)  # the first answer of a filter warms nothing it shares with the next filter
            start = time.perf_counter()
            response = client.get("/api/search?" + FILTERS[(i + 1) % len(FILTERS)] + f"&limit={20 + i}")
            times.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200, response.text[:300]
        out["filter_change_ms"] = (statistics.median(times), max(times))
        out["page_5000"] = _time(client, "/?purchase=on_demand&all_regions=1", max(3, runs // 3))
        out["points_5000"] = _time(client, "/api/points?purchase=on_demand&all_regions=1", max(3, runs // 3))
    engine.shutdown()
    return out


def browser(data: Path) -> float:
    """Seconds for Chromium to load a page where 5,000 synthetic offers match and draw its chart (one point each)."""
    import socket
    import threading

    import synthcloud
    import uvicorn
    from playwright.sync_api import sync_playwright

    engine = make_engine(Registry(entry_points=[], extra_plugins=[("bench_synth", synthcloud)]))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(engine, fixtures_dir=data / "gpuhub", fetch="replay"),
                                           host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}/?purchase=on_demand&all_regions=1"
    try:
        with sync_playwright() as p:
            chromium = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"])
            page = chromium.new_page()
            page.goto(url, timeout=300_000)  # loads the catalog
            page.wait_for_selector("#chart svg circle.point", timeout=300_000)
            start = time.perf_counter()
            page.goto(url)
            page.wait_for_selector("#chart svg circle.point")
            elapsed = time.perf_counter() - start
            points = page.locator("#chart circle.point").count()
            start = time.perf_counter()
            page.locator("#chart circle.point").last.hover()
            page.locator("#offers th[data-column=vcpus] a").click()
            page.wait_for_selector("#chart svg circle.point")
            sort = time.perf_counter() - start
            chromium.close()
        print(f"browser: {points} points drawn, page + chart in {elapsed * 1000:.0f} ms; hover + sort by vCPUs + "
              f"redraw {sort * 1000:.0f} ms")
        return elapsed
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        engine.shutdown()


SERVER = """
import sys
from pathlib import Path
sys.path.insert(0, {here!r})
import synthcloud
from gpuhub import Engine, Registry
from gpuhub.fetch.plugins import reset_registry
from gpuhub.service.searching import reset_default_engine
registry = Registry(entry_points=[], extra_plugins=[("bench_synth", synthcloud)])
reset_registry(registry)
reset_default_engine(Engine(registry))
from gpuhub.web import serve
serve("127.0.0.1", {port}, fixtures_dir=Path({fixtures!r}), fetch="replay", workers={workers})
"""


def _tree_cpu_s(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its children (Linux /proc; clock ticks)."""
    import os

    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry.name) == pid or int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _clients(port: int, clients: int, seconds: float) -> tuple[int, list[float]]:
    """``clients`` threads sending searches for ``seconds``: (requests answered, latencies in ms)."""
    import http.client
    import threading

    latencies: list[float] = []
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def client(n: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        mine, i = [], n
        while time.perf_counter() < stop:
            url = "/api/search?" + FILTERS[i % len(FILTERS)] + f"&limit={20 + i % 7}"
            start = time.perf_counter()
            conn.request("GET", url)
            response = conn.getresponse()
            response.read()
            mine.append((time.perf_counter() - start) * 1000)
            assert response.status == 200, response.status
            i += clients
        conn.close()
        with lock:
            latencies.extend(mine)

    failures: list[BaseException] = []

    def guarded(n: int) -> None:
        try:
            client(n)
        except BaseException as exc:  # said by the caller, not lost in the thread
            failures.append(exc)

    threads = [threading.Thread(target=guarded, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        raise failures[0]
    return len(latencies), latencies


def concurrency(data: Path, runs: int, seconds: float) -> dict[str, Any]:
    """Throughput and latency of 1 and 8 clients against a 1-worker and a 2-worker server (interleaved)."""
    import http.client
    import os
    import socket
    import subprocess
    import tempfile

    from timing import load_average

    out: dict[str, Any] = {"load_before": load_average(), "cpus": os.cpu_count()}
    servers: dict[int, tuple[subprocess.Popen[bytes], int]] = {}
    with tempfile.TemporaryDirectory(prefix="gpuhub-web-bench-") as store:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GPUHUB_")}
        env["GPUHUB_STORE"] = store
        try:
            for workers in (1, 2):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", 0))
                    port = s.getsockname()[1]
                code = SERVER.format(here=str(Path(__file__).resolve().parent), port=port,
                                     fixtures=str(data / "gpuhub"), workers=workers)
                servers[workers] = (subprocess.Popen([sys.executable, "-c", code], env=env), port)
                deadline = time.monotonic() + 600
                while True:  # up, then every worker warm (each loads the catalog once)
                    try:
                        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
                        conn.request("GET", "/api/search?limit=1")
                        assert conn.getresponse().status == 200
                        conn.close()
                        break
                    except (OSError, http.client.HTTPException):
                        assert time.monotonic() < deadline and servers[workers][0].poll() is None
                        time.sleep(0.5)
                _clients(port, 8, 10.0)
            figures: dict[str, list[dict[str, float]]] = {}
            for _ in range(runs):
                for workers, (proc, port) in servers.items():
                    for clients in (1, 8):
                        cpu = _tree_cpu_s(proc.pid)
                        count, latencies = _clients(port, clients, seconds)
                        cpu = _tree_cpu_s(proc.pid) - cpu
                        latencies.sort()
                        figures.setdefault(f"workers{workers}_clients{clients}", []).append({
                            "req_per_s": count / seconds, "p50_ms": latencies[len(latencies) // 2],
                            "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
                            "server_cpu_ms_per_req": cpu * 1000 / count, "load": load_average()})
        finally:
            for proc, _ in servers.values():
                proc.terminate()
                proc.wait(timeout=60)
    for name, rows in figures.items():
        out[name] = {key: statistics.median(r[key] for r in rows) for key in rows[0] if key != "load"}
        out[name]["loads"] = [r["load"] for r in rows]
    for workers in (1, 2):
        out[f"workers{workers}_8_over_1"] = (out[f"workers{workers}_clients8"]["req_per_s"]
                                            / out[f"workers{workers}_clients1"]["req_per_s"])
    out["workers2_8_over_workers1_1"] = out["workers2_clients8"]["req_per_s"] / out["workers1_clients1"]["req_per_s"]
    out["load_after"] = load_average()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, help="a bench/generate.py size directory, e.g. .../100k")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--browser", action="store_true")
    parser.add_argument("--concurrency", action="store_true", help="1 vs 8 clients on real servers (issue 27)")
    parser.add_argument("--seconds", type=float, default=15.0, help="--concurrency: seconds per measurement")
    parser.add_argument("--json", type=Path, help="--concurrency: also write the figures here")
    args = parser.parse_args()
    if args.concurrency:
        from timing import emit

        if not args.data:
            parser.error("--concurrency needs --data")
        emit(concurrency(args.data.resolve(), args.runs, args.seconds), args.json)
        return 0
    for name, value in bundled(args.runs).items():
        print(f"bundled {name}: " + (f"{value:.2f} s" if isinstance(value, float) else
                                     f"median {value[0]:.1f} ms, max {value[1]:.1f} ms, {value[2]} bytes"))
    if args.data:
        for name, value in synthetic(args.data, args.runs).items():
            print(f"synthetic {name}: {value}")
    if args.browser and args.data:
        browser(args.data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
