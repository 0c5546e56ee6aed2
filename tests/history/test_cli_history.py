"""The history, diff, watch and catalog commands through the CLI, on both store backends."""

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


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_env(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """GPUHUB_STORE set to a store holding three lambda refreshes (a price drop, a new B200 region, a failure)."""
    from gpuhub.store import open_store

    location = str(tmp_path / "store") if request.param == "sqlite" else str(request.getfixturevalue("pg_url"))
    monkeypatch.setenv("GPUHUB_STORE", location)
    monkeypatch.setenv("GPUHUB_CACHE_DIR", str(tmp_path / "cache"))
    store = open_store(location)
    assert store is not None
    put(store, "lambda", [offer("lambda", "gpu_8x_h100", "us-east-1", "23.92"),
                          offer("lambda", "gpu_1x_a100", "us-east-1", "1.29", gpu="A100", count=1)], T0)
    put(store, "lambda", [offer("lambda", "gpu_8x_h100", "us-east-1", "21.50"),
                          offer("lambda", "gpu_1x_a100", "us-east-1", "1.29", gpu="A100", count=1),
                          offer("lambda", "gpu_1x_b200", "us-west-1", "4.99", gpu="B200", count=1)], T0 + H)
    close_history(store)
    store.close()
    return location


def test_history_table_json_csv_and_charts(store_env: str, tmp_path: Path) -> None:
    table = runner.invoke(app, ["history", "--since", "all", "--gpu", "H100"])
    assert table.exit_code == 0, table.output
    assert "lambda gpu_8x_h100 us-east-1 on_demand" in table.stdout
    row = next(line for line in table.stdout.splitlines() if "gpu_8x_h100" in line)
    assert [x for x in row.split() if x != "│"][-7:] == ["1", "23.92", "21.50", "22.71", "23.92", "21.50", "USD"]
    data = json.loads(runner.invoke(app, ["history", "--since", "all", "-f", "json",
                                          "--instance-type", "gpu_8x_h100"]).stdout)
    assert [(p["at"], p["price_per_hour"]) for p in data["points"]] == [
        ("2026-11-01T00:00:00+00:00", 23.92), ("2026-11-01T01:00:00+00:00", 21.5)]
    csv_out = runner.invoke(app, ["history", "--since", "all", "-f", "csv", "--points", "--provider", "lambda"])
    assert csv_out.stdout.splitlines()[0].startswith("provider,instance_type,region,zone,purchase,currency,term,")
    assert len(csv_out.stdout.splitlines()) == 1 + 4  # h100 twice, a100 once, b200 once
    png, svg = tmp_path / "h.png", tmp_path / "h.svg"
    drawn = runner.invoke(app, ["history", "--since", "all", "--plot", "--chart", str(png)])
    assert drawn.exit_code == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "price per hour" in drawn.stdout and "┤" in drawn.stdout
    assert runner.invoke(app, ["history", "--since", "all", "--chart", str(svg)]).exit_code == 0
    assert b"<svg" in svg.read_bytes()[:400]
    bad = runner.invoke(app, ["history", "--since", "yesterday"])
    assert bad.exit_code == 2 and "--since" in bad.stderr


def test_diff_and_watch_exit_codes(store_env: str) -> None:
    shown = runner.invoke(app, ["diff"])
    assert shown.exit_code == 0, shown.output
    line = [x for x in next(x for x in shown.stdout.splitlines() if "gpu_8x_h100" in x).split() if x != "│"]
    assert line[0] == "down" and line[-3:] == ["23.92", "21.50", "-10.12"]
    assert "1 cheaper, 0 dearer, 1 new, 0 gone, 1 unchanged" in shown.stderr
    assert "lambda: GPU types appeared: B200" in shown.stderr and "lambda: regions appeared: us-west-1" in shown.stderr
    as_json = json.loads(runner.invoke(app, ["diff", "-f", "json"]).stdout)
    assert as_json["counts"] == {"up": 0, "down": 1, "new": 1, "gone": 0, "unchanged": 1}
    matched = runner.invoke(app, ["watch", "--drop", "10%", "--gpu", "H100"])
    assert matched.exit_code == 1
    report = json.loads(matched.stdout)
    assert report["matched"] and [(m["rule"], m["new_price_per_hour"]) for m in report["matches"]] == [("drop", 21.5)]
    assert runner.invoke(app, ["watch", "--drop", "15%"]).exit_code == 0
    assert runner.invoke(app, ["watch", "--below", "5", "--new-gpu", "B300"]).exit_code == 1  # B200 at 4.99 is new
    assert runner.invoke(app, ["watch", "--new-gpu", "B300"]).exit_code == 0
    assert runner.invoke(app, ["watch", "--new-gpu", "B200"]).exit_code == 1
    nothing = runner.invoke(app, ["watch"])
    assert nothing.exit_code == 2 and "at least one threshold" in nothing.stderr
    assert runner.invoke(app, ["watch", "--drop", "ten"]).exit_code == 2
