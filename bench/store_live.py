"""Live mode through a loopback server (issue 14): a second CLI search inside the freshness window sends no
request, and N CLI processes started together send exactly one request sequence per provider.

    . .venv/bin/activate
    python bench/store_live.py --processes 8 [--delay 0.2]

Reuses the fake cloud API of tests/test_store_processes.py (127.0.0.1, ephemeral port, stopped at the end): two
pages from ``fixtures/fakecloud``, each answered after ``--delay`` seconds. Every process is the real CLI with only
the fake provider installed and a shared temporary ``GPUHUB_STORE``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_store_processes import FakeApi, _search, _start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--delay", type=float, default=0.2)
    args = parser.parse_args()
    api = FakeApi()
    api.delay_s = args.delay
    out: dict[str, object] = {}
    try:
        with tempfile.TemporaryDirectory() as store:
            started = time.perf_counter()
            code, first, _ = _search(Path(store), api)
            out["first_search"] = {"requests": list(api.requests), "wall_s": time.perf_counter() - started,
                                   "offers": len(first), "exit": code}
            sent = len(api.requests)
            started = time.perf_counter()
            code, second, _ = _search(Path(store), api)
            out["second_search"] = {"requests": len(api.requests) - sent, "wall_s": time.perf_counter() - started,
                                    "same_offers": second == first, "exit": code}
        with tempfile.TemporaryDirectory() as store:
            api.requests.clear()
            started = time.perf_counter()
            procs = [_start(Path(store), api) for _ in range(args.processes)]
            results = [p.communicate(timeout=300) for p in procs]
            out["together"] = {"processes": args.processes, "requests": sorted(api.requests),
                               "wall_s": time.perf_counter() - started,
                               "all_ok": all(p.returncode == 0 and "fakecloud: ok, 7 offers" in err
                                             for p, (_, err) in zip(procs, results, strict=True)),
                               "same_offers": len({o for o, _ in results}) == 1}
    finally:
        api.close()
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
