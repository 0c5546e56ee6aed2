"""Benchmarks of ``gpuhub serve`` (issue 18), measured at the server (in-process ASGI calls: no network, no browser):

- the first page (``/``) over the installed plugins' bundled recordings, store warm (after one warm-up request);
- a filter change answered by ``/api/search`` at N synthetic offers (bench/generate.py, replayed through
  bench/synthcloud.py's providers), each request a different filter so no answer is reused;
- the page and the chart points (``/api/points``) when 5,000 offers match (the table pages 100 rows; the chart
  gets every point);
- with ``--browser`` (and ``--data``): Debian's Chromium loading a page where 5,000 offers match until the chart
  is drawn, then a column sort (wall time).

Usage::

    python bench/generate.py --sizes 100k            # -> /tmp/gpuhub-bench-data/100k
    python bench/web.py --data /tmp/gpuhub-bench-data/100k --runs 15 [--browser]
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, help="a bench/generate.py size directory, e.g. .../100k")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--browser", action="store_true")
    args = parser.parse_args()
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
