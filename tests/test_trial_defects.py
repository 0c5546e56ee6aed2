"""What fresh-user trials found (session 5), each through the public CLI, ``gpuhub.search()`` or the web page, and each
failing before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import gpuhub
from gpuhub.cli.commands import app
from gpuhub.errors import QueryError
from gpuhub.service.searching import reset_default_engine

runner = CliRunner()


@pytest.fixture(autouse=True)
def _own_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUHUB_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize(("args", "message"), [
    # Was: "got -1.0" (the option's float echoed back, not what was typed).
    (("search", "--min-gpus", "-1"), "error: --min-gpus: must be a number, 0 or more, got -1\n"),
    (("search", "--max-price", "-3"), "error: --max-price: must be a number, 0 or more, got -3\n"),
    (("search", "--min-vram", "-2.5"), "error: --min-vram: must be a number, 0 or more, got -2.5\n"),
    (("search", "--nodes", "-1"), "error: --nodes: must be a whole number from 1 to 4096, got -1\n"),
    (("search", "--max-interruption", "101"), "error: --max-interruption: is a percentage from 0 to 100, got 101\n"),
    (("search", "--min-placement-score", "11"),
     "error: --min-placement-score: must be a whole number from 1 to 10, got 11\n"),
    (("search", "--checkpoint-every", "0"), "error: --checkpoint-every: must be a positive number of hours, got 0\n"),
    (("estimate", "--instance-type", "p5.48xlarge", "--hours", "-1"),
     "error: --hours: must be a positive number of hours, got -1\n"),
    (("estimate", "--instance-type", "p5.48xlarge", "--hours", "5", "--egress-gb", "-2"),
     "error: --egress-gb: must be a number of GB, 0 or more, got -2\n"),
])
def test_a_number_out_of_range_is_echoed_as_typed(args: tuple[str, ...], message: str) -> None:
    run = runner.invoke(app, [*args, "--fetch", "replay"])
    assert run.exit_code == 2 and run.stderr == message, run.stderr


def test_a_number_given_as_text_is_echoed_as_typed() -> None:
    for value in ("-1", -1, -1.0):
        with pytest.raises(QueryError) as info:
            gpuhub.search(min_gpus=value, fetch="replay")
        assert str(info.value) == "min_gpus: must be a number, 0 or more, got -1"
    with pytest.raises(QueryError) as info:
        gpuhub.search(min_gpus="abc", fetch="replay")
    assert str(info.value) == "min_gpus: expected a number, got 'abc'"


def _lines(output: str, prefix: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(prefix)]


def test_a_replay_served_from_the_store_says_so() -> None:
    # Was: the second search's status line read like the first's, though its offers came out of the offer store
    # (a live provider's line says "from the store, fetched N min ago").
    args = ["search", "--gpu", "H100", "--provider", "lambda", "--limit", "1", "-v", "--fetch", "replay"]
    reset_default_engine(None)
    first = runner.invoke(app, args)
    reset_default_engine(None)  # a new process: this one's cache is gone, the store is not
    second = runner.invoke(app, args)
    reset_default_engine(None)
    assert first.exit_code == 0 and second.exit_code == 0, (first.stderr, second.stderr)
    head = ("lambda: ok, 340 offers (reconstructed recording, data date unknown (SkyPilot catalog v8 snapshot, commit "
            "date not known; its content (gpu_8x_b200_sxm6) dates it 2025 or later)), 2 warnings")
    assert _lines(first.stderr, "lambda: ") == [f"{head}, no availability data"]
    assert _lines(second.stderr, "lambda: ") == [f"{head}: from the store, no availability data"]
