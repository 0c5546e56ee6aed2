"""Start-up of CLI processes with the offer store warm (issue 14): ``gpuhub --version``, ``gpuhub --help`` and
``gpuhub search --gpu H100`` on the bundled data, run after run interleaved, medians of wall and CPU time.

    . .venv/bin/activate
    python bench/store_cli.py --runs 7 [--json cli.json]

The store is a fresh temporary directory (``GPUHUB_STORE``), warmed by one search first (not counted).
CPU = user + system time of the child process (from ``resource.getrusage(RUSAGE_CHILDREN)``), the better
estimate of an idle machine's wall time when the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
from pathlib import Path

from timing import emit, load_average, timed_run

COMMANDS = {"--version": ["--version"], "--help": ["--help"], "search --gpu H100": ["search", "--gpu", "H100"]}


def _time(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    wall, cpu, _ = timed_run(argv, env, timeout=300)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--gpuhub", help="the gpuhub command to time (default: the one on PATH); e.g. a regular, "
                                         "non-editable install, whose start-up skips the editable finders")
    args = parser.parse_args()
    gpuhub = args.gpuhub or shutil.which("gpuhub")
    if gpuhub is None:
        raise SystemExit("gpuhub is not on PATH (activate the venv)")
    store = tempfile.mkdtemp(prefix="gpuhub-cli-bench-")
    # Bytecode is written as a user's install does (PYTHONDONTWRITEBYTECODE would compile changed modules each run).
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUHUB_") and k != "PYTHONDONTWRITEBYTECODE"} | {
        "GPUHUB_STORE": store}
    load_before = load_average()
    try:
        _time([gpuhub, *COMMANDS["search --gpu H100"]], env)  # warm the store
        _time([gpuhub, "--help"], env)  # and the plugin-commands cache
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in COMMANDS}
        for _ in range(args.runs):
            for name, argv in COMMANDS.items():
                samples[name].append(_time([gpuhub, *argv], env))
    finally:
        shutil.rmtree(store, ignore_errors=True)
    load_after = load_average()
    out = {"runs": args.runs, "load_before": load_before, "load_after": load_after,
           "commands": {name: {"wall_median_s": statistics.median(w for w, _ in runs),
                               "cpu_median_s": statistics.median(c for _, c in runs),
                               "wall_min_s": min(w for w, _ in runs)} for name, runs in samples.items()}}
    emit(out, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
