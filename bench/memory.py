"""Where the memory of a loaded catalog goes: tracemalloc by allocation site, bytes per offer, numpy column bytes.

    python bench/memory.py --data /tmp/gpuhub-bench-data/100k --core /tmp/gpuhub-core-a73d30c

Loads the synthetic catalog through the engine (bench/synthcloud.py, no disk cache), builds the Catalog, drops the
provider results' temporaries, and reports what stays allocated (Python heap, as tracemalloc sees it; numpy
buffers are included), grouped by source line, plus the size of the Catalog's numpy columns.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tracemalloc
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=Path("/tmp/gpuhub-bench-data/100k"))
    parser.add_argument("--core")
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from core import use_core

    use_core(args.core)
    import numpy as np
    import synthcloud

    import gpuhub
    from gpuhub.kit.testing import make_engine

    registry = gpuhub.Registry(entry_points=[], extra_plugins=[("bench_synth", synthcloud)])
    gc.collect()
    tracemalloc.start(1)
    base = tracemalloc.take_snapshot()
    engine = make_engine(registry, timeout_s=3600)
    collected = engine.collect(sorted(registry.providers), mode="replay", fixtures_dir=args.data / "gpuhub")
    offers_only = tracemalloc.get_traced_memory()[0]
    catalog = engine.catalog([offers for offers, _ in collected])
    n = len(catalog)
    del collected
    gc.collect()
    current, peak = tracemalloc.get_traced_memory()
    snap = tracemalloc.take_snapshot()
    tracemalloc.stop()
    stats = snap.compare_to(base, "lineno")
    columns = 0
    for value in vars(catalog).values():
        arrays: list[Any] = []
        if isinstance(value, np.ndarray):
            arrays = [value]
        elif isinstance(value, dict):
            arrays = [v for v in value.values() if isinstance(v, np.ndarray)]
        elif hasattr(value, "codes"):
            arrays = [value.codes]
        columns += sum(a.nbytes for a in arrays)
    print(f"{n} offers (core {Path(gpuhub.__file__).parent.parent}): held after load + Catalog "
          f"{current / 2**20:.0f} MiB = {current / n:.0f} B/offer (offers alone, before the Catalog: "
          f"{offers_only / 2**20:.0f} MiB); peak while loading {peak / 2**20:.0f} MiB; Catalog numpy columns "
          f"{columns / 2**20:.1f} MiB = {columns / n:.0f} B/offer")
    print(f"extrapolated to 1,000,000 offers: {current / n * 1e6 / 2**30:.2f} GiB held")
    print("largest allocation sites still held (size, count, site):")
    for stat in stats[:args.top]:
        frame = stat.traceback[0]
        site = f"{Path(frame.filename).name}:{frame.lineno}"
        print(f"  {stat.size_diff / 2**20:8.1f} MiB {stat.count_diff:9d}  {site:28} "
              f"{_line(frame.filename, frame.lineno)[:80]}")
    return 0


def _line(filename: str, lineno: int) -> str:
    try:
        return Path(filename).read_text(encoding="utf-8").splitlines()[lineno - 1].strip()
    except (OSError, IndexError):
        return ""


if __name__ == "__main__":
    raise SystemExit(main())
