"""Cold start: ``gpuhub search --gpu H100`` end to end from a fresh process on the bundled recordings.

    . .venv/bin/activate
    python bench/cold_start.py --runs 7

Measures, each as the median of ``--runs`` fresh processes (wall time around the subprocess, and the child's CPU
time from ``getrusage(RUSAGE_CHILDREN)``, which other load on a shared machine disturbs less):

- ``import gpuhub`` and ``import gpuhub.cli`` (``python -c``), and the interpreter alone (``python -c pass``);
- ``gpuhub search --gpu H100`` with the on-disk cache cold (a new empty ``GPUHUB_CACHE_DIR`` per run: every bundled
  recording is parsed) and warm (a ``GPUHUB_CACHE_DIR`` filled by one earlier run: parsed offers are read back);
- a phase breakdown of one warm run in a fresh process (imports, plugin discovery, provider collection from the
  disk cache, Catalog build, select+rank, rendering);
- ``python -X importtime -c "import gpuhub.cli"``: the modules with the largest cumulative and self import time.

Only installed plugins are used (the ones ``gpuhub plugins`` lists); nothing touches the network (no credentials
are set, so every provider replays its bundled recording). Prints a report; ``--json`` writes the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PY = sys.executable
GPUHUB = str(Path(PY).with_name("gpuhub"))
CORE_PY = str(Path(__file__).resolve().with_name("core.py"))
CREDENTIAL_PREFIXES = ("AWS_", "AZURE_", "GOOGLE_", "GCP_", "LAMBDA_", "COREWEAVE_", "GPUHUB_")


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without credentials or gpuhub settings (so every provider replays), plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(CREDENTIAL_PREFIXES)}
    env.update(extra)
    return env


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return wall, cpu, proc


def series(label: str, runs: int, make: Any) -> dict[str, Any]:
    walls, cpus = [], []
    last = None
    for _ in range(runs):
        cmd, env = make()
        wall, cpu, last = timed(cmd, env)
        walls.append(wall)
        cpus.append(cpu)
    out = {"label": label, "median_s": statistics.median(walls), "min_s": min(walls), "max_s": max(walls),
           "cpu_median_s": statistics.median(cpus), "runs": runs}
    if last is not None and last.stderr:
        out["stderr_tail"] = last.stderr.strip().splitlines()[-8:]
    return out


PHASES = r"""
import json, time, sys
t = [time.perf_counter()]; names = []
sys.path.insert(0, BENCH); from core import use_core; use_core(CORE)
def mark(name):
    t.append(time.perf_counter()); names.append(name)
import gpuhub; mark("import gpuhub")
import gpuhub.cli; mark("import gpuhub.cli (typer, rich)")
from gpuhub.fetch.plugins import get_registry
reg = get_registry(); mark("plugin discovery and registration")
from gpuhub.service.searching import default_engine, run_query
from gpuhub.answer.query import build_query
eng = default_engine(); mark("engine")
q = build_query(gpus=reg.gpus, providers=sorted(reg.providers), rankers=list(reg.rankers), gpu="H100", limit=20)
collected = eng.collect(sorted(reg.providers)); mark("collect providers (disk cache)")
cat = eng.catalog([o for o, _ in collected]); mark("Catalog build")
res = run_query(q, eng); mark("run_query (select, rank, details; catalog cached)")
import io
from gpuhub.cli.commands import OutputFormat, _print_result  # internal: skipped when the CLI changes
real, sys.stdout = sys.stdout, io.StringIO()
_print_result(res, OutputFormat.table)
sys.stdout = real; mark("render table (rich)")
print(json.dumps({"phases": [[n, b - a] for n, a, b in zip(names, t, t[1:])], "offers": len(cat),
                  "statuses": [s.line() for _, s in collected]}))
"""


def phases(env: dict[str, str], core: str | None) -> dict[str, Any]:
    """One warm run split into phases (fresh process). Rendering is left out if the CLI's internal
    ``_print_result`` changed."""
    code = f"BENCH = {str(Path(__file__).resolve().parent)!r}; CORE = {core!r}\n" + PHASES
    proc = subprocess.run([PY, "-c", code], env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:  # no _table helper: drop the render phase
        code = code.split("import io\n")[0] + code.split('mark("render table (rich)")\n')[1]
        proc = subprocess.run([PY, "-c", code], env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return {"error": proc.stderr[-1500:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def importtime(module: str, env: dict[str, str], core: str | None, top: int = 15) -> dict[str, Any]:
    """Parse ``-X importtime``: (cumulative µs, self µs, module) rows, largest first."""
    cmd = [PY, "-X", "importtime", *python_c(f"import {module}", core)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cum_us, name = (part.strip() for part in line[len("import time:"):].split("|"))
        rows.append((int(cum_us), int(self_us), name.strip()))
    total = max((r[0] for r in rows if not r[2].startswith(" ")), default=0)
    top_level = sorted((r for r in rows), key=lambda r: -r[0])
    return {"module": module, "total_us": sum(r[0] for r in rows if r[2] == r[2].lstrip()),
            "largest_top_level_us": total,
            "top_cumulative": [[c, s, n] for c, s, n in top_level[:top]],
            "top_self": [[c, s, n] for c, s, n in sorted(rows, key=lambda r: -r[1])[:top]]}


def python_c(code: str, core: str | None) -> list[str]:
    """Arguments after ``python`` that run ``code`` with the chosen core (bench/core.py exec) or the installed one."""
    return [CORE_PY, "exec", core, "-c", code] if core else ["-c", code]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="cold start of gpuhub search --gpu H100")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--core", help="core snapshot directory (bench/core.py snapshot); default: installed gpuhub")
    args = parser.parse_args(argv)
    core = args.core
    base = tempfile.mkdtemp(prefix="gpuhub-bench-cold-")
    results: dict[str, Any] = {"python": sys.version.split()[0], "loadavg_before": os.getloadavg()}
    try:
        env = clean_env(GPUHUB_NO_DISK_CACHE="1")
        results["core"] = core or "installed"
        results["python_pass"] = series("python -c pass", args.runs, lambda: ([PY, *python_c("pass", core)], env))
        results["import_gpuhub"] = series("import gpuhub", args.runs,
                                          lambda: ([PY, *python_c("import gpuhub", core)], env))
        results["import_cli"] = series("import gpuhub.cli", args.runs,
                                       lambda: ([PY, *python_c("import gpuhub.cli", core)], env))
        search = [PY, CORE_PY, "cli", core, "search", "--gpu", "H100"] if core else [GPUHUB, "search", "--gpu", "H100"]
        counter = iter(range(10_000))

        def cold() -> tuple[list[str], dict[str, str]]:
            directory = Path(base) / f"cold-{next(counter)}"
            return search, clean_env(GPUHUB_CACHE_DIR=str(directory))

        results["search_cold_cache"] = series("gpuhub search --gpu H100 (disk cache cold)", args.runs, cold)
        warm_dir = Path(base) / "warm"
        warm_env = clean_env(GPUHUB_CACHE_DIR=str(warm_dir))
        timed(search, warm_env)  # fills the cache
        results["search_warm_cache"] = series("gpuhub search --gpu H100 (disk cache warm)", args.runs,
                                              lambda: (search, warm_env))
        results["search_no_cache"] = series("gpuhub search --gpu H100 (GPUHUB_NO_DISK_CACHE=1)", args.runs,
                                            lambda: (search, clean_env(GPUHUB_NO_DISK_CACHE="1")))
        results["cache_files"] = {p.name: p.stat().st_size for p in sorted((warm_dir / "parsed").glob("*.json"))}
        results["phases_warm"] = phases(warm_env, core)
        results["importtime_cli"] = importtime("gpuhub.cli", env, core)
        results["importtime_gpuhub"] = importtime("gpuhub", env, core)
        results["loadavg_after"] = os.getloadavg()
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"core {results['core']}, python {results['python']}, load average before {results['loadavg_before']}, "
          f"after {results['loadavg_after']}")
    for key in ("python_pass", "import_gpuhub", "import_cli", "search_cold_cache", "search_warm_cache",
                "search_no_cache"):
        r = results[key]
        print(f"{r['label']:52} median {r['median_s']:.3f} s (min {r['min_s']:.3f}, max {r['max_s']:.3f}), "
              f"CPU {r['cpu_median_s']:.3f} s, {r['runs']} runs")
    print("cache files:", results["cache_files"])
    ph = results["phases_warm"]
    if "phases" in ph:
        print(f"phases of one warm run ({ph['offers']} offers):")
        for name, seconds in ph["phases"]:
            print(f"  {name:40} {seconds * 1e3:8.1f} ms")
    else:
        print("phases failed:", ph.get("error"))
    for key in ("importtime_cli",):
        it = results[key]
        print(f"-X importtime {it['module']}: top cumulative (µs, self µs, module)")
        for c, s, n in it["top_cumulative"]:
            print(f"  {c:9d} {s:9d}  {n}")
        print("  top self:")
        for c, s, n in it["top_self"][:10]:
            print(f"  {c:9d} {s:9d}  {n}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
