"""Provenance users see, from the CLI with every plugin installed; CoreWeave's own table (issue 13, 5 and 6)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from tests.integration.conftest import Run, search_json


def _line(stderr: str, provider: str) -> str:
    return next(line for line in stderr.splitlines() if line.startswith(f"{provider}: "))


def _age(day: str) -> int:
    return (dt.datetime.now(dt.timezone.utc).date() - dt.date.fromisoformat(day)).days


def test_status_lines_say_kind_data_date_age_and_warnings(every_offer: tuple[list[dict[str, Any]], str]) -> None:
    stderr = every_offer[1]
    gcp = _line(stderr, "gcp")
    # Each price has its own date: the 2024-09-16 Cloud Billing SKUs (150 offers), or the SkyPilot catalog dated
    # 2025-08-15 where it is newer (1630; gpuhub-gcp README): the line gives the range and the newest's age, never
    # the day the recording was rebuilt; no GCP price is undated any more.
    assert f"(reconstructed recording, prices of 2024-09-16 … 2025-08-15 (newest {_age('2025-08-15')} days old)), " \
        in gcp, gcp
    assert re.search(r"\(newest \d+ days old\)\), OUTDATED: newest price \d+ days old, over 3 × its "
                     r"30-day price-change period", gcp), gcp
    assert re.search(r"gcp: ok \(partial: \d+ reasons?\)", gcp), gcp  # unpriced machine types: never a plain ok
    assert re.search(r", \d+ warnings?", gcp)
    lam = _line(stderr, "lambda")
    assert "reconstructed recording, data date unknown (SkyPilot catalog v8 snapshot" in lam  # not the rebuild day
    cw = _line(stderr, "coreweave")
    assert f"(static price table, data of 2026-09-20 ({_age('2026-09-20')} days old))" in cw
    # Azure's EU rows are Azure Retail Prices of 2026-08-20; its US rows come from a catalog copy of unknown date:
    # counted as undated, never given the EU rows' date.
    assert re.search(rf"\(reconstructed recording, data of 2026-08-20 \({_age('2026-08-20')} days old\), \d+ "
                     r"undated\)", _line(stderr, "azure")), _line(stderr, "azure")
    # AWS's catalog snapshot has no date of its own (undated, never the day the recording was rebuilt); only the
    # capacity-block windows at the published rates have one (the pricing page of 2026-07-22)
    assert re.search(rf"\(reconstructed recording, data of 2026-07-22 \({_age('2026-07-22')} days old\), \d+ "
                     r"undated\)", _line(stderr, "aws")), _line(stderr, "aws")
    assert "\n  warning: " in stderr  # -v prints them


def test_verbose_prints_every_warning(gpuhub_cli: Run) -> None:
    done = gpuhub_cli("search", "--provider", "coreweave", "--provider", "gcp", "--limit", "1", "-v")
    lines = done.stderr.splitlines()
    cw = lines.index(_line(done.stderr, "coreweave"))
    assert lines[cw + 1].startswith("  warning: CoreWeave publishes one North America price per node type")
    assert any(line.startswith("  warning: no GPU SKU for ") for line in lines)


def test_records_carry_source_kind_data_date_form_factor_cpu_arch(
        every_offer: tuple[list[dict[str, Any]], str]) -> None:
    kinds = {(r["provider"], r["source_kind"], r["data_date"]) for r in every_offer[0]}
    assert ("gcp", "reconstructed", "2024-09-16") in kinds and ("gcp", "reconstructed", "2025-08-15") in kinds
    assert ("coreweave", "static", "2026-09-20") in kinds and not any(p == "gcp" and d is None for p, _, d in kinds)
    assert ("lambda", "reconstructed", None) in kinds and ("azure", "reconstructed", None) in kinds
    lam = next(r for r in every_offer[0] if r["instance_type"] == "gpu_1x_gh200")
    assert (lam["form_factor"], lam["cpu_arch"], lam["source"]) == ("Superchip", "arm64", "replay:lambda@undated")
    p5 = next(r for r in every_offer[0] if r["instance_type"] == "p5.48xlarge")
    assert (p5["form_factor"], p5["cpu_arch"]) == ("SXM", "x86_64")


def test_csv_has_the_provenance_columns(gpuhub_cli: Run) -> None:
    done = gpuhub_cli("search", "--provider", "gcp", "--instance-type", "a3-highgpu-8g", "--region", "us-central1",
                      "--purchase", "on_demand", "--format", "csv")
    [row] = list(csv.DictReader(io.StringIO(done.stdout)))
    # the date of this price's own SKUs (A3 core, A3 RAM, H100 GPU in the Americas: effectiveTime 2024-09-16)
    assert (row["source_kind"], row["data_date"], row["form_factor"], row["cpu_arch"]) == (
        "reconstructed", "2024-09-16", "SXM", "x86_64")
    assert Decimal(row["price_per_hour"]) == Decimal("87.832465656")


def test_azure_placeholder_spot_rows_are_left_out_and_counted(gpuhub_cli: Run) -> None:
    records, stderr = search_json(gpuhub_cli, "--provider", "azure", "--instance-type", "Standard_ND96isr_H200_v5")
    purchases = {r["purchase"] for r in records}
    assert "on_demand" in purchases and "spot" not in purchases  # the source's "spot" rows equal on-demand
    assert {r["region"] for r in records if r["purchase"] == "on_demand"} == {"northeurope", "francecentral",
                                                                           "swedencentral"}
    # Counted, and the partial catalog (sizes without specs) survives the disk cache of an earlier run.
    assert re.search(r"azure: ok \(partial: 1 reason\), .*, \d+ records skipped", _line(stderr, "azure"))


def test_coreweave_price_basis_is_north_america(every_offer: tuple[list[dict[str, Any]], str]) -> None:
    basis = {r["price_basis"] for r in every_offer[0] if r["provider"] == "coreweave"}
    assert basis == {"CoreWeave list price for North America, the same in every region"}
    b300 = [r for r in every_offer[0] if r["instance_type"] == "HGX B300"]
    assert {(r["purchase"], r["price_per_hour"], r["gpu_count"]) for r in b300} == {("spot", 35.84, 8)}
    assert len(b300) == 14


def test_record_coreweave_writes_its_table_and_fixtures_replace_it(gpuhub_cli: Run, tmp_path: Path) -> None:
    done = gpuhub_cli("record", "coreweave", "--out", str(tmp_path))
    assert "wrote the static price table" in done.stderr
    table_file = tmp_path / "coreweave" / "price_table.json"
    table = json.loads(table_file.read_text(encoding="utf-8"))
    assert (tmp_path / "coreweave" / "manifest.json").is_file() and len(table["instances"]) == 10
    # Edit the recorded table: the user's copy replaces the bundled one.
    table["instances"] = [dict(i, on_demand="19.99") for i in table["instances"] if i["instance_type"] == "A100"]
    table_file.write_text(json.dumps(table), encoding="utf-8")
    records, stderr = search_json(gpuhub_cli, "--provider", "coreweave", "--fixtures", str(tmp_path))
    assert {(r["instance_type"], r["purchase"], r["price_per_hour"]) for r in records} == {
        ("A100", "on_demand", 19.99), ("A100", "spot", 9.65)}
    assert "coreweave: ok, 28 offers" in stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    skipped = gpuhub_cli("search", "--provider", "coreweave", "--fixtures", str(empty), check=False)
    assert skipped.returncode == 1 and "coreweave: skipped: no recording for coreweave" in skipped.stderr
