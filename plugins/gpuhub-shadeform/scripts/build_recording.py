"""Rebuild gpuhub-shadeform's bundled recording from the SkyPilot catalog's Shadeform file.

Input: ``../shared/reference/skypilot-catalog/shadeform/vms.csv`` (SkyPilot catalog v8, commit 8e50954; CRLF; 259
rows, one per instance type and region; 177 instance types ``<cloud>_<shade instance type>`` of 18 clouds; every
type has one price in all its regions).

Output (inside the package): ``gpuhub_shadeform/recording/instances-types.json``, one answer of
``GET /v1/instances/types`` in Shadeform's shape, one entry per instance type:

* ``cloud`` = the prefix of ``InstanceType`` before ``_``, ``shade_instance_type`` = the rest;
* ``hourly_price`` = ``Price`` x 100 (US cents per hour, an integer as the API sends);
* ``configuration``: ``num_gpus`` = ``AcceleratorCount``, ``gpu_type`` = ``AcceleratorName``, ``vcpus``,
  ``memory_in_gb`` = ``MemoryGiB``, ``vram_per_gpu_in_gb`` = GpuInfo ``SizeInMiB`` (the file's MiB field holds GB,
  known fault C37, which is what this API field means);
* ``availability`` = every region of the type, ``available: true`` -- the file lists where a type is offered, it is
  no capacity snapshot, so the provider reports availability of this recording as unknown.

Not in the source, so left out: ``cloud_instance_type`` (the seller's own type name), ``storage_in_gb``,
``interconnect``, ``deployment_type``. Usage::

    python plugins/gpuhub-shadeform/scripts/build_recording.py [path/to/vms.csv]
"""

from __future__ import annotations

import ast
import csv
import json
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

from gpuhub.plugin import json_exchange

PLUGIN = Path(__file__).resolve().parents[1]
PACKAGE = PLUGIN / "gpuhub_shadeform"
DEFAULT_CATALOG = PLUGIN.parents[2] / "shared" / "reference" / "skypilot-catalog" / "shadeform" / "vms.csv"
URL = "https://api.shadeform.ai/v1/instances/types"
RECORDED_AT = "2026-12-01"


def _number(text: str) -> float | int:
    value = float(text)
    return int(value) if value.is_integer() else value


def build(path: Path) -> dict[str, Any]:
    """The instances/types answer."""
    with path.open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    entries: dict[str, dict[str, Any]] = {}
    for row in rows:
        entry = entries.get(row["InstanceType"])
        if entry is None:
            cloud, shade = row["InstanceType"].split("_", 1)
            info = ast.literal_eval(row["GpuInfo"])["Gpus"][0]
            entry = entries[row["InstanceType"]] = {
                "cloud": cloud, "shade_instance_type": shade,
                "hourly_price": int(Decimal(row["Price"]) * 100),
                "configuration": {"num_gpus": _number(row["AcceleratorCount"]), "gpu_type": row["AcceleratorName"],
                                  "vcpus": _number(row["vCPUs"]), "memory_in_gb": _number(row["MemoryGiB"]),
                                  "vram_per_gpu_in_gb": info["MemoryInfo"]["SizeInMiB"]},
                "availability": []}
            assert Decimal(entry["hourly_price"]) == Decimal(row["Price"]) * 100, row
        entry["availability"].append({"region": row["Region"], "available": True})
    return {"instance_types": list(entries.values())}


def main(argv: list[str]) -> None:
    answer = build(Path(argv[1]) if len(argv) > 1 else DEFAULT_CATALOG)
    out = PACKAGE / "recording"
    out.mkdir(exist_ok=True)
    (out / "instances-types.json").write_text(json.dumps(answer, indent=1) + "\n", encoding="utf-8")
    manifest = {
        "format": 1, "provider": "shadeform", "recorded_at": RECORDED_AT, "data_date": None,
        "data_date_note": "SkyPilot catalog v8 shadeform/vms.csv at commit 8e50954; the commit's date is not known "
                          "and the file has no date column",
        "kind": "reconstructed",
        "source": "SkyPilot catalog v8 shadeform/vms.csv (skypilot-org/skypilot-catalog@8e50954)",
        "notes": "One instances/types answer rebuilt by scripts/build_recording.py: 177 instance types of 18 clouds "
                 "in 62 regions. The availability lists name every region the file offers a type in; they are no "
                 "capacity snapshot (the provider reports availability unknown). cloud_instance_type, storage, "
                 "interconnect and deployment type are not in the source and left out.",
        "exchanges": [json_exchange(URL, "instances-types.json")],
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(answer['instance_types'])} instance types")


if __name__ == "__main__":
    main(sys.argv)
