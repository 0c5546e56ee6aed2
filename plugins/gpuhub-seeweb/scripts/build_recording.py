"""Rebuild gpuhub-seeweb's bundled recording from the published SkyPilot catalog.

Input: ``../shared/reference/skypilot-catalog/seeweb/vms.csv`` (SkyPilot catalog v8, skypilot-org/skypilot-catalog
commit 0082b04; no date in the file or the index). SkyPilot's ``fetch_seeweb.py`` reads ``GET /ecs/v2/plans`` and
``POST /ecs/v2/regions/availables`` and writes one row per plan and region: ``vCPUs`` = ``cpu``, ``MemoryGiB`` =
``ram`` MiB / 1024, ``Price`` = ``hourly_price``, ``AcceleratorName`` = its own name for the ``gpu_label``.

Output (``gpuhub_seeweb/recording/``, ``kind: reconstructed``): one ``GET /ecs/v2/plans`` answer in Seeweb's shape
(ecsapi SDK models): one plan per instance type with ``available_regions`` = the regions of its rows (descriptions:
the cities Seeweb gives them), ``cpu``/``ram``/``gpu`` as strings, ``ram`` = MemoryGiB x 1024, ``gpu_label`` in
Seeweb's spelling (the inverse of SkyPilot's label table; ``L40s`` as the catalog has it), ``windows`` for the
``...W`` plans. ``id`` is made up (row order); ``disk``, ``montly_price``, ``host_type`` are null (not in the
catalog); ``available`` is null (the catalog is not a capacity snapshot). Rows are validated (a GPU row's
``GpuInfo`` count = ``AcceleratorCount``, MiB-sized memory, a positive price); one that fails is left out and
reported. Usage (from the repository root)::

    python plugins/gpuhub-seeweb/scripts/build_recording.py [--check] [path/to/vms.csv]
"""

from __future__ import annotations

import ast
import csv
import json
import sys
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

from gpuhub.plugin import json_exchange

PLUGIN = Path(__file__).resolve().parents[1]
RECORDING = PLUGIN / "gpuhub_seeweb" / "recording"
DEFAULT_CATALOG = PLUGIN.parents[2] / "shared" / "reference" / "skypilot-catalog" / "seeweb" / "vms.csv"
URL = "https://api.seeweb.it/ecs/v2/plans"
RECORDED_AT = "2026-12-01"
CITIES = {"it-fr2": "Frosinone", "it-mi2": "Milano", "ch-lug1": "Lugano", "bg-sof1": "Sofia"}
REGION_IDS = {"it-mi2": 2, "it-fr2": 3, "ch-lug1": 6, "bg-sof1": 7}  # ecsapi SDK test payloads
SEEWEB_LABEL = {"H200": "H200 141GB", "RTXA6000": "RTX A6000 48GB", "A100": "A100 80GB", "L4": "L4 24GB",
                "H100": "H100 80GB", "A30": "A30", "RTX6000": "RTX 6000 24GB", "L40s": "L40s"}


def _text(number: str) -> str:
    value = Decimal(number)
    return str(int(value)) if value == value.to_integral_value() else str(value)


def build(catalog: Path) -> tuple[dict[str, Any], Counter[str]]:
    """The plans answer rebuilt from ``catalog``, and the rows left out by reason."""
    plans: dict[str, dict[str, Any]] = {}
    skipped: Counter[str] = Counter()
    with catalog.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if Decimal(row["Price"] or "0") <= 0:
                skipped["placeholder price"] += 1
                continue
            if row["Region"] not in CITIES:
                skipped[f"unknown region {row['Region']!r}"] += 1
                continue
            gpu = row["AcceleratorName"]
            if gpu:
                info = ast.literal_eval(row["GpuInfo"])["Gpus"][0]
                if float(info["Count"]) != float(row["AcceleratorCount"]):
                    skipped["GpuInfo count differs from AcceleratorCount"] += 1
                    continue
                if info["MemoryInfo"]["SizeInMiB"] < 1024:
                    skipped["GPU memory not in MiB"] += 1
                    continue
            plan = plans.setdefault(row["InstanceType"], {
                "id": len(plans) + 1, "name": row["InstanceType"], "cpu": _text(row["vCPUs"]),
                "ram": str(int(Decimal(row["MemoryGiB"]) * 1024)), "disk": None,
                "gpu": _text(row["AcceleratorCount"]) if gpu else "0", "gpu_label": SEEWEB_LABEL[gpu] if gpu else None,
                "hourly_price": float(row["Price"]), "montly_price": None,
                "windows": row["InstanceType"].endswith("W"), "host_type": None, "available": None,
                "available_regions": []})
            if Decimal(str(plan["hourly_price"])) != Decimal(row["Price"]):
                skipped["plan priced differently per region"] += 1
                continue
            plan["available_regions"].append({"id": REGION_IDS[row["Region"]], "location": row["Region"],
                                              "description": CITIES[row["Region"]]})
    return {"status": "ok", "plans": list(plans.values())}, skipped


def manifest() -> dict[str, Any]:
    return {
        "format": 1, "provider": "seeweb", "recorded_at": RECORDED_AT, "data_date": None,
        "data_date_note": "SkyPilot catalog v8 seeweb/vms.csv (commit 0082b04); the file and the index carry no date",
        "kind": "reconstructed",
        "source": "SkyPilot catalog v8 seeweb/vms.csv (skypilot-org/skypilot-catalog@0082b04)",
        "notes": "Seeweb's GET /ecs/v2/plans answer rebuilt by scripts/build_recording.py: one plan per catalog "
                 "instance type with the regions of its rows; ids made up; disk, montly_price, host_type and "
                 "available null (not in the catalog). The API states no currency; the catalog's is USD.",
        "exchanges": [json_exchange(URL, "plans.json")],
    }


def main(argv: list[str]) -> int:
    check = "--check" in argv
    paths = [a for a in argv if a != "--check"]
    body, skipped = build(Path(paths[0]) if paths else DEFAULT_CATALOG)
    for path, data in {RECORDING / "plans.json": body, RECORDING / "manifest.json": manifest()}.items():
        text = json.dumps(data, indent=1) + "\n"
        if check and path.read_text(encoding="utf-8") != text:
            print(f"{path} differs from a rebuild", file=sys.stderr)
            return 1
        if not check:
            path.write_text(text, encoding="utf-8")
    print(f"{len(body['plans'])} plans; rows left out: {dict(skipped) or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
