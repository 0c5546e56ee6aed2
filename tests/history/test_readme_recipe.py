"""The README's history recipe runs as written (issue 23 item 6: its ``cp -r … /tmp/rec1/lambda`` needed the folder
first): each shell line of the block, with ``/tmp`` moved to a test folder and ``gpuhub`` run from this checkout."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_history_recipe_runs_verbatim(tmp_path: Path) -> None:
    block = re.search(r"\*Lambda's H100 prices in us-east-1 over three refreshes\*.*?```sh\n(.*?)```", README, re.S)
    assert block is not None
    lines = [line.split("  #")[0].strip() for line in block.group(1).splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    assert any(line.startswith("mkdir -p /tmp/rec1") for line in lines)
    if not (ROOT / "plugins" / "gpuhub-lambda" / "gpuhub_lambda" / "recording").is_dir():
        pytest.skip("the Lambda plugin's recording is not in this checkout")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "AZURE_", "GOOGLE_", "LAMBDA_", "KUBE",
                                                                     "GPUHUB_"))}
    env |= {"GPUHUB_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "240"}
    gpuhub = f"{shlex.quote(sys.executable)} -m gpuhub.cli"
    script = "set -e\n" + "\n".join(
        re.sub(r"^gpuhub ", gpuhub + " ", line.replace("/tmp/", f"{tmp_path}/")) for line in lines
        if not line.startswith("gpuhub search --provider lambda --fixtures /tmp/rec2"))  # rec2: "same steps"
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, env=env, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr
    edited = (tmp_path / "rec1" / "lambda" / "instance-types.json").read_text()
    assert '"price_cents_per_hour": 2150' in edited and '"price_cents_per_hour": 2392' not in edited
    history = subprocess.run([sys.executable, "-m", "gpuhub.cli", "history", "--provider", "lambda", "--gpu", "H100",
                              "--region", "us-east-1", "--since", "all", "--instance-type", "gpu_8x_h100_sxm5"],
                             capture_output=True, text=True, env=env | {"GPUHUB_STORE": f"{tmp_path}/demo-store"},
                             timeout=120, check=False)
    row = next(line for line in history.stdout.splitlines() if "gpu_8x_h100_sxm5" in line)
    assert [x for x in row.split() if x != "│"][-7:] == ["1", "23.92", "21.50", "22.71", "23.92", "21.50", "USD"]
