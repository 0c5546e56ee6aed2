"""``gpuhub search`` without typer (:mod:`gpuhub.cli.search`): the fast parser reads exactly what the typer command
reads, hands everything else to typer, and the console script answers a search without importing typer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from engines import console_script
from typer.testing import CliRunner

from gpuhub.cli import commands
from gpuhub.cli.search import OWN_OPTIONS, EmitFormat, OutputFormat, UsageError, _options, parse_argv, split_values

runner = CliRunner()

READ_ALIKE = [
    [],
    ["--gpu", "H100"],
    ["-g", "H100", "--gpu", "A100", "--gpu=L4"],
    ["--gpu", "H100", "--limit", "5", "--min-gpus", "8", "--max-price", "30"],
    ["--provider", "aws", "-p", "gcp", "-r", "us-east-1", "--purchase", "spot", "--purchase=on_demand"],
    ["--all-regions", "--exclude-fractional", "--nvlink", "--available", "--wide"],
    ["--group-by", "gpu,provider", "--sort", "price_per_gpu", "--columns", "provider,price"],
    ["--workload", "training", "--model", "70b", "--mode", "inference", "--near", "Frankfurt", "--max-rtt", "50"],
    ["--format", "json", "-v", "--explain", "--refresh", "--timeout", "2.5", "--max-age", "15min"],
    ["-f", "csv", "--fetch", "replay", "--fixtures", "some/dir", "--no-refresh"],
    ["--emit", "dstack-fleet", "--emit-file", "fleet.yml", "--nodes", "2", "--fabric", "efa"],
    ["--min-placement-score", "7", "--max-interruption", "10", "--checkpoint-every", "0.5", "--cuda", "12.8"],
    ["--min-network-gbps", "100", "--min-local-disk-gib", "1000", "--local-nvme", "--max-carbon", "200"],
    ["--limit", "1000", "--min-vram", "1e2", "--max-gpus", ".5", "--max-price-per-gpu", "2.5", "--currency", "EUR"],
]
"""Command lines both parsers read: the fast parser must hand ``run_search`` exactly what typer hands it."""

TO_TYPER = [
    ["--help"], ["-h"], ["--bogus"], ["H100"], ["--gpu"], ["--min-gpus", "-1"], ["--limit", "x"],
    ["--limit", "1.5"], ["--explain=1"], ["--format", "yaml"], ["--emit", "terraform"], ["--", "--gpu", "H100"],
    ["--limit", "5", "--limit", "6"], ["--gpu", ""], ["-vf", "json"], ["--explain", "--explain"], ["--gpu="],
    ["--version"], ["-fjson"], ["--limit", "1_000"], ["--min-vram", "inf"], ["--limit", " 5"], ["--limit", "٥"],
]
"""Command lines the fast parser leaves to typer: help, errors, and what click decides its own way."""


def _typer_reads(args: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    seen: list[tuple[Any, ...]] = []

    def record(filters: dict[str, Any], shown: dict[str, Any], **own: Any) -> None:
        seen.append((filters, shown, own))

    monkeypatch.setattr(commands, "run_search", record)
    run = runner.invoke(commands.app, ["search", *args])
    assert run.exit_code == 0, (args, run.output)
    [read] = seen
    return read


@pytest.mark.parametrize("args", READ_ALIKE, ids=" ".join)
def test_the_fast_parser_reads_what_typer_reads(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    values = parse_argv(args)
    assert values is not None, args
    assert split_values(values) == _typer_reads(args, monkeypatch)


def test_the_values_read_are_the_typed_ones() -> None:
    values = parse_argv(["--gpu", "H100", "-g", "A100", "--limit", "5", "--min-gpus", "8", "-f", "json",
                         "--emit", "dstack", "--fixtures", "d", "--all-regions"])
    assert values is not None
    filters, shown, own = split_values(values)
    assert filters["gpu"] == ["H100", "A100"] and filters["limit"] == 5 and filters["min_gpus"] == 8.0
    assert filters["distinct"] is False  # --all-regions: one row per offer, not per instance type
    assert own["output"] is OutputFormat.json and own["emit"] is EmitFormat.dstack and own["fixtures"] == Path("d")
    assert shown == {"columns": None, "wide": False}


@pytest.mark.parametrize("args", TO_TYPER, ids=" ".join)
def test_anything_else_goes_to_typer(args: list[str]) -> None:
    try:
        assert parse_argv(args) is None
    except UsageError as exc:  # a value no spelling of its kind reads: said in one line
        assert str(exc) in {"--limit: 'x' is not a whole number", "--limit: '1.5' is not a whole number",
                            "--format: 'yaml' is not allowed; allowed values: table, json, csv",
                            "--emit: 'terraform' is not allowed; allowed values: skypilot, dstack, dstack-fleet"}


def test_the_fast_parser_knows_every_option_of_the_typer_command_and_no_other() -> None:
    command = typer.main.get_command(commands.app).commands["search"]  # type: ignore[attr-defined]
    declared = {o for p in command.params for o in (*p.opts, *p.secondary_opts)} - {"--help"}
    assert declared == set(_options())
    assert set(OWN_OPTIONS) <= declared


def _console_script(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """``gpuhub ARGS`` as the console script runs it, reporting on stderr's last line whether typer was imported."""
    return console_script(*args, env={"GPUHUB_HOME": str(home), "GPUHUB_FETCH": "replay"}, reports="typer")


def test_the_console_script_searches_without_typer_and_answers_as_the_typer_path(tmp_path: Path) -> None:
    args = ("search", "--gpu", "H100", "-p", "lambda", "--limit", "3", "--format", "json")
    fast = _console_script(*args, home=tmp_path)
    assert fast.returncode == 0, fast.stderr
    assert fast.stderr.splitlines()[-1] == "typer imported: False"
    offers = json.loads(fast.stdout)
    assert [(o["provider"], o["instance_type"], o["price_per_hour"]) for o in offers][:1] == [
        ("lambda", "gpu_1x_h100_pcie", 2.49)]
    through_typer = subprocess.run([sys.executable, "-m", "gpuhub.cli", *args], capture_output=True, text=True,
                                   env={**os.environ, "GPUHUB_HOME": str(tmp_path), "GPUHUB_FETCH": "replay"},
                                   timeout=300, check=False)
    assert through_typer.returncode == 0 and through_typer.stdout == fast.stdout
    wrong = _console_script("search", "--limit", "x", home=tmp_path)  # one line naming the option (was: click's
    assert wrong.returncode == 2 and wrong.stderr.splitlines() == [  # usage and pydantic's wording, 4 lines)
        "error: --limit: 'x' is not a whole number", "typer imported: False"]
    odd = _console_script("search", "--min-vram", "inf", home=tmp_path)  # a spelling only typer's coercion reads
    assert odd.stderr.splitlines()[-1] == "typer imported: True"


def test_json_and_csv_say_on_stderr_when_the_limit_left_offers_out(tmp_path: Path) -> None:
    # --gpu H100 on the bundled data: 992 matching offers, 202 choices (instance type and purchase model), 20 shown
    env = {**os.environ, "GPUHUB_STORE": str(tmp_path / "store")}
    run = subprocess.run([sys.executable, "-c", "from gpuhub._entry import main; main()", "search", "--gpu", "H100",
                          "--format", "json"], capture_output=True, text=True, env=env, timeout=300, check=True)
    assert len(json.loads(run.stdout)) == 20
    assert ("showing 20 of 202 choices (one row per instance type and purchase model, best region first) from 992 "
            "matching offers; --all-regions for every offer; --limit N for more") in run.stderr
    every = subprocess.run([sys.executable, "-c", "from gpuhub._entry import main; main()", "search", "--gpu", "H100",
                            "--format", "csv", "--all-regions", "--limit", "5000"], capture_output=True, text=True,
                           env=env, timeout=300, check=True)
    assert len(every.stdout.splitlines()) == 993 and "showing" not in every.stderr  # a header and every offer
