"""gpuhub vs gpuhunt on the same synthetic offers, in one run: query medians, ratios, load time, memory.

    . .venv/bin/activate
    python bench/generate.py --sizes 10k,100k,1m                 # once
    python bench/compare.py --sizes 10k,100k --runs 7            # then the 1M case once:
    python bench/compare.py --sizes 1m --runs 5

Each side runs in its own fresh subprocess, one after the other (never at the same time, so they do not compete
for the 2 cores): gpuhub's with this interpreter (``python bench/compare.py --worker ...``), gpuhunt's with the
benchmark venv's (``$GPUHUNT_PYTHON``, default /tmp/bench-gpuhunt-venv/bin/python; see bench/README.md) running
bench/gpuhunt_side.py. They print JSON; this script checks that both found the same number of offers and the same
cheapest price for each query, and prints a table (and writes ``--json`` if given).

The queries (same meaning on both sides):

- ``all``: every offer, sorted by price (gpuhunt: ``query()``; gpuhub: no filter, ``sort=price``).
- ``h100_on_demand_max30``: H100, on-demand, at most 30 USD per instance-hour (gpuhunt: ``gpu_name="H100",
  spot=False, allowed_flags=set(), max_price=30``; the flags exclude reserved and savings-plan rows).
- ``total_vram_320``: at least 320 GiB of VRAM per instance (gpuhunt: ``min_total_gpu_memory=320``).

gpuhub is timed three ways per query: ``catalog`` (``Catalog.select`` + ``Catalog.rank`` over the whole match,
like gpuhunt's full list), ``catalog_top20`` (rank with ``limit=20``, the CLI default) and ``search`` (the public
``gpuhub.search()`` on a warm engine, query validation to ``SearchResult``, no limit). ``cpu_*`` figures are process
CPU time, less sensitive than wall time to other processes on a shared machine.
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GPUHUNT_PYTHON = os.environ.get("GPUHUNT_PYTHON", "/tmp/bench-gpuhunt-venv/bin/python")

SEARCH_ALL_FEW_RUNS = 5_000  # search() without limit on more matches than this: 1 run
SEARCH_ALL_MAX = 200_000  # ... and not at all above this (it would take minutes)
QUERIES: dict[str, dict[str, Any]] = {
    "all": {},
    "h100_on_demand_max30": {"gpu": "H100", "purchase": "on_demand", "max_price": 30},
    "total_vram_320": {"min_total_vram": 320},
}


def rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def _time(fn: Callable[[], Any], runs: int) -> tuple[dict[str, float], Any]:
    walls, cpus = [], []
    result = None
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return {"median_ms": statistics.median(walls) * 1e3, "min_ms": min(walls) * 1e3,
            "cpu_median_ms": statistics.median(cpus) * 1e3, "runs": runs,
            "all_ms": [round(w * 1e3, 3) for w in walls]}, result


def _rank(catalog: Any, rows: Any, ranker: Any, q: Any, limit: int | None) -> Any:
    """Ranked rows with either core API: ``rank(rows, ranker, q, limit) -> (rows, scores)`` (from a73d30c) or
    ``rank(rows, ranker, limit) -> list`` (before)."""
    if "q" in inspect.signature(catalog.rank).parameters:
        return catalog.rank(rows, ranker, q, limit)[0]
    return catalog.rank(rows, ranker, limit)


def _fetch_kwargs() -> dict[str, str]:
    import gpuhub

    return {"fetch": "replay"} if "fetch" in inspect.signature(gpuhub.search).parameters else {"mode": "replay"}


def gpuhub_worker(data: Path, runs: int, disk_cache: bool, trace: bool, core: str | None) -> dict[str, Any]:
    """gpuhub's side (runs in a fresh process): load through the engine from the recording, then time queries."""
    sys.path.insert(0, str(HERE))
    from core import use_core

    use_core(core)
    if trace:
        import tracemalloc

        tracemalloc.start()
    import synthcloud

    import gpuhub
    from gpuhub.answer.query import build_query
    from gpuhub.kit.testing import make_engine

    fixtures = data / "gpuhub"
    registry = gpuhub.Registry(entry_points=[], extra_plugins=[("bench_synth", synthcloud)])
    names = sorted(registry.providers)
    gc.collect()
    base_rss = rss_mib()
    traced0 = tracemalloc.get_traced_memory()[0] if trace else 0
    engine = make_engine(registry, timeout_s=3600)
    t0, c0 = time.perf_counter(), time.process_time()
    collected = engine.collect(names, mode="replay", fixtures_dir=fixtures)
    collect_s, collect_cpu = time.perf_counter() - t0, time.process_time() - c0
    bad = [s.line() for _, s in collected if s.state != "ok"]
    if bad:
        raise SystemExit(f"providers failed: {bad}")
    t0, c0 = time.perf_counter(), time.process_time()
    catalog = engine.catalog([offers for offers, _ in collected])
    catalog_s, catalog_cpu = time.perf_counter() - t0, time.process_time() - c0
    del collected
    gc.collect()
    loaded_rss = rss_mib()
    traced = (tracemalloc.get_traced_memory()[0] - traced0) if trace else None
    if trace:
        tracemalloc.stop()

    out: dict[str, Any] = {
        "tool": "gpuhub", "version": gpuhub.__version__, "core": str(Path(gpuhub.__file__).parent.parent),
        "python": sys.version.split()[0], "offers": len(catalog),
        "collect_s": collect_s, "collect_cpu_s": collect_cpu, "catalog_build_s": catalog_s,
        "catalog_build_cpu_s": catalog_cpu, "load_s": collect_s + catalog_s, "load_cpu_s": collect_cpu + catalog_cpu,
        "base_rss_mib": base_rss, "loaded_rss_mib": loaded_rss, "resident_mib": loaded_rss - base_rss,
        "traced_mib": traced / 2**20 if traced is not None else None, "queries": {},
    }
    fetch = _fetch_kwargs()
    for name, kwargs in QUERIES.items():
        q = build_query(gpus=registry.gpus, providers=names, rankers=list(registry.rankers), **kwargs)
        ranker = registry.rankers[q.sort]

        def by_catalog(q: Any = q, ranker: Any = ranker, limit: int | None = None) -> tuple[int, Any]:
            rows, _ = catalog.select(q)
            return len(rows), _rank(catalog, rows, ranker, q, limit)

        def by_search(kwargs: dict[str, Any] = kwargs) -> Any:
            return gpuhub.search(engine=engine, fixtures_dir=fixtures, **fetch, **kwargs)

        stats, (matched, ranked) = _time(by_catalog, runs)
        top, _ = _time(lambda q=q, ranker=ranker: by_catalog(q, ranker, 20), runs)
        search20, result = _time(lambda kwargs=kwargs: by_search({**kwargs, "limit": 20}), runs)
        # search() without a limit builds every matched offer's details: slow on big matches, so fewer runs.
        many = matched > SEARCH_ALL_FEW_RUNS
        whole: dict[str, Any] | None = None
        if matched <= SEARCH_ALL_MAX:
            whole, _ = _time(by_search, 1 if many else runs)
        # Select and rank separately, to say which one costs.
        sel, (rows, _) = _time(lambda q=q: catalog.select(q), runs)
        rnk, _ = _time(lambda rows=rows, ranker=ranker, q=q: _rank(catalog, rows, ranker, q, None), runs)
        out["queries"][name] = {
            "catalog": stats, "catalog_top20": top, "search_top20": search20, "search": whole, "select": sel,
            "rank": rnk, "matched": matched, "search_matched": result.matched,
            "min_price": float(catalog.offers[int(ranked[0])].price.amount) if len(ranked) else None,
        }
    if disk_cache:
        out["disk_cache"] = _disk_cache_loads(fixtures, registry)
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    engine.shutdown()
    return out


def _disk_cache_loads(fixtures: Path, registry: Any) -> dict[str, float]:
    """Fresh engines with an on-disk cache: the first parses and saves, the second loads the parsed offers."""
    from gpuhub.fetch.diskcache import DiskCache
    from gpuhub.kit.testing import make_engine

    names = sorted(registry.providers)
    with tempfile.TemporaryDirectory(prefix="gpuhub-bench-cache-") as tmp:
        timings = {}
        for label in ("parse_and_save_s", "load_from_disk_s"):
            engine = make_engine(registry, timeout_s=3600, disk=DiskCache(Path(tmp)))
            t0 = time.perf_counter()
            engine.collect(names, mode="replay", fixtures_dir=fixtures)
            timings[label] = time.perf_counter() - t0
            engine.shutdown()
        timings["cache_mib"] = sum(p.stat().st_size for p in Path(tmp).iterdir()) / 2**20
    return timings


def run_side(cmd: list[str]) -> dict[str, Any]:
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def compare(data: Path, runs: int, disk_cache: bool, core: str | None, trace: bool = False) -> dict[str, Any]:
    hub = run_side([sys.executable, str(Path(__file__).resolve()), "--worker", "gpuhub", "--data", str(data),
                    "--runs", str(runs)] + (["--disk-cache"] if disk_cache else []) + (["--trace"] if trace else [])
                   + (["--core", core] if core else []))
    hunt = run_side([GPUHUNT_PYTHON, str(HERE / "gpuhunt_side.py"), "--data", str(data), "--runs", str(runs)])
    rows = []
    for name in QUERIES:
        h, g = hub["queries"][name], hunt["queries"][name]
        if h["matched"] != g["matched"] or h["search_matched"] != g["matched"]:
            raise SystemExit(f"{name}: gpuhub matched {h['matched']}, gpuhunt {g['matched']}: not the same data")
        if g["min_price"] is not None and abs(h["min_price"] - g["min_price"]) > 1e-9:
            raise SystemExit(f"{name}: cheapest {h['min_price']} vs {g['min_price']}")
        rows.append({
            "query": name, "matched": h["matched"], "gpuhunt_ms": g["median_ms"], "gpuhunt_cpu_ms": g["cpu_median_ms"],
            "catalog_ms": h["catalog"]["median_ms"], "catalog_cpu_ms": h["catalog"]["cpu_median_ms"],
            "select_ms": h["select"]["median_ms"], "rank_ms": h["rank"]["median_ms"],
            "top20_ms": h["catalog_top20"]["median_ms"], "search20_ms": h["search_top20"]["median_ms"],
            "search20_cpu_ms": h["search_top20"]["cpu_median_ms"],
            "search_ms": h["search"]["median_ms"] if h["search"] else None,
            "ratio_catalog": g["median_ms"] / h["catalog"]["median_ms"],
            "ratio_top20": g["median_ms"] / h["catalog_top20"]["median_ms"],
            "ratio_search20": g["median_ms"] / h["search_top20"]["median_ms"],
            "ratio_search": g["median_ms"] / h["search"]["median_ms"] if h["search"] else None,
        })
    return {"data": str(data), "offers": hub["offers"], "runs": runs, "gpuhub": hub, "gpuhunt": hunt, "rows": rows,
            "loadavg": os.getloadavg()}


def print_table(result: dict[str, Any]) -> None:
    hub, hunt = result["gpuhub"], result["gpuhunt"]
    print(f"\n== {result['offers']} offers ({result['data']}), core {hub['core']}, medians of {result['runs']} runs, "
          f"load average {' '.join(f'{x:.2f}' for x in result['loadavg'])}")
    print("ms, wall medians (cpu: process CPU time); catalog = select+rank of every match, top20 = rank limit 20, "
          "search20/search = gpuhub.search(limit=20 / no limit) on a warm engine; x = gpuhunt time / gpuhub time")
    print(f"{'query':21} {'matched':>7} {'gpuhunt':>8} {'catalog':>8} {'select':>7} {'rank':>8} {'top20':>7} "
          f"{'search20':>8} {'(cpu)':>6} {'search':>9} {'x catalog':>9} {'x top20':>7} {'x search20':>10} "
          f"{'x search':>8}")
    for r in result["rows"]:
        whole = f"{r['search_ms']:9.1f}" if r["search_ms"] is not None else f"{'skipped':>9}"
        ratio = f"{r['ratio_search']:8.2f}" if r["ratio_search"] is not None else f"{'-':>8}"
        print(f"{r['query']:21} {r['matched']:7d} {r['gpuhunt_ms']:8.1f} {r['catalog_ms']:8.2f} {r['select_ms']:7.2f} "
              f"{r['rank_ms']:8.2f} {r['top20_ms']:7.2f} {r['search20_ms']:8.2f} {r['search20_cpu_ms']:6.2f} {whole} "
              f"{r['ratio_catalog']:9.1f} {r['ratio_top20']:7.1f} {r['ratio_search20']:10.1f} {ratio}")
    print(f"load: gpuhub {hub['load_s']:.2f} s (engine collect/parse {hub['collect_s']:.2f} s + Catalog build "
          f"{hub['catalog_build_s']:.2f} s; CPU {hub['load_cpu_s']:.2f} s), gpuhunt {hunt['load_s']:.2f} s "
          f"(CSV parse; CPU {hunt['load_cpu_s']:.2f} s)")
    if "disk_cache" in hub:
        d = hub["disk_cache"]
        print(f"gpuhub disk cache: parse+save {d['parse_and_save_s']:.2f} s, load from disk "
              f"{d['load_from_disk_s']:.2f} s, {d['cache_mib']:.1f} MiB on disk")
    traced = f", tracemalloc {hub['traced_mib']:.0f} MiB" if hub.get("traced_mib") is not None else ""
    print(f"memory: gpuhub resident {hub['resident_mib']:.0f} MiB (peak RSS {hub['peak_rss_mib']:.0f} MiB{traced}), "
          f"gpuhunt resident {hunt['resident_mib']:.0f} MiB (peak RSS {hunt['peak_rss_mib']:.0f} MiB)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="gpuhub vs gpuhunt on the same synthetic offers")
    parser.add_argument("--worker", choices=["gpuhub"], help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--trace", action="store_true", help="also measure Python heap with tracemalloc (slow)")
    parser.add_argument("--disk-cache", action="store_true", help="also time a load through the on-disk cache")
    parser.add_argument("--root", type=Path, default=Path("/tmp/gpuhub-bench-data"))
    parser.add_argument("--sizes", default="10k,100k")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", type=Path, help="write all results here")
    parser.add_argument("--core", help="a core snapshot directory (python bench/core.py snapshot); default: the "
                                       "installed gpuhub")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(gpuhub_worker(args.data, args.runs, args.disk_cache, args.trace, args.core)))
        return 0
    results = []
    for size in args.sizes.split(","):
        result = compare(args.root / size.strip().lower(), args.runs, args.disk_cache, args.core, args.trace)
        print_table(result)
        results.append(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
