"""Rebuild gpuhub-lium's bundled recording from the SkyPilot catalog's Lium file.

Usage (from the plugin directory): ``python scripts/build_recording.py [PATH/TO/skypilot-catalog/lium/vms.csv]``
(default ``../../../shared/reference/skypilot-catalog/lium/vms.csv``).

Each catalog row is the cheapest free secure node of one GPU type and count in one country (SkyPilot's fetcher
keeps one per pair); it becomes one node of Lium's public feed shape: ``gpu_model`` as Lium prints it (the inverse
of SkyPilot's ``lium_utils.GPU_NAME_MAP``), ``gpu_count`` and ``available_gpu_count`` (all free), ``tier``
``secure``, ``cpu_count``, ``ram_gb``, ``price_per_node_hour``, ``gpu_memory_gb`` (the row's ``SizeInMiB`` / 1024)
and ``country_code``. Prices keep the catalog's digits.
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
DEFAULT = PLUGIN.parents[1].parent / "shared" / "reference" / "skypilot-catalog" / "lium" / "vms.csv"
SOURCE = "SkyPilot catalog v8 catalogs/v8/lium/vms.csv (skypilot-org/skypilot-catalog@b286816)"
# SkyPilot's accelerator name -> the model name Lium's feed prints (SkyPilot sky/provision/lium/lium_utils.py).
LIUM_MODEL = {
    "B200": "B200", "B300": "B300 SXM6 AC", "H100-SXM": "H100 80GB HBM3", "L40": "L40", "L40S": "L40S",
    "RTX3090": "RTX 3090", "RTX4090": "RTX 4090", "RTX5090": "RTX 5090", "RTX6000-Ada": "RTX 6000 Ada Generation",
    "RTXPRO6000": "RTX PRO 6000 Blackwell Server Edition",
    "RTXPRO6000-WK": "RTX PRO 6000 Blackwell Workstation Edition",
}


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() else value


def node(row: dict[str, str]) -> dict[str, Any]:
    """One feed node from one catalog row."""
    info = ast.literal_eval(row["GpuInfo"])
    mib = info["Gpus"][0]["MemoryInfo"]["SizeInMiB"]
    count = int(float(row["AcceleratorCount"]))
    return {"gpu_model": LIUM_MODEL[row["AcceleratorName"]], "gpu_count": count, "available_gpu_count": count,
            "tier": "secure", "cpu_count": int(float(row["vCPUs"])), "ram_gb": _number(row["MemoryGiB"]),
            "price_per_node_hour": float(Decimal(row["Price"])), "gpu_memory_gb": _number(str(mib / 1024)),
            "country_code": row["Region"]}


def build(path: Path) -> dict[str, Any]:
    """The feed answer for every row of ``path``."""
    with path.open(newline="") as fh:
        return {"nodes": [node(row) for row in csv.DictReader(fh)]}


def main(argv: list[str]) -> None:
    path = Path(argv[1]) if len(argv) > 1 else DEFAULT
    body = build(path)
    out = PLUGIN / "gpuhub_lium" / "recording"
    (out / "nodes.json").write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    manifest = {
        "format": 1, "provider": "lium", "recorded_at": None, "data_date": None,
        "data_date_note": "the SkyPilot catalog file carries no date and the index gives no commit date",
        "kind": "reconstructed", "source": SOURCE,
        "notes": "Lium's public node feed rebuilt by scripts/build_recording.py: one node per catalog row (the "
                 "cheapest free secure node of each GPU type, count and country, as SkyPilot's fetcher keeps them); "
                 "gpu_model spelled as Lium prints it (SkyPilot's lium_utils.GPU_NAME_MAP); every GPU free; "
                 "no spot nodes (the catalog keeps none).",
        "exchanges": [json_exchange("https://lium.io/api/public/v1/nodes", "nodes.json")],
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(body['nodes'])} nodes to {out}")


if __name__ == "__main__":
    main(sys.argv)
