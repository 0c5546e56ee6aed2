"""Every table command on an 80-column terminal (an ML engineer's laptop terminal or tmux pane), on the bundled
recordings and the GPU table: no line wider than the terminal, no cell cut with "…", a name broken only between
words, numbers and prices whole, and the columns that did not fit named under the table on stderr with the way to
see them (``gpuhub.cli.table.print_fitted``, the search table's rule)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from engines import bundled_market
from typer.testing import CliRunner

from gpuhub import Engine
from gpuhub.cli.commands import app

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


@pytest.fixture(scope="module")
def bundled() -> Iterator[Engine]:
    """Every installed plugin replaying its bundled recording, as the process-wide engine."""
    with bundled_market() as engine:
        yield engine


def _run(args: list[str], width: int = 80) -> tuple[str, str]:
    run = runner.invoke(app, args, env={"COLUMNS": str(width)})
    assert run.exit_code == 0, run.output
    return run.stdout, run.stderr


def _layout(text: str, anchor: str, width: int = 80) -> tuple[list[str], list[list[str]]]:
    """The headings and the rows of a table as printed (a row's wrapped lines joined per column: words with a
    space); a row starts on the line where the ``anchor`` column (never wrapped) has a cell. Checks first that every
    line of the table fits ``width`` and that no cell was cut (a plan's lines of text after the table are text,
    wrapped by the terminal)."""
    lines = text.splitlines()
    lines = lines[:max(i for i, line in enumerate(lines) if "│" in line) + 1]
    assert lines and max(len(line) for line in lines) <= width, text
    assert "…" not in text
    rule = next(i for i, line in enumerate(lines) if line.startswith("━"))
    parts = [[cell.strip() for cell in line.split("┃")] for line in lines[:rule]]
    headings = [" ".join(p[i] for p in parts if p[i]) for i in range(len(parts[0]))]
    at = headings.index(anchor)
    rows: list[list[list[str]]] = []
    for line in lines[rule + 1:]:
        cells = [c.strip() for c in line.split("│")]
        assert len(cells) == len(headings), line
        if cells[at]:
            rows.append([[] for _ in headings])
        for i, cell in enumerate(cells):
            if cell:
                rows[-1][i].append(cell)
    return headings, [[" ".join(pieces) for pieces in row] for row in rows]


def test_gpus_keeps_name_form_memory_and_bf16_and_names_what_it_left_out(bundled: Engine) -> None:
    out, notes = _run(["gpus"])
    headings, rows = _layout(out, "GiB")
    assert headings == ["name", "form", "GiB", "BF16 TFLOPS", "CC", "FP8", "MIG", "CUDA"]
    assert notes.splitlines()[-1] == ("left out at 80 columns: vendor; FP64 TFLOPS; aliases (--wide, --format csv "
                                      "or a wider terminal shows them)")
    # an H100 SXM and an H100 PCIe: the form tells them apart; memory, dense BF16 and CUDA whole
    assert ["H100", "SXM", "80", "989.5", "9.0", "yes", "yes", "11.8+"] in rows
    assert ["H100", "PCIe", "80", "756", "9.0", "yes", "yes", "11.8+"] in rows
    assert ["B200", "SXM", "180", "2250", "10.0", "yes", "yes", "12.8+"] in rows
    assert ["GB200", "Superchip", "186", "2500", "10.0", "yes", "yes", "12.8+"] in rows
    assert len(rows) == len(json.loads(_run(["gpus", "--format", "json"])[0]))


def test_gpus_wide_shows_every_column_and_aliases_wrap_between_words(bundled: Engine) -> None:
    out, notes = _run(["gpus", "--wide"], width=200)
    headings, rows = _layout(out, "GiB", width=200)
    assert headings == ["name", "vendor", "form", "GiB", "BF16 TFLOPS", "FP64 TFLOPS", "CC", "FP8", "MIG", "CUDA",
                        "aliases"]
    assert "left out" not in notes
    h100 = next(r for r in rows if r[:3] == ["H100", "NVIDIA", "SXM"])
    assert h100[3:6] == ["80", "989.5", "34"]
    assert h100[-1] == ("H100, H100 SXM, H100-SXM5-80GB, H100 80GB HBM3, H100-MEGA, nvidia-h100-80gb, "
                        "nvidia-h100-mega-80gb, gpu_8x_h100_sxm5")


@pytest.mark.parametrize("args", [["gpus", "--wide"], ["search", "--gpu", "H100", "--fetch", "replay", "--wide"]])
def test_wide_on_a_narrow_terminal_is_wider_than_it_never_squeezed(bundled: Engine, args: list[str]) -> None:
    """Every column asked for on 80 columns: the table takes what its narrowest columns need (the terminal wraps
    the lines, ``less -S`` scrolls them) instead of squeezing headings and figures into one-letter columns."""
    out, _ = _run(args)
    width = max(len(line) for line in out.splitlines())
    assert width > 80
    headings, rows = _layout(out, "GiB" if args[0] == "gpus" else "per hour", width)
    if args[0] == "gpus":
        assert len(headings) == 11 and "nvidia-h100-mega-80gb," in next(r for r in rows if r[0] == "H100")[-1]
    else:
        assert headings[:4] == ["provider", "instance type", "region", "GPUs"] and "RAM GiB" in headings
        assert [r[headings.index("per hour")] for r in rows][:3] == ["0.8015 USD", "0.8015 USD", "0.9494 USD"]


def test_gpus_csv_is_unchanged_by_the_width(bundled: Engine) -> None:
    assert _run(["gpus", "--format", "csv"], width=80) == _run(["gpus", "--format", "csv"], width=240)


def test_providers_keeps_the_name_credentials_and_data(bundled: Engine) -> None:
    out, notes = _run(["providers"])
    headings, rows = _layout(out, "credentials")
    assert headings == ["provider", "credentials", "data"]
    assert notes.splitlines()[-1] == "left out at 80 columns: kind; plugin (--wide or a wider terminal shows them)"
    assert ["hyperstack", "none needed", "static price table"] in rows
    assert ["coreweave", "none needed", "static price table"] in rows
    # a recording's path has no spaces: it folds, and nothing of it is lost
    data = {r["provider"]: r["data"] for r in json.loads(_run(["providers", "--format", "json"])[0])}
    aws = next(r for r in rows if r[0] == "aws")
    assert aws[1] == "not set" and aws[2].startswith("replay ")
    assert aws[2].replace(" ", "") == data["aws"].replace(" ", "")
    assert data["aws"].endswith("gpuhub_aws/recording")
    assert [r[0] for r in rows] == sorted(data)


def test_plugins_keeps_every_name_whole(bundled: Engine) -> None:
    out, notes = _run(["plugins"])
    headings, rows = _layout(out, "status")
    assert headings == ["plugin", "version", "status", "providers", "error / fix"]
    assert notes.splitlines()[-1] == "left out at 80 columns: distribution (--wide or a wider terminal shows them)"
    assert ["primeintellect", "0.1.0", "loaded", "primeintellect", ""] in rows  # was "primeintelle…"
    assert ["hyperstack", "0.1.0", "loaded", "hyperstack", ""] in rows
    wide, notes = _run(["plugins", "--wide"], width=100)
    assert "left out" not in notes
    assert ["primeintellect", "gpuhub-primeintellect", "0.1.0", "loaded", "primeintellect", ""] in _layout(
        wide, "status", width=100)[1]


@pytest.mark.parametrize("width", [80, 70, 60])
def test_search_breaks_a_provider_or_region_only_between_words(bundled: Engine, width: int) -> None:
    out, notes = _run(["search", "--gpu", "H100", "--fetch", "replay"], width=width)
    headings, rows = _layout(out, "per hour", width)
    records = json.loads(_run(["search", "--gpu", "H100", "--fetch", "replay", "--format", "json"])[0])
    channels = [r["seller"] + (f" via {r['via']}" if r["via"] else "") for r in records]
    assert [r[headings.index("provider")] for r in rows] == channels  # "hyperstack", never "hypersta" + "ck"
    assert "hyperstack via primeintellect" in channels
    assert [r[headings.index("per hour")] for r in rows][:3] == ["0.8015 USD", "0.8015 USD", "0.9494 USD"]
    dropped = re.search(rf"left out at {width} columns: (.*) \(--wide, --columns or a wider terminal shows them\)",
                        notes)
    assert dropped is not None
    assert set(dropped.group(1).split("; ")) | set(headings) >= {"per hour", "per GPU-hour", "GPUs", "provider",
                                                                 "instance type", "region", "purchase"}
    if "region" in headings:  # "ap-southeast-3 (apse3-az1) +3 regions": each code whole
        assert rows[2][headings.index("region")] == "ap-southeast-3 (apse3-az1) +3 regions"


def test_estimate_compare_keeps_every_figure(bundled: Engine) -> None:
    out, notes = _run(["estimate", "--instance-type", "p5.48xlarge", "--hours", "100", "--compare", "--fetch",
                       "replay"])
    headings, rows = _layout(out, "job cost")
    assert headings == ["purchase", "provider", "region", "per hour", "job cost", "break-even h"]
    assert "left out at 80 columns: how (--format json or a wider terminal shows them)" in notes
    assert ["spot", "aws", "ap-southeast-3 (apse3-az1)", "7.5955", "835.51 USD", "-"] in rows
    assert ["on_demand", "aws", "us-east-1", "55.04", "5504.00 USD", "-"] in rows
    wide, notes = _run(["estimate", "--instance-type", "p5.48xlarge", "--hours", "100", "--compare", "--fetch",
                        "replay"], width=160)
    headings, rows = _layout(wide, "job cost", width=160)
    assert headings[-1] == "how" and "left out" not in notes
    assert ["on_demand", "aws", "us-east-1", "55.04", "5504.00 USD", "-", "55.04 × 100 h billed"] in rows


def test_plan_arbitrage_wraps_names_between_words(bundled: Engine) -> None:
    out, notes = _run(["plan", "arbitrage", "--instance-type", "p5.48xlarge", "--gpus", "8", "--hours-per-day", "12",
                       "--days-per-week", "5", "--from", "ap-southeast-3", "--limit", "5", "--fetch", "replay"])
    headings, rows = _layout(out, "saving/month")
    assert headings == ["provider", "region", "instance type", "per hour", "per month USD", "saving/month"]
    assert "left out" not in notes
    assert rows[0] == ["aws", "us-east-1", "p5.48xlarge", "55.04", "14,349.71", "5,452.90"]
    assert rows[-1] == ["aws (from)", "ap-southeast-3", "p5.48xlarge", "75.9552", "19,802.61", "0.00"]


def test_plan_commitments_gives_way_and_says_so(bundled: Engine) -> None:
    out, notes = _run(["plan", "commitments", "--gpu", "A100-80GB", "--profile",
                       str(ROOT / "docs" / "examples" / "week-profile.csv"), "--provider", "azure",
                       "--gpus-per-instance", "2", "--months", "12", "--fetch", "replay"])
    headings, rows = _layout(out, "per month USD")
    assert headings == ["option", "purchase", "provider", "instances", "per month USD"]
    assert ("left out at 80 columns: region; instance type; h/month; per hour (--format csv or a wider terminal "
            "shows them)") in notes
    assert ["all low_priority (work not interruptible)", "low_priority", "azure", "2", "1,837.03"] in rows
    assert ["mix total", "on_demand+savings_plan_1y", "", "2", "6,952.46"] in rows


def _gpuhub(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gpuhub.cli", *args], capture_output=True, text=True, env=env,
                          timeout=180, check=False)


@pytest.fixture(scope="module")
def lambda_store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A store holding two lambda refreshes: the bundled recording, then the same with gpu_8x_h100_sxm5 at 21.50
    instead of 23.92 an hour (the README's first refresh); the environment that reads it at 80 columns."""
    tmp = tmp_path_factory.mktemp("narrow")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "AZURE_", "GOOGLE_", "LAMBDA_", "KUBE",
                                                                     "GPUHUB_"))}
    env |= {"GPUHUB_STORE": str(tmp / "store"), "GPUHUB_CACHE_DIR": str(tmp / "cache"), "COLUMNS": "80"}
    assert _gpuhub(["search", "--provider", "lambda", "--fetch", "replay", "--limit", "1"], env).returncode == 0
    shutil.copytree(ROOT / "plugins" / "gpuhub-lambda" / "gpuhub_lambda" / "recording", tmp / "rec" / "lambda")
    body = tmp / "rec" / "lambda" / "instance-types.json"
    body.write_text(re.sub(r'"price_cents_per_hour": 2392\b', '"price_cents_per_hour": 2150', body.read_text()))
    done = _gpuhub(["search", "--provider", "lambda", "--fixtures", str(tmp / "rec"), "--fetch", "replay",
                    "--limit", "1"], env)
    assert done.returncode == 0, done.stderr
    return env


def test_history_keeps_the_series_and_its_last_price(lambda_store: dict[str, str]) -> None:
    run = _gpuhub(["history", "--since", "all", "--gpu", "H100"], lambda_store)
    assert run.returncode == 0, run.stderr
    headings, rows = _layout(run.stdout, "last")
    # a spheron label's longest word is 47 characters: broken only between words, the label leaves no room for
    # the lowest price, which gives way, and the note says so
    assert headings == ["offer", "max", "last", "currency"]
    assert ("left out at 80 columns: changes; first; min; median (--wide, --format csv or a wider terminal shows "
            "them)") in run.stderr
    assert ["spheron H100_668d6762247d03149a4c9474_montreal-canada-2 montreal-canada-2 on_demand", "2.508", "2.508",
            "USD"] in rows
    assert ["primeintellect hyperstack__1xH100_80GB__28__180 CANADA-1 on_demand", "1.90", "1.90", "USD"] in rows
    one = _gpuhub(["history", "--since", "all", "--instance-type", "gpu_8x_h100_sxm5", "--region", "us-east-1"],
                  lambda_store)
    headings, rows = _layout(one.stdout, "last")
    assert headings == ["offer", "min", "max", "last", "currency"]
    assert rows == [["lambda gpu_8x_h100_sxm5 us-east-1 on_demand", "21.50", "23.92", "21.50", "USD"]]
    assert ("left out at 80 columns: changes; first; median (--wide, --format csv or a wider terminal shows them)"
            in one.stderr)
    every = _gpuhub(["history", "--since", "all", "--instance-type", "gpu_8x_h100_sxm5", "--region", "us-east-1",
                     "--wide"], lambda_store)
    headings, rows = _layout(every.stdout, "last")
    assert headings == ["offer", "changes", "first", "min", "median", "max", "last", "currency"]
    assert rows == [["lambda gpu_8x_h100_sxm5 us-east-1 on_demand", "1", "23.92", "21.50", "22.71", "23.92", "21.50",
                     "USD"]]  # the label wraps between words
    assert "left out" not in every.stderr
    points = _gpuhub(["history", "--since", "all", "--instance-type", "gpu_8x_h100_sxm5", "--region", "us-east-1",
                      "--points"], lambda_store)
    headings, rows = _layout(points.stdout, "price/h")
    assert headings == ["at (UTC)", "series", "price/h", "currency"]
    assert [r[1:] for r in rows] == [["lambda gpu_8x_h100_sxm5 us-east-1 on_demand H100", price, "USD"]
                                     for price in ("23.92", "21.50")]


def test_diff_keeps_the_offer_its_region_and_both_prices(lambda_store: dict[str, str]) -> None:
    run = _gpuhub(["diff"], lambda_store)
    assert run.returncode == 0, run.stderr
    headings, rows = _layout(run.stdout, "new/h")
    # "primeintellect" and "montreal-canada-2" whole leave no room for the change and the % (the prices say both)
    assert headings == ["provider", "instance type", "region", "purchase", "old/h", "new/h"]
    assert "left out at 80 columns: change; GPU; % (--wide, --format json or a wider terminal shows them)" in run.stderr
    lowered = [r for r in rows if r[1].replace(" ", "") == "gpu_8x_h100_sxm5"]
    assert len(lowered) == 17 and len({r[2] for r in lowered}) == 17  # one row per region, each named
    assert ["lambda", "us-east-1", "on_demand", "23.92", "21.50"] in [[r[0], *r[2:]] for r in lowered]
    everything = _gpuhub(["diff", "--wide"], lambda_store | {"COLUMNS": "160"})
    headings, rows = _layout(everything.stdout, "new/h", width=160)
    assert headings == ["change", "provider", "instance type", "region", "purchase", "GPU", "old/h", "new/h", "%"]
    assert ["down", "lambda", "gpu_8x_h100_sxm5", "us-east-1", "on_demand", "H100", "23.92", "21.50", "-10.12"] in rows


def test_store_show_keeps_the_snapshot_and_its_state(lambda_store: dict[str, str]) -> None:
    run = _gpuhub(["store", "show"], lambda_store)
    assert run.returncode == 0, run.stderr
    headings, rows = _layout(run.stdout, "id")
    assert headings == ["provider", "id", "age", "data date", "offers", "size", "state"]
    assert "left out at 80 columns: source kind (--format json or a wider terminal shows them)" in run.stderr
    assert sorted((r[0], r[4], r[6]) for r in rows) == [
        ("lambda", "340", "complete"), ("lambda", "340", "complete"), ("primeintellect", "115", "complete"),
        ("shadeform", "259", "complete"), ("spheron", "156", "complete")]


def test_history_says_when_no_price_has_changed_yet(lambda_store: dict[str, str], tmp_path: Path) -> None:
    # the lambda store's second refresh changed gpu_8x_h100_sxm5 in us-east-1: a window with it says nothing more
    changed = _gpuhub(["history", "--since", "all", "--instance-type", "gpu_8x_h100_sxm5"], lambda_store)
    assert changed.returncode == 0 and "no price has changed" not in changed.stderr
    # a store with one refresh (a fresh install after its first search): every series holds one price
    fresh = {**lambda_store, "GPUHUB_STORE": str(tmp_path / "store")}
    assert _gpuhub(["search", "--provider", "lambda", "--fetch", "replay", "--limit", "1"], fresh).returncode == 0
    first = _gpuhub(["history", "--provider", "lambda", "--limit", "2"], fresh)
    assert first.returncode == 0, first.stderr
    assert ("no price has changed in this window: each series holds one price so far; history grows with each "
            "refresh of the store (gpuhub search --refresh, e.g. from a cron job)") in " ".join(first.stderr.split())
    assert "2 of " in first.stderr and "from 1 snapshot\n" in first.stderr


def test_a_network_filter_keeps_its_column_before_the_region(bundled: Engine) -> None:
    # --fabric infiniband asks about the network: at 95 columns per GPU-hour and region give way, the fabric stays
    out, err = _run(["search", "--gpu", "H100", "--nodes", "2", "--fabric", "infiniband", "--limit", "3"], 95)
    headings, rows = _layout(out, "per hour", 95)
    assert headings == ["provider", "instance type", "GPUs", "purchase", "per hour", "network, fabric, local disk",
                        "2 nodes per hour"]
    assert "left out at 95 columns: per GPU-hour; region (--wide" in err
    assert rows[0][0] == "coreweave" and rows[0][4] == "19.71 USD" and rows[0][6] == "39.42 USD"
    assert "InfiniBand" in rows[0][5]
