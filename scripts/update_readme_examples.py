"""Re-run every ``$ gpuhub ...`` example of README.md on the bundled recordings and write its real output back
(provider status lines are left out; a block cut with ``...`` keeps as many lines as before). ``tests/test_docs.py``
fails when an example no longer prints what the README shows: run this, then read the diff.

    python scripts/update_readme_examples.py
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
STATUS = re.compile(r"^[a-z0-9_-]+: (ok|stale|failed|skipped)\b|^\(gpuhub search -v")


def output(command: str, cache: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "AZURE_", "GOOGLE_", "LAMBDA_", "KUBE",
                                                                     "GPUHUB_"))}
    env |= {"GPUHUB_CACHE_DIR": cache, "COLUMNS": "240"}
    run = subprocess.run([sys.executable, "-c", "from gpuhub.cli.commands import main; main()", *command.split()],
                         capture_output=True, text=True, env=env, timeout=300)
    return [line.rstrip() for line in (run.stdout + run.stderr).splitlines() if not STATUS.match(line)]


def main() -> None:
    text = README.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as cache:
        def redo(m: re.Match[str]) -> str:
            command, old = m.group(1), m.group(2).splitlines()
            lines = output(command, cache)
            if "..." in old:
                lines = [*lines[:old.index("...")], "..."]
            return "```\n$ gpuhub " + command + "\n" + "\n".join(lines) + "\n```"

        text = re.sub(r"```\n\$ gpuhub ((?:search|estimate) .+?)\n(.*?)\n```", redo, text, flags=re.S)
    README.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
