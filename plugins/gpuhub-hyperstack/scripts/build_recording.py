"""Build gpuhub-hyperstack's bundled price table from the shared reference facts.

Input (read, never copied): ``../shared/reference/skypilot-catalog/hyperstack/vms.csv`` (SkyPilot catalog v8,
skypilot-org/skypilot-catalog commit fdc9d908ab0b2af9f468f139fb3f662c8c6b3257; no date in the file). Every row is
kept; the plugin validates each one at fetch time and skips (and counts) what is not a GPU offer.

Output: ``gpuhub_hyperstack/recording/price_table.json`` (one row per flavor and region: GPU, count, per-GPU memory
in GB, vCPUs, RAM in GB, on-demand USD per instance-hour as published) and ``manifest.json``.

Run: ``python plugins/gpuhub-hyperstack/scripts/build_recording.py [--check]``.
"""

from __future__ import annotations

import ast
import csv
from pathlib import Path
from typing import Any

from gpuhub.plugin import build_recording_main

PLUGIN = Path(__file__).resolve().parents[1]
SOURCE = PLUGIN.parents[2] / "shared" / "reference" / "skypilot-catalog" / "hyperstack" / "vms.csv"
OUT = PLUGIN / "gpuhub_hyperstack" / "recording"
COMMIT = "fdc9d908ab0b2af9f468f139fb3f662c8c6b3257"
ORIGIN = f"SkyPilot catalog v8 catalogs/v8/hyperstack/vms.csv (skypilot-org/skypilot-catalog@{COMMIT[:8]})"


def build() -> dict[str, Any]:
    """The table and the manifest, by file name."""
    rows = []
    with SOURCE.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            info = ast.literal_eval(row["GpuInfo"].replace("null", "None")) if row["GpuInfo"] else None
            rows.append({"flavor": row["InstanceType"], "region": row["Region"], "gpu": row["AcceleratorName"] or None,
                         "gpu_count": int(float(row["AcceleratorCount"] or 0)),
                         "gpu_memory_gb": info["Gpus"][0]["MemoryInfo"]["SizeInMiB"] // 1024 if info else None,
                         "cpu": int(float(row["vCPUs"])), "ram_gb": float(row["MemoryGiB"]),
                         "on_demand": row["Price"], "spot": row["SpotPrice"] or None})
    table = {"format": 1, "provider": "hyperstack", "currency": "USD", "price_unit": "instance-hour",
             "source": ORIGIN, "data_date": None, "flavors": rows}
    manifest = {
        "format": 1, "provider": "hyperstack", "recorded_at": None, "data_date": None,
        "data_date_note": "the SkyPilot catalog file carries no date and the index gives no commit date",
        "kind": "static price table", "source": f"{ORIGIN}; table in price_table.json",
        "notes": ("Static table: Hyperstack's API documents GET /core/flavors and the GET /pricebook item, but not "
                  "which price-book name prices a flavor, so no answer is reconstructed on a guess. No HTTP "
                  "exchanges."),
        "exchanges": []}
    return {"price_table.json": table, "manifest.json": manifest}


def main() -> int:
    return build_recording_main(__doc__, OUT, build, (SOURCE,))


if __name__ == "__main__":
    raise SystemExit(main())
