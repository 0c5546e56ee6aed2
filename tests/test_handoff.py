"""``--emit skypilot|dstack|dstack-fleet``: the first offer of a search (or the cheapest place of an estimate) as a
launch file, checked for its real values and validated by the tools' own code.

Validation runs the tools' own loaders on the written files: SkyPilot's task and resources JSON schemas with its
validator (``sky.utils.schemas.get_task_schema``, ``get_resources_schema``, ``common_utils.validate_schema``) and
dstack's pydantic configuration models (``parse_apply_configuration``). Both tools pin versions of libraries
gpuhub also uses (click 8.1, uvicorn 0.35), so they are not a test extra of this project: they live in an
interpreter of their own, named by ``GPUHUB_LAUNCH_TOOLS_PYTHON`` (``python -m venv /tmp/launchers &&
/tmp/launchers/bin/pip install skypilot dstack``; about two minutes), or in the test interpreter when it has them.
Without either, the validation tests skip with that reason; the value tests always run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from gpuhub import Registry
from gpuhub.cli.commands import app
from gpuhub.fetch.plugins import reset_registry
from gpuhub.kit.testing import make_engine
from gpuhub.service.searching import reset_default_engine

runner = CliRunner()

OFFERS = {  # provider: (search options, instance type, region, price per hour)
    "aws": (["--provider", "aws"], "p5.48xlarge", "us-east-1", 55.04),
    "gcp": (["--provider", "gcp"], "a3-edgegpu-8g", "us-central1", 87.832465656),
    "lambda": (["--provider", "lambda"], "gpu_8x_h100_sxm5", "asia-northeast-1", 23.92),
}

_VALIDATE = r'''
import json, sys, warnings
warnings.simplefilter("ignore")
import yaml
fmt, path = sys.argv[1], sys.argv[2]
config = yaml.safe_load(open(path))
if fmt == "skypilot":
    from sky.utils import common_utils, schemas
    common_utils.validate_schema(config, schemas.get_task_schema(), "Invalid task YAML: ")
    # the task schema leaves resources open; sky.Resources.from_yaml_config checks them against this one
    common_utils.validate_schema(config["resources"], schemas.get_resources_schema(), "Invalid resources YAML: ")
    print(json.dumps({"kind": "task", **config["resources"]}))
else:
    from dstack._internal.core.models.configurations import parse_apply_configuration
    parsed = parse_apply_configuration(config)
    gpu = parsed.resources.gpu
    print(json.dumps({"kind": parsed.type, "backends": [b.value for b in parsed.backends],
                      "regions": parsed.regions, "instance_types": parsed.instance_types,
                      "spot_policy": parsed.spot_policy.value, "max_price": parsed.max_price,
                      "gpu": [list(gpu.name or []), gpu.count.min, gpu.memory.min if gpu.memory else None]}))
'''


@cache
def _tools_python() -> str | None:
    """An interpreter that imports both SkyPilot and dstack: this one, or ``GPUHUB_LAUNCH_TOOLS_PYTHON``."""
    for python in (sys.executable, os.environ.get("GPUHUB_LAUNCH_TOOLS_PYTHON")):
        if python and subprocess.run([python, "-W", "ignore", "-c", "import sky.utils.schemas, dstack, yaml"],
                                     capture_output=True, timeout=300, check=False).returncode == 0:
            return python
    return None


def validate(fmt: str, path: Path) -> dict[str, object]:
    """The tool's own loader's reading of ``path`` (skips when neither interpreter has the tools)."""
    python = _tools_python()
    if python is None:
        pytest.skip("SkyPilot and dstack are not installed here: set GPUHUB_LAUNCH_TOOLS_PYTHON to an interpreter "
                    "that has them (pip install skypilot dstack)")
    done = subprocess.run([python, "-c", _VALIDATE, fmt, str(path)], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.fixture(scope="module", autouse=True)
def _bundled_engine() -> Iterator[None]:
    engine = make_engine(Registry())
    reset_registry(engine.registry)
    reset_default_engine(engine)
    yield
    reset_default_engine(None)
    reset_registry(None)
    engine.shutdown()


def emit(tmp_path: Path, fmt: str, *args: str, command: str = "search") -> tuple[Path, str]:
    target = tmp_path / {"skypilot": "task.sky.yaml", "dstack": "task.dstack.yml",
                         "dstack-fleet": "fleet.dstack.yml"}[fmt]
    if command == "search":
        args = ("--gpu", "H100", "--min-gpus", "8", "--purchase", "on_demand", "--limit", "1", *args)
    result = runner.invoke(app, [command, *args, "--emit", fmt, "--emit-file", str(target)])
    assert result.exit_code == 0, result.output
    return target, result.stderr


@pytest.mark.parametrize("provider", list(OFFERS))
def test_skypilot_task_of_the_first_offer(tmp_path: Path, provider: str) -> None:
    options, instance_type, region, price = OFFERS[provider]
    path, said = emit(tmp_path, "skypilot", *options)
    text = path.read_text()
    assert text.startswith(f"# gpuhub: {provider} {instance_type} in {region}, on_demand at {price} USD/h")
    config = yaml.safe_load(text)
    assert config["resources"] == {"infra": f"{provider}/{region}", "instance_type": instance_type,
                                   "accelerators": "H100:8", "use_spot": False}
    assert f"wrote {path}: skypilot for {provider} {instance_type} in {region}" in said
    assert validate("skypilot", path) == {"kind": "task", **config["resources"]}


@pytest.mark.parametrize("fmt", ["dstack", "dstack-fleet"])
@pytest.mark.parametrize("provider", list(OFFERS))
def test_dstack_configuration_of_the_first_offer(tmp_path: Path, provider: str, fmt: str) -> None:
    options, instance_type, region, price = OFFERS[provider]
    path, _ = emit(tmp_path, fmt, *options)
    config = yaml.safe_load(path.read_text())
    assert config["type"] == ("fleet" if fmt == "dstack-fleet" else "task")
    assert (config["backends"], config["regions"], config["instance_types"], config["spot_policy"],
            config["max_price"], config["resources"]) == (
        [provider], [region], [instance_type], "on-demand", price, {"gpu": "H100:80GB:8"})
    parsed = validate(fmt, path)
    assert parsed == {"kind": config["type"], "backends": [provider], "regions": [region],
                      "instance_types": [instance_type], "spot_policy": "on-demand", "max_price": price,
                      "gpu": [["H100"], 8, 80.0]}


def test_a_spot_offer_asks_for_spot_and_leaves_out_an_aws_zone_id(tmp_path: Path) -> None:
    path, said = emit(tmp_path, "skypilot", "--gpu", "H100", "--min-gpus", "8", "--provider", "aws", "--purchase",
                      "spot", "--limit", "1")
    config = yaml.safe_load(path.read_text())
    assert config["resources"] == {"infra": "aws/ap-southeast-3", "instance_type": "p5.48xlarge",
                                   "accelerators": "H100:8", "use_spot": True}
    assert "zone ID apse3-az1" in " ".join(said.split())
    path, _ = emit(tmp_path, "dstack", "--gpu", "H100", "--min-gpus", "8", "--provider", "aws", "--purchase",
                   "spot", "--limit", "1")
    config = yaml.safe_load(path.read_text())
    assert (config["spot_policy"], config["max_price"], "availability_zones" in config) == ("spot", 7.5955, False)
    validate("dstack", path)


def test_estimate_hands_off_the_cheapest_place(tmp_path: Path) -> None:
    path, _ = emit(tmp_path, "dstack", "--instance-type", "gpu_8x_h100_sxm5", "--hours", "10", "--provider",
                   "lambda", command="estimate")
    config = yaml.safe_load(path.read_text())
    assert (config["regions"], config["max_price"]) == (["asia-northeast-1"], 23.92)


def test_a_provider_the_tool_does_not_launch_on_is_said_clearly(tmp_path: Path) -> None:
    result = runner.invoke(app, ["search", "--gpu", "H100", "--min-gpus", "8", "--provider", "coreweave",
                                 "--limit", "1", "--emit", "skypilot", "--emit-file", str(tmp_path / "x.yaml")])
    assert result.exit_code == 2
    message = " ".join(result.stderr.split())
    assert "--emit skypilot: the chosen offer (coreweave HGX H100 in RNO2) is from coreweave, which SkyPilot does " \
           "not launch on; SkyPilot launches on: aws, azure, cudo, gcp," in message
    assert not (tmp_path / "x.yaml").exists()


def test_a_broken_file_fails_the_tools_own_validation(tmp_path: Path) -> None:
    """The validators are real: a wrong type is refused by each tool."""
    path, _ = emit(tmp_path, "skypilot", "--provider", "lambda")
    path.write_text(path.read_text().replace("use_spot: false", "use_spot: sometimes"))
    python = _tools_python()
    if python is None:
        pytest.skip("SkyPilot and dstack are not installed here: set GPUHUB_LAUNCH_TOOLS_PYTHON")
    done = subprocess.run([python, "-c", _VALIDATE, "skypilot", str(path)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode != 0 and "use_spot" in done.stderr
