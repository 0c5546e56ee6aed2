from __future__ import annotations

import csv
import datetime as dt
import io
import json
import sys
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from gpuhub import Engine, PluginError
from gpuhub.cli.commands import app
from gpuhub.fetch.plugins import reset_registry
from gpuhub.kit.testing import make_engine
from gpuhub.service.searching import reset_default_engine

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "fakecloud"
runner = CliRunner()


def test_search_json_has_documented_keys_and_status_on_stderr(global_engine: Engine) -> None:
    result = runner.invoke(app, ["search", "--gpu", "H100", "--format", "json", "--all-regions", "-v"])
    assert result.exit_code == 0, result.output
    offers = json.loads(result.stdout)
    assert [(o["instance_type"], o["region"], o["price_per_hour"], o["gpu_count"]) for o in offers] == [
        ("h100x8", "eu-central-1", 23.92, 8), ("h100x8", "us-east-1", 23.92, 8)]
    age = (dt.datetime.now(dt.timezone.utc).date() - dt.date(2026, 11, 30)).days
    assert (f"fakecloud: ok, 7 offers (reconstructed recording, data of 2026-11-30 ({age} day"
            f"{'' if age == 1 else 's'} old)), 1 warning, 2 records skipped") in result.stderr


def test_search_table_and_csv(global_engine: Engine) -> None:
    table = runner.invoke(app, ["search", "--gpu", "A100-80GB"])
    assert table.exit_code == 0 and "a100x8-80" in table.stdout and "14.32 EUR" in table.stdout
    out = runner.invoke(app, ["search", "--purchase", "spot", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert [(r["instance_type"], r["price_per_hour"], r["price_per_gpu_hour"]) for r in rows] == [
        ("8x_A4000", "1.60", "0.2")]  # the price as published, not 1.6


def test_bad_arguments_exit_2_with_the_argument_named(global_engine: Engine) -> None:
    result = runner.invoke(app, ["search", "--purchase", "cheap"])
    assert result.exit_code == 2
    assert "--purchase: 'cheap' is not allowed; allowed values: on_demand, spot" in result.stderr
    result = runner.invoke(app, ["search", "--gpu", "H1000"])
    assert result.exit_code == 2 and "Did you mean: H100" in result.stderr
    result = runner.invoke(app, ["search", "--min-gpus", "lots"])
    assert result.exit_code == 2


def test_empty_result_explains_itself(global_engine: Engine) -> None:
    result = runner.invoke(app, ["search", "--gpu", "H100", "--max-price", "5"])
    assert result.exit_code == 0 and "--max-price removed 2" in result.stderr


def test_plugins_providers_gpus(global_engine: Engine) -> None:
    plugins = json.loads(runner.invoke(app, ["plugins", "--format", "json"]).stdout)
    assert {(p["name"], p["status"]) for p in plugins} == {("builtin", "loaded"), ("fakecloud", "loaded")}
    providers = json.loads(runner.invoke(app, ["providers", "--format", "json"]).stdout)
    assert providers[0]["provider"] == "fakecloud" and providers[0]["credentials"] == "not set"
    assert providers[0]["data"].startswith("replay ")
    gpus = json.loads(runner.invoke(app, ["gpus", "--format", "json"]).stdout)
    h100 = next(g for g in gpus if g["name"] == "H100" and g["form_factor"] == "SXM")
    assert h100["memory_gib"] == 80 and h100["bf16_tflops"] == 989.5


def test_record_command(global_engine: Engine, tmp_path: Path) -> None:
    def live(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        return httpx.Response(200, content=(FIXTURES / f"page{page}.json").read_bytes(),
                              headers={"content-type": "application/json"})

    engine = make_engine(global_engine.registry, transport=httpx.MockTransport(live),
                         environ={"FAKECLOUD_TOKEN": "secret-token-123"})
    reset_registry(engine.registry)
    reset_default_engine(engine)
    result = runner.invoke(app, ["record", "fakecloud", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "recorded 7 offers" in result.stdout
    assert "secret-token-123" not in (tmp_path / "fakecloud" / "manifest.json").read_text()
    bad = runner.invoke(app, ["record", "nocloud"])
    assert bad.exit_code == 2 and "allowed values: fakecloud" in bad.stderr


def test_version() -> None:
    assert runner.invoke(app, ["--version"]).stdout.strip() == "gpuhub 0.1.0"


def test_strict_mode_error_is_clean(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import gpuhub.cli.commands

    def strict() -> None:
        raise PluginError("plugin broken (gpuhub-broken 1.0): import failed: ModuleNotFoundError; fix: reinstall")

    monkeypatch.setattr(gpuhub.cli.commands, "get_registry", strict)
    monkeypatch.setattr(sys, "argv", ["gpuhub", "search"])
    with pytest.raises(SystemExit) as info:
        gpuhub.cli.commands.main()
    assert info.value.code == 1
    err = capsys.readouterr().err
    assert "error: plugin broken" in err and "gpuhub plugins" in err and "Traceback" not in err


def test_empty_result_prints_no_table(global_engine: Engine, tmp_path: Path) -> None:
    result = runner.invoke(app, ["search", "--fixtures", str(tmp_path)])
    assert result.exit_code == 1 and result.stdout == ""
    assert "no offers match" in result.stderr and "fakecloud: skipped: no recording" in result.stderr
    bad = runner.invoke(app, ["search", "--timeout", "-1"])
    assert bad.exit_code == 2 and "--timeout: must be a positive number" in bad.stderr
