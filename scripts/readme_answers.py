"""Rewrite the README's ``$ gpuhub search|estimate|plan ...`` answer blocks from what those commands print now.

Usage (from the repository root, every plugin installed)::

    python scripts/readme_answers.py          # rewrite README.md in place
    python scripts/readme_answers.py --check  # exit 1 and name the blocks that differ

Each block is run as ``tests/test_docs.py`` runs it (bundled recordings, a fresh store, ``COLUMNS=240``, no
credentials). A block keeps its shape: stdout whole, then the stderr lines that are not per-provider status lines
(the "showing N of M" summary, ``--available`` notes; not the one-line status summary, whose counts of outdated
providers change with the date); a block that was cut with
``...`` is cut after as many lines as before.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BLOCK = re.compile(r"```\n\$ gpuhub ((?:search|estimate|plan) [^\n]+)\n(.*?)```", re.S)
STATUS_LINE = re.compile(r"^[a-z][a-z0-9_-]*: (ok|stale|failed|skipped|partial)")


def _env(cache: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("AWS_", "AZURE_", "GOOGLE_", "LAMBDA_", "KUBE", "GPUHUB_"))}
    return env | {"GPUHUB_CACHE_DIR": cache, "COLUMNS": "240"}


def answer(command: str, shown: str, cache: str) -> str:
    """What ``gpuhub COMMAND`` prints now, in the shape of the block ``shown`` (its old text)."""
    run = subprocess.run([sys.executable, "-m", "gpuhub.cli", *command.split()],
                         capture_output=True, text=True, env=_env(cache), timeout=300)
    lines = [line.rstrip() for line in run.stdout.splitlines()]
    lines += [line.rstrip() for line in run.stderr.splitlines()
              if line.strip() and not STATUS_LINE.match(line) and not line.endswith("; -v for details")]
    old = shown.splitlines()
    if "..." in old:
        lines = [*lines[:old.index("...")], "..."]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """Rewrite (or with ``--check`` compare) every answer block; returns the exit code."""
    text = README.read_text(encoding="utf-8")
    differ: list[str] = []
    with tempfile.TemporaryDirectory() as cache:
        def replace(match: re.Match[str]) -> str:
            command, shown = match.group(1), match.group(2)
            new = answer(command, shown, cache)
            if new != shown:
                differ.append(command)
            return f"```\n$ gpuhub {command}\n{new}```"

        updated = BLOCK.sub(replace, text)
    if "--check" in argv:
        for command in differ:
            print(f"differs: gpuhub {command}")
        return 1 if differ else 0
    README.write_text(updated, encoding="utf-8")
    print(f"rewrote {len(differ)} of {len(BLOCK.findall(text))} answer blocks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
