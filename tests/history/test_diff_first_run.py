"""``diff --region`` and ``watch`` count only the offers they are asked about, and a first snapshot matches no
"new" rule (issue 23 item 6): through the CLI on a store of real Lambda list prices."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from synth import T0, offer, put
from typer.testing import CliRunner

from gpuhub.cli.commands import app
from gpuhub.history.log import close_history

runner = CliRunner()
H = dt.timedelta(hours=1)
EAST = [offer("lambda", "gpu_8x_h100_sxm5", "us-east-1", "23.92"),
        offer("lambda", "gpu_1x_a100", "us-east-1", "1.29", gpu="A100", count=1)]
WEST = [offer("lambda", "gpu_8x_h100_sxm5", "us-west-1", "23.92"),
        offer("lambda", "gpu_1x_a100", "us-west-1", "1.29", gpu="A100", count=1),
        offer("lambda", "gpu_1x_h100_pcie", "us-west-1", "2.49", count=1)]


def _store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *fetches: list) -> None:  # type: ignore[type-arg]
    from gpuhub.store import open_store

    location = str(tmp_path / "store")
    monkeypatch.setenv("GPUHUB_STORE", location)
    monkeypatch.setenv("GPUHUB_CACHE_DIR", str(tmp_path / "cache"))
    store = open_store(location)
    assert store is not None
    for n, offers in enumerate(fetches):
        put(store, "lambda", offers, T0 + n * H)
    close_history(store)
    store.close()


def test_diff_and_watch_count_unchanged_in_the_region_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The 8 x H100 in us-east-1 drops from 23.92 to 21.50; nothing else changes (1 unchanged there, 3 in us-west-1).
    cheaper = [offer("lambda", "gpu_8x_h100_sxm5", "us-east-1", "21.50"), EAST[1]]
    _store(tmp_path, monkeypatch, EAST + WEST, cheaper + WEST)
    east = json.loads(runner.invoke(app, ["diff", "--region", "us-east-1", "-f", "json"]).stdout)
    assert east["counts"] == {"up": 0, "down": 1, "new": 0, "gone": 0, "unchanged": 1}  # was 4: every region's
    west = json.loads(runner.invoke(app, ["diff", "--region", "us-west-1", "-f", "json"]).stdout)
    assert west["counts"] == {"up": 0, "down": 0, "new": 0, "gone": 0, "unchanged": 3}
    every = json.loads(runner.invoke(app, ["diff", "-f", "json"]).stdout)
    assert every["counts"]["unchanged"] == 4 and every["counts"]["down"] == 1
    table = runner.invoke(app, ["diff", "--region", "us-east-1", "--gpu", "A100"])
    assert "0 cheaper, 0 dearer, 0 new, 0 gone, 1 unchanged" in table.stdout + table.stderr
    watched = runner.invoke(app, ["watch", "--drop", "5%", "--region", "us-west-1"])
    assert watched.exit_code == 0 and json.loads(watched.stdout)["counts"]["unchanged"] == 3


def test_a_first_snapshot_matches_no_new_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _store(tmp_path, monkeypatch, EAST + WEST)
    for rule in (["--new-offers"], ["--new-gpu", "*"]):  # was: --new-offers matched all 5 offers, --new-gpu none
        run = runner.invoke(app, ["watch", *rule])
        assert run.exit_code == 0, (rule, run.stdout)
        assert json.loads(run.stdout)["matches"] == []
        assert "lambda: only one good snapshot (#1): nothing to compare with yet" in run.stderr
    # with a second snapshot, a new offer is new
    _store(tmp_path / "second", monkeypatch, EAST, EAST + WEST[2:])
    run = runner.invoke(app, ["watch", "--new-offers"])
    assert run.exit_code == 1
    assert [(m["rule"], m["instance_type"]) for m in json.loads(run.stdout)["matches"]] == [
        ("new_offer", "gpu_1x_h100_pcie")]


def test_a_tiny_change_is_not_printed_as_zero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Was: 23.92 -> 23.92072 (+0.003 %) printed "+0.00" in the % column.
    _store(tmp_path, monkeypatch, EAST, [offer("lambda", "gpu_8x_h100_sxm5", "us-east-1", "23.92072"), EAST[1]])
    run = runner.invoke(app, ["diff"])
    row = next(line for line in run.stdout.splitlines() if line.startswith("up"))
    assert row.split("│")[-1].strip() == "+0.003"
    assert json.loads(runner.invoke(app, ["diff", "-f", "json"]).stdout)["changes"][0]["change_pct"] == 0.003
