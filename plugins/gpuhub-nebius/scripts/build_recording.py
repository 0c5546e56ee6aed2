"""Build gpuhub-nebius's bundled price table from the shared reference facts.

Input (read, never copied): ``../shared/reference/skypilot-catalog/nebius/vms.csv`` (SkyPilot catalog v8,
skypilot-org/skypilot-catalog commit 0082b0435f3912ae4c566856b272455cc78f4f61; the file has no date).
Every row is kept, CPU-only rows included: the plugin itself validates the table and skips (and counts) what is
not a GPU offer, so the status line shows it.

Output: ``gpuhub_nebius/recording/price_table.json`` in Nebius's own terms (platforms with presets, as
``compute.v1 PlatformService.List`` names them, and one price per platform, preset and region, as
``billing.v1alpha1 CalculatorService.Estimate`` answers it) and ``manifest.json`` (provenance).

Run: ``python plugins/gpuhub-nebius/scripts/build_recording.py [--check]``.
"""

from __future__ import annotations

import ast
import csv
from pathlib import Path
from typing import Any

from gpuhub.plugin import build_recording_main

PLUGIN = Path(__file__).resolve().parents[1]
SOURCE = PLUGIN.parents[2] / "shared" / "reference" / "skypilot-catalog" / "nebius" / "vms.csv"
OUT = PLUGIN / "gpuhub_nebius" / "recording"
COMMIT = "0082b0435f3912ae4c566856b272455cc78f4f61"
ORIGIN = f"SkyPilot catalog v8 catalogs/v8/nebius/vms.csv (skypilot-org/skypilot-catalog@{COMMIT[:8]})"


def build() -> tuple[dict[str, Any], dict[str, Any]]:
    """The price table and the manifest, from the reference CSV."""
    platforms: dict[str, dict[str, Any]] = {}
    prices = []
    with SOURCE.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            platform, preset = row["InstanceType"].split("_", 1)
            count = int(row["AcceleratorCount"] or 0)
            entry = platforms.setdefault(platform, {"name": platform, "gpu_memory_gigabytes": None,
                                                    "allowed_for_preemptibles": False, "presets": []})
            if row["GpuInfo"]:
                info = ast.literal_eval(row["GpuInfo"])
                entry["gpu_memory_gigabytes"] = info["Gpus"][0]["MemoryInfo"]["SizeInMiB"] // 1024
            if row["SpotPrice"]:
                entry["allowed_for_preemptibles"] = True
            if preset not in {p["name"] for p in entry["presets"]}:
                entry["presets"].append({"name": preset, "resources": {
                    "vcpu_count": int(row["vCPUs"]), "memory_gibibytes": int(row["MemoryGiB"]), "gpu_count": count}})
            prices.append({"platform": platform, "preset": preset, "region": row["Region"],
                           "on_demand": row["Price"], "preemptible": row["SpotPrice"] or None})
    table = {"format": 1, "provider": "nebius", "currency": "USD", "price_unit": "instance-hour",
             "source": ORIGIN, "data_date": None, "platforms": list(platforms.values()), "prices": prices}
    manifest = {
        "format": 1, "provider": "nebius", "recorded_at": None, "data_date": None,
        "data_date_note": "the SkyPilot catalog file carries no date and the index gives no commit date",
        "kind": "static price table", "source": f"{ORIGIN}; table in price_table.json",
        "notes": ("Nebius prices come from its gRPC billing API (CalculatorService.Estimate), not reachable through "
                  "gpuhub's HTTP seam: no HTTP exchanges. Every catalog row is in the table, CPU-only presets "
                  "included; the plugin skips and counts them."),
        "exchanges": []}
    return table, manifest


def _files() -> dict[str, Any]:
    table, manifest = build()
    return {"price_table.json": table, "manifest.json": manifest}


def main() -> int:
    return build_recording_main(__doc__, OUT, _files, (SOURCE,))


if __name__ == "__main__":
    raise SystemExit(main())
