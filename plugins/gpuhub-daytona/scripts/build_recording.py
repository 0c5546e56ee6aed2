"""Rebuild gpuhub-daytona's bundled price table from the SkyPilot catalog's Daytona file.

Usage (from the plugin directory): ``python scripts/build_recording.py [PATH/TO/skypilot-catalog/daytona/vms.csv]``
(default ``../../../shared/reference/skypilot-catalog/daytona/vms.csv``).

Every catalog row becomes one table row, CPU-only sandboxes included (the plugin skips and counts them): instance
type, GPU type and count, vCPUs, memory GiB, region, the GPU's ``SizeInMiB`` and both prices with the catalog's
digits (decimal strings).
"""

from __future__ import annotations

import ast
import csv
import json
import sys
from pathlib import Path
from typing import Any

PLUGIN = Path(__file__).resolve().parents[1]
DEFAULT = PLUGIN.parents[1].parent / "shared" / "reference" / "skypilot-catalog" / "daytona" / "vms.csv"
SOURCE = "SkyPilot catalog v8 catalogs/v8/daytona/vms.csv (skypilot-org/skypilot-catalog@0eb5da5)"


def _number(text: str) -> int | float | None:
    if not text.strip():
        return None
    value = float(text)
    return int(value) if value.is_integer() else value


def row(item: dict[str, str]) -> dict[str, Any]:
    """One table row from one catalog row."""
    mib = None
    if item["GpuInfo"].strip():
        mib = ast.literal_eval(item["GpuInfo"])["Gpus"][0]["MemoryInfo"]["SizeInMiB"]
    return {"instance_type": item["InstanceType"], "gpu_type": item["AcceleratorName"] or None,
            "gpu_count": _number(item["AcceleratorCount"]) or 0, "vcpus": _number(item["vCPUs"]),
            "memory_gib": _number(item["MemoryGiB"]), "region": item["Region"], "gpu_memory_mib": mib,
            "price": item["Price"] or None, "spot_price": item["SpotPrice"] or None}


def build(path: Path) -> dict[str, Any]:
    """The price table for every row of ``path``."""
    with path.open(newline="") as fh:
        rows = [row(item) for item in csv.DictReader(fh)]
    return {"format": 1, "provider": "daytona", "currency": "USD", "price_unit": "instance-hour", "source": SOURCE,
            "data_date": None, "sandboxes": rows}


def main(argv: list[str]) -> None:
    table = build(Path(argv[1]) if len(argv) > 1 else DEFAULT)
    out = PLUGIN / "gpuhub_daytona" / "recording"
    (out / "price_table.json").write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    manifest = {
        "format": 1, "provider": "daytona", "recorded_at": None, "data_date": None,
        "data_date_note": "the SkyPilot catalog file carries no date and the index gives no commit date",
        "kind": "static price table", "source": f"{SOURCE}; table in price_table.json",
        "notes": "Daytona's public GPU pricing feed gives per-GPU, per-vCPU and per-GiB rates; the catalog gives "
                 "only whole-sandbox sums, from which those rates cannot be told apart, so no feed answer can be "
                 "rebuilt and the plugin ships the catalog's rows as a static table: no HTTP exchanges.",
        "exchanges": [],
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(table['sandboxes'])} rows to {out}")


if __name__ == "__main__":
    main(sys.argv)
