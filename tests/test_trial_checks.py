"""What a fresh-user trial of the merged work found (session 4), each through the public CLI or ``gpuhub.search()``
and each failing before its fix: numbers beyond float range, an estimate too large to compute, options that were
silently ignored, a model size without a unit, the launch file sharing stdout with the table, regions whose job
cost leaves egress out, and the one-line repr of a result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import gpuhub
from gpuhub.cli.commands import app
from gpuhub.errors import QueryError

runner = CliRunner()


@pytest.fixture(autouse=True)
def _own_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUHUB_CACHE_DIR", str(tmp_path / "cache"))


def test_a_number_beyond_float_range_is_an_argument_error() -> None:
    # Was: OverflowError: int too large to convert to float (a traceback, exit 1).
    run = runner.invoke(app, ["search", "--limit", str(10**400), "--fetch", "replay"])
    assert run.exit_code == 2 and run.stderr.startswith("error: --limit: must be a whole number from 1 to 1000000, "
                                                        "got 1000"), run.stderr
    huge = runner.invoke(app, ["search", "--limit", "9" * 50, "--fetch", "replay"])  # was: accepted, every row printed
    assert huge.exit_code == 2 and huge.stderr.startswith("error: --limit: must be a whole number from 1 to 1000000")
    with pytest.raises(QueryError) as info:
        gpuhub.search(min_gpus=10**400, fetch="replay")
    assert info.value.argument == "min_gpus"


def test_a_model_size_needs_its_unit() -> None:
    # Was: --model 70 meant 70 parameters, and every offer "held" it.
    run = runner.invoke(app, ["search", "--model", "70", "--fetch", "replay"])
    assert run.exit_code == 2
    assert run.stderr.startswith("error: --model: '70' has no unit: write e.g. 70b (billions) or 70m (millions)")


@pytest.mark.parametrize(("args", "message"), [
    (("--hours", "1e300"), "error: --hours: must be at most 1,000,000, got 1e+300"),  # was decimal.InvalidOperation
    (("--hours", "48", "--compare", "--egress-gb", "500"), "error: --egress-gb: is not priced by --compare"),
    (("--hours", "48", "--start", "2027-01-01"), "error: --start: applies to --compare"),
    (("--hours", "48", "--emit-file", "x.yaml"), "error: --emit-file: names where --emit writes"),
])
def test_estimate_never_ignores_an_option_nor_overflows(args: tuple[str, ...], message: str) -> None:
    run = runner.invoke(app, ["estimate", "--instance-type", "p5.48xlarge", *args, "--fetch", "replay"])
    assert run.exit_code == 2 and run.stderr.startswith(message), run.stderr


def test_emit_to_stdout_is_the_launch_file_alone() -> None:
    # Was: the table and the YAML on one stdout, so `> task.yaml` gave a file no tool could read.
    run = runner.invoke(app, ["search", "--gpu", "H100", "--provider", "aws", "--instance-type", "p5.48xlarge",
                              "--purchase", "on_demand", "--emit", "skypilot", "--emit-file", "-",
                              "--fetch", "replay"])
    assert run.exit_code == 0, run.stderr
    task = yaml.safe_load(run.stdout)
    assert task["resources"]["instance_type"] == "p5.48xlarge" and task["resources"]["accelerators"] == "H100:8"
    assert "stdout carries the --emit file" in run.stderr
    alone = runner.invoke(app, ["search", "--gpu", "H100", "--emit-file", "x.yaml", "--fetch", "replay"])
    assert alone.exit_code == 2 and alone.stderr.startswith("error: --emit-file: names where --emit writes")


def test_the_estimate_table_wraps_regions_at_80_columns() -> None:
    # Was: ap-southeast-2 and ap-southeast-3 both cut to "ap-southeas…" at 80 columns.
    run = runner.invoke(app, ["estimate", "--instance-type", "p5.48xlarge", "--hours", "10", "--fetch", "replay"],
                        env={"COLUMNS": "80"})
    assert run.exit_code == 0 and "…" not in run.stdout
    assert max(len(line) for line in run.stdout.splitlines()) <= 80


def test_a_job_cost_without_its_egress_says_it_is_incomplete() -> None:
    # Was: us-west-2 looked 45 USD cheaper than us-east-1 only because its egress had no price.
    run = runner.invoke(app, ["estimate", "--instance-type", "p5.48xlarge", "--hours", "10", "--egress-gb", "500",
                              "--region", "us-east-1", "--region", "us-west-2", "--format", "json",
                              "--fetch", "replay"])
    jobs = {j["region"]: j for j in json.loads(run.stdout)["jobs"]}
    assert (jobs["us-east-1"]["cost"], jobs["us-east-1"]["cost_complete"]) == (595.40, True)
    assert (jobs["us-west-2"]["cost"], jobs["us-west-2"]["cost_complete"]) == (550.40, False)
    table = runner.invoke(app, ["estimate", "--instance-type", "p5.48xlarge", "--hours", "10", "--egress-gb", "500",
                                "--region", "us-west-2", "--fetch", "replay"], env={"COLUMNS": "200"})
    assert "550.40 USD + egress ?" in table.stdout


def test_a_result_repr_is_one_line() -> None:
    # Was: the dataclass repr of every offer, 32 KB for five offers in a notebook cell.
    result = gpuhub.search(gpu="H100", provider="aws", instance_type="p5.48xlarge", purchase="on_demand",
                           region="us-east-1", limit=1, fetch="replay")
    assert repr(result).startswith("<SearchResult 1 of 1 matching offers; providers: ")
    assert repr(result).endswith("first: aws p5.48xlarge us-east-1 on_demand 55.04 USD/h>")
