"""Rebuild gpuhub-yotta's bundled table from the SkyPilot catalog's Yotta file.

Usage (from the plugin directory): ``python scripts/build_recording.py [PATH/TO/skypilot-catalog/yotta/vms.csv]``
(default ``../../../shared/reference/skypilot-catalog/yotta/vms.csv``).

Every catalog row becomes one pod type: name, GPU count, vCPUs, RAM, region, the GPU's ``SizeInMiB`` and the price
with the catalog's digits. The catalog's ``GpuInfo`` says ``Count: 1`` for every pod, even the 8-GPU ones; the GPU
count comes from ``AcceleratorCount``, which the pod type name confirms.
"""

from __future__ import annotations

import ast
import csv
import json
import sys
from pathlib import Path
from typing import Any

PLUGIN = Path(__file__).resolve().parents[1]
DEFAULT = PLUGIN.parents[1].parent / "shared" / "reference" / "skypilot-catalog" / "yotta" / "vms.csv"
SOURCE = "SkyPilot catalog v8 catalogs/v8/yotta/vms.csv (skypilot-org/skypilot-catalog@2811459)"


def pod(row: dict[str, str]) -> dict[str, Any]:
    """One pod type from one catalog row."""
    info = ast.literal_eval(row["GpuInfo"])
    return {"instance_type": row["InstanceType"], "gpu_count": int(float(row["AcceleratorCount"])),
            "vcpus": int(float(row["vCPUs"])), "memory_gib": int(float(row["MemoryGiB"])), "region": row["Region"],
            "gpu_memory_mib": info["Gpus"][0]["MemoryInfo"]["SizeInMiB"], "price": row["Price"], "currency": "USD"}


def build(path: Path) -> dict[str, Any]:
    """The table for every row of ``path``."""
    with path.open(newline="") as fh:
        return {"format": 1, "provider": "yotta", "price_unit": "instance-hour", "source": SOURCE,
                "data_date": None, "pod_types": [pod(row) for row in csv.DictReader(fh)]}


def main(argv: list[str]) -> None:
    table = build(Path(argv[1]) if len(argv) > 1 else DEFAULT)
    out = PLUGIN / "gpuhub_yotta" / "recording"
    (out / "pod_types.json").write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    manifest = {
        "format": 1, "provider": "yotta", "recorded_at": None, "data_date": None,
        "data_date_note": "the SkyPilot catalog file carries no date and the index gives no commit date",
        "kind": "static price table", "source": f"{SOURCE}; table in pod_types.json",
        "notes": "Yotta's API (api.yottalabs.ai/openapi, as SkyPilot's client uses it) creates and lists pods but "
                 "lists no prices: no HTTP exchanges.",
        "exchanges": [],
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(table['pod_types'])} pod types to {out}")


if __name__ == "__main__":
    main(sys.argv)
