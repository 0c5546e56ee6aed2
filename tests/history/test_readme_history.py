"""The README's history and diff examples: the three refreshes it describes, then the output it shows."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
EDITS = {"rec1": {2392: 2150, 249: 229}, "rec2": {2392: 2199, 249: 229, 1236: 1099}}


def _gpuhub(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gpuhub.cli", *args], capture_output=True,
                          text=True, env=env, timeout=180, check=False)


def _shown(after: str) -> list[tuple[str, list[str]]]:
    blocks = re.findall(r"```\n# " + re.escape(after) + r"\n\$ gpuhub (.+?)\n(.*?)```", README, re.S)
    return [(cmd, [line for line in out.splitlines() if line.strip() and line != "..."])
            for cmd, out in blocks]


def test_readme_history_and_diff_output(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "AZURE_", "GOOGLE_", "LAMBDA_", "KUBE",
                                                                     "GPUHUB_"))}
    env |= {"GPUHUB_STORE": str(tmp_path / "store"), "GPUHUB_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "240"}
    assert _gpuhub(["search", "--provider", "lambda", "--fetch", "replay", "--limit", "1"], env).returncode == 0
    bundled = ROOT / "plugins" / "gpuhub-lambda" / "gpuhub_lambda" / "recording"
    for name, edits in EDITS.items():
        shutil.copytree(bundled, tmp_path / name / "lambda")
        body = tmp_path / name / "lambda" / "instance-types.json"
        text = body.read_text()
        for old, new in edits.items():
            text = re.sub(rf'"price_cents_per_hour": {old}\b', f'"price_cents_per_hour": {new}', text)
        body.write_text(text)
        done = _gpuhub(["search", "--provider", "lambda", "--fixtures", str(tmp_path / name), "--fetch", "replay",
                        "--limit", "1"], env)
        assert done.returncode == 0, done.stderr
    blocks = (_shown("after the three refreshes above") + _shown("the same store")
              + _shown("the same store (exit status 1: a threshold matched)"))
    assert [c.split()[0] for c, _ in blocks] == ["history", "diff", "watch"]
    for command, lines in blocks:
        args = command.replace("docs/history-h100-us-east-1.png", str(tmp_path / "chart.png")).split()
        run = _gpuhub(args, env)
        assert run.returncode == (1 if args[0] == "watch" else 0), run.stderr
        printed = {" ".join(line.split()) for line in (run.stdout + run.stderr).splitlines()}
        expected = [" ".join(line.replace("docs/history-h100-us-east-1.png", str(tmp_path / "chart.png")).split())
                    for line in lines]
        missing = [line for line in expected if line not in printed]
        assert not missing, f"README shows lines that 'gpuhub {command}' no longer prints: {missing[:3]}"
    assert (tmp_path / "chart.png").read_bytes()[:4] == b"\x89PNG"
