"""``history --plot``/``--chart`` on a first run (issue 23 items 5 and 6): without the charts extra one line naming
the install command and exit code 2, never a traceback; snapshots seconds apart draw an axis of minutes."""

from __future__ import annotations

import datetime as dt
import re
import sys
from pathlib import Path

import pytest
from synth import offer, put
from typer.testing import CliRunner

from gpuhub.cli.commands import app
from gpuhub.history.log import close_history

runner = CliRunner()


@pytest.fixture
def seconds_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dt.datetime:
    """A store holding two Lambda refreshes 10 s apart, just now (8 x H100 at 23.92, then 21.50)."""
    from gpuhub.store import open_store

    location = str(tmp_path / "store")
    monkeypatch.setenv("GPUHUB_STORE", location)
    monkeypatch.setenv("GPUHUB_CACHE_DIR", str(tmp_path / "cache"))
    store = open_store(location)
    assert store is not None
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    put(store, "lambda", [offer("lambda", "gpu_8x_h100", "us-east-1", "23.92")], now - dt.timedelta(seconds=20))
    put(store, "lambda", [offer("lambda", "gpu_8x_h100", "us-east-1", "21.50")], now - dt.timedelta(seconds=10))
    close_history(store)
    store.close()
    return now


@pytest.mark.parametrize(("option", "module"), [("--plot", "plotext"), ("--chart", "matplotlib")])
def test_a_chart_without_the_charts_extra_says_what_to_install(seconds_apart: dt.datetime, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch, option: str,
                                                              module: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed: importing it fails
    args = ["history", "--since", "all", option, *([str(tmp_path / "h.png")] if option == "--chart" else [])]
    run = runner.invoke(app, args)
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr == (f"error: {option} needs the charts extra ({module} is missing): "
                          "pip install 'gpuhub-core[charts]'\n")
    assert not isinstance(run.exception, ModuleNotFoundError)


def test_snapshots_seconds_apart_plot_an_axis_of_minutes(seconds_apart: dt.datetime) -> None:
    pytest.importorskip("plotext")
    run = runner.invoke(app, ["history", "--since", "all", "--plot"])
    assert run.exit_code == 0, run.output
    years = {int(y) for y in re.findall(r"\b(19\d\d|20\d\d)-\d\d-\d\d", run.stdout)}
    assert years and years <= {seconds_apart.year, (seconds_apart + dt.timedelta(minutes=3)).year}, run.stdout
    assert "21.5" in run.stdout or "21.50" in run.stdout
