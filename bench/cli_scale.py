"""One-shot command lines at scale (issue 27): ``gpuhub search`` over a synthetic catalog of 100k or 1M offers
served from the store, from process start to exit, interleaved run by run with gpuhunt's one-shot query over the
same offers (``store_bench.py``'s gpuhunt side: load its CSV catalog, query, print the 20 cheapest).

    . .venv/bin/activate
    python bench/generate.py --sizes 100k,1m
    python bench/cli_scale.py --data /tmp/gpuhub-bench-data/1m --runs 3 [--json out.json]

The store is filled once by ``store_bench.py``'s ingest (the synthetic providers of ``synthcloud.py``, not
counted). Each gpuhub process then registers the same synthetic providers in-process (they are not installed
plugins) and runs the command line's ``main`` on ``search --gpu H100 --purchase on_demand --max-price 30
--fixtures DIR``: the default table (one row per instance type and purchase model) and ``--all-regions`` (every
offer); peak resident memory is read at exit. Fails unless every process was served from the store.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from typing import Any

from store_bench import GPUHUNT_ONE_SHOT, GPUHUNT_PYTHON, HERE, INGEST, _run
from timing import data_arguments, emit, load_average, timed_run

CLI_ONE_SHOT = """
import os, resource, sys
sys.path.insert(0, {here!r})
os.environ["GPUHUB_STORE"] = {store!r}
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")  # as the console script does
import synthcloud
from gpuhub.fetch.plugins import Registry, reset_registry
reset_registry(Registry(entry_points=[], extra_plugins=[("bench_synth", synthcloud)]))
sys.argv = ["gpuhub", "search", "--gpu", "H100", "--purchase", "on_demand", "--max-price", "30", "--fixtures", {fx!r},
            "--fetch", "replay", *{extra!r}]
from gpuhub._entry import main  # the console script's own entry: the search fast path, as a user runs it
try:
    main()
finally:
    from gpuhub.service.searching import default_engine
    sys.stderr.write("FETCHES %s\\n" % default_engine().fetch_count)
    sys.stderr.write("PEAK_RSS_MIB %.1f\\n" % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
"""
VARIANTS = {"default table": [], "--all-regions": ["--all-regions"]}


def main() -> int:
    args, data, fx = data_arguments(3)
    out: dict[str, Any] = {"data": str(data)}
    samples: dict[str, list[tuple[float, float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="gpuhub-cli-scale-") as store:
        _run([sys.executable, "-c", INGEST.format(here=str(HERE), store=store, fx=fx)])
        out["load_before"] = load_average()
        for _ in range(args.runs):
            for name, extra in VARIANTS.items():
                wall, cpu, done = timed_run([sys.executable, "-c", CLI_ONE_SHOT.format(
                    here=str(HERE), store=store, fx=fx, extra=extra)])
                # the summary line (one per search since issue 23) counts them; FETCHES {}: nothing was parsed
                if "4 providers ok" not in done.stderr or "FETCHES {}" not in done.stderr:
                    raise SystemExit(f"not every provider was served from the store:\n{done.stderr[-2000:]}")
                peak = float(done.stderr.rsplit("PEAK_RSS_MIB", 1)[1].split()[0])
                samples.setdefault(f"gpuhub {name}", []).append((wall, cpu, peak))
            wall, result, _ = _run([GPUHUNT_PYTHON, "-c", GPUHUNT_ONE_SHOT.format(data=str(data))])
            samples.setdefault("gpuhunt one-shot", []).append((wall, result["process_cpu_s"],
                                                               result["peak_rss_mib"]))
        out["load_after"] = load_average()
    out["commands"] = {name: {"wall_median_s": statistics.median(s[0] for s in runs),
                              "cpu_median_s": statistics.median(s[1] for s in runs),
                              "peak_rss_mib": max(s[2] for s in runs), "walls_s": [s[0] for s in runs]}
                       for name, runs in samples.items()}
    hunt = out["commands"]["gpuhunt one-shot"]["wall_median_s"]
    for row in out["commands"].values():
        row["gpuhunt_over_gpuhub_wall"] = hunt / row["wall_median_s"]
    emit(out, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
