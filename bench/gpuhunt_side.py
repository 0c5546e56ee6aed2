"""gpuhunt's side of bench/compare.py: run with the gpuhunt benchmark venv's Python, never gpuhub's.

    /tmp/bench-gpuhunt-venv/bin/python bench/gpuhunt_side.py --data /tmp/gpuhub-bench-data/100k --runs 7

Loads the generated offline catalog (``gpuhunt/<provider>.csv``) with gpuhunt's own CSV loader
(``gpuhunt._internal.storage.load``, what ``Catalog.load`` runs on a downloaded catalog.zip) into a
``gpuhunt.Catalog`` (auto reload off, so no network), then times ``Catalog.query`` for the benchmark queries.
Prints one JSON object on stdout. Standard library only besides gpuhunt.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)  # a provider without a catalog logs an error on every query

    import gpuhunt
    from gpuhunt._internal import storage
    from gpuhunt._internal.catalog import ProviderCatalog

    gc.collect()
    base_rss = rss_mib()
    started, cpu0 = time.perf_counter(), time.process_time()
    catalog = gpuhunt.Catalog(balance_resources=False, auto_reload=False)
    counts = {}
    for path in sorted((args.data / "gpuhunt").glob("*.csv")):
        with path.open(encoding="utf-8", newline="") as fh:
            items = list(storage.load(fh, provider=path.stem))
        catalog.catalog[path.stem] = ProviderCatalog(version="bench", items=items)
        counts[path.stem] = len(items)
    catalog.loaded_at = time.monotonic()
    load_s, load_cpu_s = time.perf_counter() - started, time.process_time() - cpu0
    gc.collect()
    loaded_rss = rss_mib()

    queries: dict[str, dict[str, Any]] = {
        "all": {},
        "h100_on_demand_max30": {"gpu_name": "H100", "spot": False, "allowed_flags": set(), "max_price": 30.0},
        "total_vram_320": {"min_total_gpu_memory": 320.0},
    }
    results: dict[str, Any] = {}
    for name, kwargs in queries.items():
        walls, cpus = [], []
        items: list[Any] = []
        for _ in range(args.runs):
            t0, c0 = time.perf_counter(), time.process_time()
            items = catalog.query(**kwargs)
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
        results[name] = {
            "median_ms": statistics.median(walls) * 1e3, "min_ms": min(walls) * 1e3,
            "cpu_median_ms": statistics.median(cpus) * 1e3, "runs": len(walls), "matched": len(items),
            "min_price": min((i.price for i in items), default=None),
        }
    out = {"tool": "gpuhunt", "version": gpuhunt.__version__ if hasattr(gpuhunt, "__version__") else _version(),
           "python": sys.version.split()[0], "offers": sum(counts.values()), "per_provider": counts,
           "load_s": load_s, "load_cpu_s": load_cpu_s, "base_rss_mib": base_rss, "loaded_rss_mib": loaded_rss,
           "resident_mib": loaded_rss - base_rss,
           "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "queries": results}
    print(json.dumps(out))
    return 0


def _version() -> str:
    from importlib import metadata

    return metadata.version("gpuhunt")


if __name__ == "__main__":
    raise SystemExit(main())
