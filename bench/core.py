"""Run the benchmarks against one committed version of the core, not whatever the working tree holds right now.

The core (``gpuhub/``) is installed in editable mode, so every process imports the working tree, which may be
half-edited while a benchmark runs. ``snapshot`` exports ``gpuhub/`` of a commit to a directory; ``use_core``
makes the current process import that copy instead (it drops the editable finder of the ``gpuhub``
distribution only; plugins still come from their installed distributions).

    python bench/core.py snapshot [REV]            # prints the directory, e.g. /tmp/gpuhub-core-74d65b8
    python bench/core.py exec DIR -c "import gpuhub"
    python bench/core.py cli DIR search --gpu H100  # the gpuhub command with that core
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def use_core(directory: str | Path | None) -> None:
    """Import ``gpuhub`` from ``directory`` (a snapshot) in this process; None keeps the installed core."""
    if not directory:
        return
    if "gpuhub" in sys.modules:
        raise RuntimeError("use_core must run before gpuhub is imported")

    def is_core_finder(finder: object) -> bool:
        module = getattr(finder, "__module__", "") or type(finder).__module__
        return module.startswith("__editable___gpuhub_0") or module.startswith("__editable___gpuhub-")

    sys.meta_path[:] = [f for f in sys.meta_path if not is_core_finder(f)]
    sys.path.insert(0, str(Path(directory).resolve()))


def snapshot(rev: str = "HEAD") -> Path:
    """Export ``gpuhub/`` at ``rev`` to /tmp/gpuhub-core-<short sha> (reused when it exists)."""
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", rev], capture_output=True, text=True,
                         check=True).stdout.strip()
    target = Path(f"/tmp/gpuhub-core-{sha}")
    if not (target / "gpuhub" / "__init__.py").is_file():
        target.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "gpuhub"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def main(argv: list[str]) -> int:
    if argv[:1] == ["snapshot"]:
        print(snapshot(argv[1] if len(argv) > 1 else "HEAD"))
        return 0
    if len(argv) >= 3 and argv[0] in ("exec", "cli"):
        use_core(argv[1])
        if argv[0] == "exec" and argv[2] == "-c":
            sys.argv = ["-c", *argv[4:]]
            exec(compile(argv[3], "<bench-core>", "exec"), {"__name__": "__main__"})
            return 0
        if argv[0] == "cli":
            sys.argv = ["gpuhub", *argv[2:]]
            from gpuhub.cli.commands import main as cli_main

            cli_main()
            return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
