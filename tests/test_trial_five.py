"""What the fresh-user trial of session 5 found, each through the public CLI or ``gpuhub.search()`` and each failing
before its fix: groups left out by ``--limit`` without a word, explanations that did not say whether an offer was
spot, a CUDA error that named 12.7 whatever was typed, a green summary over partial and outdated data, a model
that two nodes hold refused for not fitting on one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import gpuhub
from gpuhub.cli.commands import app
from gpuhub.cli.table import print_statuses

runner = CliRunner()


@pytest.fixture(autouse=True)
def _own_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUHUB_CACHE_DIR", str(tmp_path / "cache"))


def test_groups_left_out_by_limit_are_counted() -> None:
    # Was: "20 groups of 992 matching offers" while 41 groups matched (Azure, OCI and CoreWeave among those left out).
    run = runner.invoke(app, ["search", "--gpu", "H100", "--group-by", "gpu,provider", "--fetch", "replay"])
    assert run.exit_code == 0
    found = re.search(r"showing 20 of (\d+) groups of (\d+) matching offers \(--limit N shows more\)", run.stderr)
    assert found and int(found.group(1)) > 20, run.stderr
    every = gpuhub.search(gpu="H100", group_by=["gpu", "provider"], fetch="replay", limit=1000)
    assert every.groups is not None and len(every.groups) == int(found.group(1))
    assert sum(g.offers for g in every.groups) == int(found.group(2))
    as_json = runner.invoke(app, ["search", "--gpu", "H100", "--group-by", "gpu,provider", "--fetch", "replay",
                                  "--format", "json"])
    assert f"showing 20 of {found.group(1)} groups" in as_json.stderr  # JSON readers are told too
    whole = runner.invoke(app, ["search", "--gpu", "H100", "--group-by", "gpu", "--fetch", "replay"])
    assert "showing" not in whole.stderr and re.search(r"^1 groups of \d+ matching offers$", whole.stderr, re.M)


def test_an_explanation_names_the_offers_own_purchase_model() -> None:
    # Was: "1. spheron 1H100.80S.32V_FIN-03_1000 Finland 3: ..." - only the next offer's "(spot)" was said.
    run = runner.invoke(app, ["search", "--gpu", "H100", "--limit", "2", "--explain", "--fetch", "replay"])
    first = next(line for line in run.stderr.splitlines() if line.startswith("1. "))
    offer = gpuhub.search(gpu="H100", limit=1, fetch="replay").offers[0]
    assert first.startswith(f"1. {offer.instance.channel} {offer.instance_type} {offer.region.code} "
                            f"({offer.price.purchase}): ")
    # the line names the machine's channel as the table's provider column does (seller via source)
    assert offer.price.purchase == "spot" and first.startswith("1. verda via spheron 1H100.80S.32V_FIN-03_")


@pytest.mark.parametrize("version", ["99", "5", "12.11"])
def test_a_cuda_error_says_what_applies_to_the_version_typed(version: str) -> None:
    # Was: "(there is no 12.7; ...)" whatever was typed.
    run = runner.invoke(app, ["search", "--cuda", version, "--fetch", "replay"])
    assert run.exit_code == 2
    assert run.stderr.startswith(f"error: --cuda: '{version}' is not a CUDA release (the newest gpuhub knows is 13.5)")
    assert "12.7" not in run.stderr.split(";")[0]


class _Styles:
    def __init__(self) -> None:
        self.lines: list[tuple[str, Any]] = []

    def print(self, text: str, style: Any = None, **_: Any) -> None:
        self.lines.append((text, style))


def test_the_summary_is_green_only_when_every_provider_answered_fully() -> None:
    # Was: green over "2 partial (azure, gcp), ..., 3 outdated (aws, azure, gcp)".
    mixed = gpuhub.search(gpu="H100", fetch="replay", limit=1)
    assert any(s.partial for s in mixed.statuses) and any(s.outdated() for s in mixed.statuses)
    seen = _Styles()
    print_statuses(mixed, False, seen)  # type: ignore[arg-type]
    assert seen.lines[0][1] == "yellow" and "2 partial (azure, gcp)" in seen.lines[0][0]
    clean = gpuhub.search(gpu="H100", provider="lambda", fetch="replay", limit=1)
    assert all(not s.partial and not s.outdated() for s in clean.statuses if s.state == "ok")
    seen = _Styles()
    print_statuses(clean, False, seen)  # type: ignore[arg-type]
    assert seen.lines[0][1] == "green" and re.fullmatch(r"\d+ providers ok, \d+ with warnings; -v for details",
                                                        seen.lines[0][0]), seen.lines[0]


def test_a_model_that_two_nodes_hold_is_kept_with_nodes_2() -> None:
    """70B trained in BF16 needs 1,251.7 GiB: one 8 × 80 GiB node (640 GiB) does not hold it, two (1,280 GiB) do.
    Was: every 8 × H100 type removed ("611.7 GiB short") although the search asked for two nodes."""
    one = gpuhub.search(model="70b", mode="training", gpu="H100", provider="aws", fetch="replay", limit=None,
                        distinct=False)
    assert not one.offers
    two = gpuhub.search(model="70b", mode="training", gpu="H100", provider="aws", nodes=2, fabric="efa",
                        fetch="replay", limit=None, distinct=False)
    assert {o.instance_type for o in two} == {"p5.48xlarge"}  # 8 × 80 GiB with 3,200 Gbps EFA; p5.4xlarge: 1 GPU
    explanation = two.details(0)["explanation"]
    assert "2 nodes: 16 GPUs" in explanation


def test_a_result_repr_counts_partial_and_outdated_providers() -> None:
    # Was: "providers: 22 ok, 2 skipped" where the CLI says 20 ok, 2 partial, 3 outdated.
    text = repr(gpuhub.search(gpu="H100", fetch="replay", limit=5))
    told = re.search(r"providers: ([^;]*);", text)
    assert told is not None
    counts = dict((name, int(n)) for n, name in (part.split(" ") for part in told.group(1).split(", ")))
    assert counts["partial"] == 2 and counts["outdated"] == 3 and counts["skipped"] == 2 and counts["ok"] >= 18


def test_a_multi_node_table_at_80_columns_keeps_its_prices_readable_and_says_what_it_left_out() -> None:
    # Was: nine core columns folded to 4 characters each ("provi/der", "3,20/0 Gbps"), six rows in 110 lines.
    run = runner.invoke(app, ["search", "--gpu", "H100", "--nodes", "2", "--fabric", "efa", "--limit", "3",
                              "--fetch", "replay"], env={"COLUMNS": "80"})
    assert run.exit_code == 0
    lines = run.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80 and len(lines) <= 12
    assert any("│ 0.9494 USD │" in line and line.rstrip().endswith("1.8988 USD") for line in lines)  # 2 × 0.9494
    assert "left out at 80 columns: per GPU-hour; region; network, fabric, local disk (--wide" in run.stderr
    wide = runner.invoke(app, ["search", "--gpu", "H100", "--nodes", "2", "--fabric", "efa", "--limit", "3",
                               "--fetch", "replay"], env={"COLUMNS": "240"})
    assert "left out" not in wide.stderr and "EFA" in wide.stdout


def test_a_very_long_value_is_echoed_short() -> None:
    # Was: a 5,000-character --gpu echoed whole, a 5 KB error.
    run = runner.invoke(app, ["search", "--gpu", "X" * 5000, "--fetch", "replay"])
    assert run.exit_code == 2 and len(run.stderr) < 3000, len(run.stderr)
    assert re.search(r"'X{60}… \(5000 characters\)'", run.stderr), run.stderr[:300]  # its length, quote closed


def test_more_regions_counts_each_choices_other_regions() -> None:
    """``more_regions`` (one row per instance type and purchase model) against a count by hand over every offer."""
    rows = gpuhub.search(gpu="H100", fetch="replay", limit=None, distinct=True)
    every = gpuhub.search(gpu="H100", fetch="replay", limit=None, distinct=False)
    regions: dict[tuple[str, str, str, str], set[str]] = {}
    for offer in every:
        key = (offer.provider, offer.instance_type, offer.price.purchase, offer.price.currency)
        regions.setdefault(key, set()).add(offer.region.code.lower())
    assert rows.more_regions is not None and len(rows) == len(regions) > 150
    for offer, more in zip(rows, rows.more_regions, strict=True):
        key = (offer.provider, offer.instance_type, offer.price.purchase, offer.price.currency)
        assert more == len(regions[key]) - 1, key


def test_the_plugin_index_key_does_not_depend_on_the_folder_a_command_runs_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Was: the console script (sys.path[0] = its bin folder), `python -m gpuhub.cli` and a notebook (the working
    # directory) each rebuilt the plugin index the other had written, on every run (a full entry-point scan).
    import sys

    from gpuhub.fetch.keys import installation_stamp

    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path[1:]])
    here = installation_stamp()
    (tmp_path / "other").mkdir()
    monkeypatch.setattr(sys, "path", [str(tmp_path / "other"), *sys.path[1:]])
    assert installation_stamp() == here
    monkeypatch.setattr(sys, "path", [*sys.path, str(tmp_path)])  # a folder added where distributions live: counts
    assert installation_stamp() != here


def test_a_ranking_by_score_shows_the_score_at_80_columns() -> None:
    # Was: with --near at 80 columns the rows came in score order, the score nowhere on screen.
    run = runner.invoke(app, ["search", "--gpu", "H100", "--near", "Tokyo", "--limit", "3", "--fetch", "replay"],
                        env={"COLUMNS": "80"})
    assert run.exit_code == 0
    lines = run.stdout.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith("━"))
    assert lines[rule - 1].rstrip().endswith("┃ score") and max(len(line) for line in lines) <= 80
    scores = gpuhub.search(gpu="H100", near="Tokyo", limit=3, fetch="replay", distinct=True).scores
    assert lines[rule + 1].rstrip().endswith(f"│ {scores[0]:.4g}")
    assert "score (USD per hour, distance-adjusted): the ranking, lower is better" in run.stderr
    assert "left out at 80 columns: per GPU-hour" in run.stderr
