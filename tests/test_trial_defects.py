"""What fresh-user trials found (session 5), each through the public CLI, ``gpuhub.search()`` or the web page, and each
failing before its fix."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
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
    (("estimate", "--instance-type", "p5.48xlarge", "--hours", "-1", "--compare"),
     "error: --hours: must be a positive number of hours, got -1\n"),
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


def test_a_wrong_catalog_url_is_one_line_and_the_bundled_data_answers(tmp_path: Path) -> None:
    # Was: every provider "failed" with the same long message, and nothing was found.
    missing = tmp_path / "no-catalog"
    run = runner.invoke(app, ["search", "--gpu", "H100", "--provider", "lambda", "--limit", "1", "--format", "json"],
                        env={"GPUHUB_CATALOG_URL": str(missing)})
    assert run.exit_code == 0, run.stderr
    line = (f"gpuhub: GPUHUB_CATALOG_URL='{missing}' is not a usable catalog (cannot read {missing}/catalog.json: No "
            "such file or directory); searching the bundled data instead\n")
    assert run.stderr.splitlines(keepends=True)[0] == line and run.stderr.count("GPUHUB_CATALOG_URL") == 1
    assert "failed" not in run.stderr and run.stderr.endswith(" providers ok, 4 with warnings; -v for details\n")
    [offer] = json.loads(run.stdout)
    assert (offer["provider"], offer["instance_type"], offer["price_per_hour"], offer["source"]) == (
        "lambda", "gpu_1x_h100_pcie", 2.49, "replay:lambda@undated")
    not_a_catalog = tmp_path / "not-a-catalog"
    not_a_catalog.mkdir()
    (not_a_catalog / "catalog.json").write_text('{"hello": 1}')
    run = runner.invoke(app, ["search", "--gpu", "H100", "--provider", "lambda", "--limit", "1"],
                        env={"GPUHUB_CATALOG_URL": str(not_a_catalog)})
    assert run.exit_code == 0 and run.stderr.splitlines()[0] == (
        f"gpuhub: GPUHUB_CATALOG_URL='{not_a_catalog}' is not a usable catalog ({not_a_catalog}/catalog.json is not "
        "a valid format-1 gpuhub catalog manifest: format: Field required; version: Field required; providers: "
        "Field required); searching the bundled data instead"), run.stderr


def test_a_bad_number_setting_is_said_once_with_the_value_used() -> None:
    # Was: GPUHUB_FRESH_SPOT_S=abc logged to the engine's logger, which the command line quiets; GPUHUB_PLUGIN_TIMEOUT=x
    # and GPUHUB_CATALOG_TTL=x were silently replaced.
    env = {**os.environ, "GPUHUB_FRESH_SPOT_S": "abc", "GPUHUB_FRESH_ON_DEMAND_S": "-5", "GPUHUB_PLUGIN_TIMEOUT": "x",
           "GPUHUB_STORE_KEEP": "2.5"}
    run = subprocess.run([sys.executable, "-m", "gpuhub.cli", "search", "--gpu", "H100", "--provider", "lambda",
                          "--limit", "1", "--fetch", "replay"], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    said = [line for line in run.stderr.splitlines() if line.startswith("gpuhub: GPUHUB_")]
    assert sorted(said) == [
        "gpuhub: GPUHUB_FRESH_ON_DEMAND_S='-5' is not a number of seconds (0 or more); using 3600",
        "gpuhub: GPUHUB_FRESH_SPOT_S='abc' is not a number of seconds (0 or more); using 600",
        "gpuhub: GPUHUB_PLUGIN_TIMEOUT='x' is not a number of seconds (more than 0); using 10",
        "gpuhub: GPUHUB_STORE_KEEP='2.5' is not a whole number of snapshots per provider (0 or more); using 50",
    ], run.stderr


INSTALLED = ("aws, azure, coreweave, cudo, daytona, gcp, hyperbolic, hyperstack, jarvislabs, kubernetes, lambda, lium, "
             "mithril, nebius, oci, primeintellect, runpod, seeweb, shadeform, slurm, spheron, vast, verda, yotta")


@pytest.mark.parametrize("args", [("diff",), ("watch", "--new-offers")])
def test_diff_and_watch_refuse_an_unknown_provider(args: tuple[str, ...]) -> None:
    # Was: exit 0 and "0 cheaper, 0 dearer, 0 new, 0 gone, 0 unchanged", as if nothing had changed.
    run = runner.invoke(app, [*args, "--provider", "nope"])
    assert run.exit_code == 2
    assert run.stderr == f"error: --provider: 'nope' is not allowed; allowed values: {INSTALLED}\n"
    assert run.stdout == ""


@pytest.mark.parametrize(("typed", "near"), [
    # Was: "near: unknown place 'München'. Close matches: incheon, yancheng, munich."
    ("München", ("Munich (DE)", 48.1374, 11.5755)), ("MÜNCHEN", ("Munich (DE)", 48.1374, 11.5755)),
    ("Cologne", ("Köln (DE)", 50.9333, 6.95)), ("Genève", ("Geneva (CH)", 46.2022, 6.1457)),
    ("Genf", ("Geneva (CH)", 46.2022, 6.1457)), ("Wien", ("Vienna (AT)", 48.2085, 16.3721)),
    ("Praha", ("Prague (CZ)", 50.088, 14.4208)), ("Warszawa", ("Warsaw (PL)", 52.2298, 21.0118)),
    ("Lisboa", ("Lisbon (PT)", 38.7251, -9.1498)), ("Roma", ("Rome (IT)", 41.8919, 12.5113)),
    ("Bruxelles", ("Brussels (BE)", 50.8505, 4.3488)),
    ("København", ("Copenhagen (DK)", 55.6759, 12.5655)), ("Bucureşti", ("Bucharest (RO)", 44.4323, 26.1063)),
    ("Ciudad de México", ("Mexico City (MX)", 19.4285, -99.1277)), ("Hà Nội", ("Hanoi (VN)", 21.0245, 105.8412)),
])
def test_near_takes_a_city_by_its_own_name(typed: str, near: tuple[str, float, float]) -> None:
    result = gpuhub.search(near=typed, gpu="H100", provider="lambda", limit=1, fetch="replay")
    assert result.query.near == near


def test_near_munchen_on_the_command_line_is_munich() -> None:
    native = runner.invoke(app, ["search", "--near", "München", "--gpu", "H100", "--limit", "3", "--fetch", "replay"])
    english = runner.invoke(app, ["search", "--near", "Munich", "--gpu", "H100", "--limit", "3", "--fetch", "replay"])
    assert native.exit_code == 0 and english.exit_code == 0, native.stderr
    assert native.stdout == english.stdout and "score (USD per hour, distance-adjusted)" in native.stdout


def test_a_v100_trains_at_fp16_in_its_explanation() -> None:
    # Was: "8 × V100 at 0.0008824 USD per effective BF16 TFLOP-hour" and "training runs at BF16 speed and memory";
    # Volta has no BF16: the score counts its 125 FP16 TFLOPS (GPU table), and FP8 falls back to FP16.
    run = runner.invoke(app, ["search", "--gpu", "V100", "--workload", "training", "--model", "7b", "--precision",
                              "fp8", "--mode", "training", "--limit", "1", "--explain", "--fetch", "replay"])
    assert run.exit_code == 0, run.stderr
    assert _lines(run.stderr, "1. ") == [
        "1. verda 8V100.48V FIN-03 (spot): 8 × V100 at 0.0008824 USD per effective FP16 TFLOP-hour; no grid "
        "carbon data for verda:FIN-03; interruption unknown (no source gives it): +15 % effective time assumed; "
        "warning: V100 has no FP8 (compute capability 7.0; FP8 needs 8.9 or "
        "newer): training runs at FP16 speed and memory; the model (109.5 GiB) must be split across 7 GPUs; "
        "price undated; the next, verda 8V100.48V in FIN-03 (on_demand), scores 73.9 % higher"]
    for gpu, half in (("T4", "FP16"), ("A100", "BF16")):  # Turing has no BF16 either; Ampere has
        best = gpuhub.search(gpu=gpu, workload="training", limit=1, fetch="replay").details(0)["explanation"]
        assert re.match(rf"\d+ × {gpu} at [0-9.]+ USD per effective {half} TFLOP-hour; ", best), best


def test_the_web_page_names_seller_via_source_as_the_cli_does() -> None:
    # Was: "primeintellect" in the page's provider column where the CLI table says "hyperstack via primeintellect".
    pytest.importorskip("starlette")
    pytest.importorskip("jinja2")
    from starlette.testclient import TestClient

    from gpuhub import Registry
    from gpuhub.fetch.plugins import reset_registry
    from gpuhub.kit.testing import make_engine
    from gpuhub.web.app import create_app

    engine = make_engine(Registry())
    reset_registry(engine.registry)
    reset_default_engine(engine)
    try:
        with TestClient(create_app(engine)) as client:
            page = client.get("/?gpu=H100&provider=primeintellect&limit=3")
        cli = runner.invoke(app, ["search", "--gpu", "H100", "--provider", "primeintellect", "--limit", "3",
                                  "--fetch", "replay"])
    finally:
        reset_default_engine(None)
        reset_registry(None)
        engine.shutdown()
    assert page.status_code == 200
    cells = re.findall(r'<td data-column="provider">([^<]*)</td>', page.text)
    assert cells == ["hyperstack via primeintellect", "verda via primeintellect", "nebius via primeintellect"]
    assert [line.split(" │ ")[0].strip() for line in cli.stdout.splitlines()[2:5]] == cells


def test_the_cli_benchmark_counts_installed_plugin_distributions(monkeypatch: pytest.MonkeyPatch) -> None:
    # Was: "25 plugins": every " loaded" row of `gpuhub plugins`, the core's built-in plugin among them.
    listing = runner.invoke(app, ["plugins", "--format", "json"])
    assert listing.exit_code == 0, listing.stderr
    rows = json.loads(listing.stdout)
    assert len([r for r in rows if r["status"] == "loaded"]) == 25  # builtin (gpuhub-core) + 24 distributions
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "bench"))
    try:
        import cli_bench

        assert cli_bench.plugin_distributions(listing.stdout) == 24
    finally:  # the bench's modules have generic names (generate, timing): none stays imported
        for name in ("cli_bench", "generate", "timing"):
            sys.modules.pop(name, None)


def test_an_infinite_bound_is_called_not_finite() -> None:
    run = runner.invoke(app, ["search", "--max-price", "inf"])
    assert run.exit_code == 2 and "--max-price: must be a finite number, 0 or more, got inf" in run.stderr


@pytest.mark.parametrize(("args", "said"), [
    (("estimate", "--instance-type", "p5.48xlarge", "--hours", "abc"),
     "Invalid value for '--hours': 'abc' is not a number"),
    (("history", "--limit", "1.5"), "Invalid value for '--limit': '1.5' is not a whole number"),
])
def test_a_typer_command_says_what_a_bad_number_is_as_search_does(args: tuple[str, ...], said: str) -> None:
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "gpuhub.cli", *args], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and said in " ".join(run.stderr.split()) and "Input should be" not in run.stderr
