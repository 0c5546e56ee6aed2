"""The offer store's targets (issue 14): ingest, one-shot processes against gpuhunt, resident memory.

    . .venv/bin/activate
    python bench/generate.py --sizes 100k,1m                              # once
    python bench/store_bench.py --data /tmp/gpuhub-bench-data/100k --runs 5 --json store-100k.json
    python bench/store_bench.py --data /tmp/gpuhub-bench-data/1m --runs 3 --json store-1m.json

1. **ingest**: a fresh process parses the synthetic recording through the benchmark providers (bench/synthcloud.py,
   the engine's normal path) into a new store; wall time and peak RSS of that process.
2. **one-shot**, interleaved run by run with gpuhunt: a fresh process starts, opens the store, runs
   ``gpuhub.search(gpu="H100", purchase="on_demand", max_price=30, limit=20)``, prints the 20 rows and exits; wall
   time measured from outside (process start to exit), resident memory (VmRSS) at the end. gpuhunt's process
   loads its CSV catalog (what ``Catalog.load`` does), runs the same query (``gpu_name="H100", spot=False,
   allowed_flags=set(), max_price=30``), prints its 20 cheapest and exits. Both must find the same number of
   matches and the same cheapest price, or the script fails.
3. **warm**: the same search again inside the gpuhub process (store and catalog already loaded).

Prints one JSON object (and writes ``--json``).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from timing import data_arguments, emit, load_average, timed_run

HERE = Path(__file__).resolve().parent
GPUHUNT_PYTHON = os.environ.get("GPUHUNT_PYTHON", "/tmp/bench-gpuhunt-venv/bin/python")

COMMON = """
import resource, sys, time
def rss():
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) / 1024 for line in fh if line.startswith("VmRSS:"))
def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
"""

INGEST = COMMON + """
sys.path.insert(0, {here!r})
t0 = time.perf_counter()
import gpuhub, synthcloud
from gpuhub.store import open_store
registry = gpuhub.Registry(entry_points=[], extra_plugins=[("bench_synth", synthcloud)])
engine = gpuhub.Engine(registry, timeout_s=3600, environ={{}}, store=open_store({store!r}))
results = engine.collect(sorted(registry.providers), mode="replay", fixtures_dir=__import__("pathlib").Path({fx!r}))
elapsed = time.perf_counter() - t0
import json
print(json.dumps({{"ingest_s": elapsed, "peak_rss_mib": peak(), "offers": sum(len(o) for o, _ in results),
                  "states": sorted({{s.state for _, s in results}})}}))
"""

GPUHUB_ONE_SHOT = COMMON + """
sys.path.insert(0, {here!r})
import gpuhub, synthcloud
from gpuhub.store import open_store
registry = gpuhub.Registry(entry_points=[], extra_plugins=[("bench_synth", synthcloud)])
engine = gpuhub.Engine(registry, timeout_s=3600, environ={{}}, store=open_store({store!r}))
query = dict(gpu="H100", purchase="on_demand", max_price=30, limit=20, fixtures_dir={fx!r}, fetch="replay")
result = gpuhub.search(engine=engine, **query)
for o in result:
    print(o.provider, o.instance_type, o.region.code, o.region.zone, o.price.amount)
one_shot_rss, one_shot_peak = rss(), peak()
t1 = time.perf_counter()
again = gpuhub.search(engine=engine, **query)
warm_ms = (time.perf_counter() - t1) * 1e3
import json
print("RESULT " + json.dumps({{"matched": result.matched, "cheapest": str(result[0].price.amount),
      "fetches": engine.fetch_count, "rss_mib": one_shot_rss, "peak_rss_mib": one_shot_peak, "warm_ms": warm_ms,
      "states": sorted({{s.state for s in result.statuses}})}}))
"""

GPUHUNT_ONE_SHOT = COMMON + """
import logging
logging.disable(logging.CRITICAL)
from pathlib import Path
import gpuhunt
from gpuhunt._internal import storage
from gpuhunt._internal.catalog import ProviderCatalog
catalog = gpuhunt.Catalog(balance_resources=False, auto_reload=False)
for path in sorted((Path({data!r}) / "gpuhunt").glob("*.csv")):
    with path.open(encoding="utf-8", newline="") as fh:
        catalog.catalog[path.stem] = ProviderCatalog(version="bench", items=list(storage.load(fh, provider=path.stem)))
catalog.loaded_at = time.monotonic()
items = catalog.query(gpu_name="H100", spot=False, allowed_flags=set(), max_price=30.0)
items = sorted(items, key=lambda i: i.price)
for i in items[:20]:
    print(i.provider, i.instance_name, i.location, i.price)
import json
print("RESULT " + json.dumps({{"matched": len(items), "cheapest": items[0].price if items else None,
                              "rss_mib": rss(), "peak_rss_mib": peak()}}))
"""


def _run(argv: list[str]) -> tuple[float, dict[str, Any], str]:
    wall, cpu, done = timed_run(argv)
    lines = done.stdout.splitlines()
    result = json.loads(next(line for line in lines if line.startswith(("RESULT ", "{"))).removeprefix("RESULT "))
    result["process_cpu_s"] = cpu
    return wall, result, done.stdout


def main() -> int:
    args, data, fx = data_arguments(5)
    out: dict[str, Any] = {"data": str(data), "load_before": load_average(), "python": sys.version.split()[0]}
    with tempfile.TemporaryDirectory(prefix="gpuhub-store-bench-") as store:
        wall, ingest, _ = _run([sys.executable, "-c", INGEST.format(here=str(HERE), store=store, fx=fx)])
        out["ingest"] = {**ingest, "process_wall_s": wall}  # ingest["process_cpu_s"]: its CPU time
        size = sum(p.stat().st_size for p in Path(store).iterdir() if p.is_file())
        out["store_mib"] = size / 2**20
        gh_walls, hunt_walls, gh_runs, hunt_runs = [], [], [], []
        for _ in range(args.runs):  # interleaved: one gpuhub process, one gpuhunt process
            w, r, _ = _run([sys.executable, "-c", GPUHUB_ONE_SHOT.format(here=str(HERE), store=store, fx=fx)])
            gh_walls.append(w)
            gh_runs.append(r)
            w, r, _ = _run([GPUHUNT_PYTHON, "-c", GPUHUNT_ONE_SHOT.format(data=str(data))])
            hunt_walls.append(w)
            hunt_runs.append(r)
    gh, hunt = gh_runs[-1], hunt_runs[-1]
    if gh["matched"] != hunt["matched"] or abs(float(gh["cheapest"]) - float(hunt["cheapest"])) > 1e-9:
        raise SystemExit(f"the tools disagree: gpuhub {gh['matched']} / {gh['cheapest']}, gpuhunt "
                         f"{hunt['matched']} / {hunt['cheapest']}")
    if any(r["fetches"] for r in gh_runs):
        raise SystemExit(f"a one-shot gpuhub process parsed the recording again: {gh_runs}")
    out["one_shot"] = {
        "gpuhub_median_s": statistics.median(gh_walls), "gpuhunt_median_s": statistics.median(hunt_walls),
        "ratio": statistics.median(hunt_walls) / statistics.median(gh_walls),
        "gpuhub_cpu_median_s": statistics.median(r["process_cpu_s"] for r in gh_runs),
        "gpuhunt_cpu_median_s": statistics.median(r["process_cpu_s"] for r in hunt_runs),
        "cpu_ratio": statistics.median(r["process_cpu_s"] for r in hunt_runs)
        / statistics.median(r["process_cpu_s"] for r in gh_runs),
        "gpuhub_walls_s": gh_walls, "gpuhunt_walls_s": hunt_walls, "matched": gh["matched"],
        "cheapest": gh["cheapest"],
        "gpuhub_rss_mib": statistics.median(r["rss_mib"] for r in gh_runs),
        "gpuhub_peak_rss_mib": max(r["peak_rss_mib"] for r in gh_runs),
        "gpuhunt_rss_mib": statistics.median(r["rss_mib"] for r in hunt_runs),
        "gpuhub_warm_ms": statistics.median(r["warm_ms"] for r in gh_runs)}
    out["load_after"] = load_average()
    emit(out, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
