"""What the store benchmarks share: one timed child process (wall from outside, CPU from the kernel's accounting of
the child), the load average, and writing the result."""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import time
from pathlib import Path
from typing import Any


def timed_run(argv: list[str], env: dict[str, str] | None = None,
              timeout: float = 3600) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Run ``argv`` to its end: (wall seconds, CPU seconds = user + system of the child, the finished process).

    Raises:
        SystemExit: the process exited non-zero (its stderr's tail is the message).
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed:\n{done.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, as ``/proc/loadavg`` gives them."""
    with open("/proc/loadavg") as fh:
        return " ".join(fh.read().split()[:3])


def emit(out: dict[str, Any], path: Path | None) -> None:
    """Print the result as JSON, and write it to ``path`` when given."""
    text = json.dumps(out, indent=2)
    print(text)
    if path:
        path.write_text(text)


def data_arguments(default_runs: int) -> tuple[argparse.Namespace, Path, str]:
    """The command line of a benchmark over a generated catalog (``--data DIR --runs N --json FILE``): the
    arguments, the data directory (resolved) and its gpuhub recordings' directory."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=default_runs)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    data = args.data.resolve()
    return args, data, str(data / "gpuhub")
