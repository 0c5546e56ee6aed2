"""Rebuild gpuhub-lambda's bundled recording and its region table from the published SkyPilot catalog.

Input: ``../shared/reference/skypilot-catalog/lambda/vms.csv`` (SkyPilot catalog v8, commit 95eaf48; one row per
instance type and region, price in USD per instance-hour, vCPUs, RAM in GiB, GPU model, count and memory in MiB).

Output (inside the package, so a non-editable install carries it):

* ``gpuhub_lambda/recording/instance-types.json``: one ``GET /api/v1/instance-types`` answer in the shape
  Lambda's API uses (``{"data": {name: {"instance_type": {...}, "regions_with_capacity_available": [...]}}}``),
  with every GPU instance type of the catalog;
* ``gpuhub_lambda/recording/manifest.json``: the exchange and its provenance (``kind: reconstructed``);
* ``gpuhub_lambda/data/regions.json``: the regions each instance type is sold in, per the catalog.

Reconstruction rules (what is a fact from the catalog, what is Lambda's spelling convention):

* ``price_cents_per_hour`` = catalog ``Price`` (USD per instance-hour) x 100, an integer as in current API specs;
* ``specs.vcpus``, ``specs.memory_gib``, ``specs.gpus`` = catalog ``vCPUs``, ``MemoryGiB``, ``AcceleratorCount``;
  ``storage_gib`` is left out (the catalog does not have it);
* ``gpu_description`` = Lambda's ``MODEL (MEM GB FORM)`` pattern: the model in Lambda's spelling (``RTX A6000``,
  ``Tesla V100``), the memory from the catalog's ``GpuInfo`` (MiB / 1024), the form factor from the instance
  type's suffix (``_sxm4``/``_sxm5``/``_sxm6``/``_pcie``) and none where the name has no suffix;
  ``description`` = ``"<count>x "`` + ``gpu_description``;
* ``regions_with_capacity_available`` = every region the catalog lists the type in, described as Lambda does
  (``"Virginia, USA"``, from ``../shared/reference/regions.csv``). The catalog is no capacity
  snapshot, so the provider reports availability of this reconstructed recording as unknown.

CPU-only types (``cpu_*``) are not GPU offers and are left out. Usage (from the repository root)::

    python plugins/gpuhub-lambda/scripts/build_recording.py [path/to/vms.csv]
"""

from __future__ import annotations

import ast
import csv
import json
import re
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

PLUGIN = Path(__file__).resolve().parents[1]
PACKAGE = PLUGIN / "gpuhub_lambda"
DEFAULT_CATALOG = PLUGIN.parents[2] / "shared" / "reference" / "skypilot-catalog" / "lambda" / "vms.csv"
URL = "https://cloud.lambdalabs.com/api/v1/instance-types"
RECORDED_AT = "2026-11-30"
DATA_DATE_NOTE = ("SkyPilot catalog v8 snapshot, commit date not known; its content (gpu_8x_b200_sxm6) dates it "
                  "2025 or later")
CATALOG_COMMIT = "95eaf484fa404db8356b745607d162ea4fdf8fda"

# Lambda's own spelling of each catalog accelerator name (as in its instance-type descriptions).
LAMBDA_MODEL = {"A100-80GB": "A100", "A6000": "RTX A6000", "RTX6000": "RTX 6000", "V100": "Tesla V100"}
FORM_SUFFIX = {"sxm4": "SXM4", "sxm5": "SXM5", "sxm6": "SXM6", "pcie": "PCIe"}
REGIONS_CSV = PLUGIN.parents[2] / "shared" / "reference" / "regions.csv"


def region_descriptions(path: Path = REGIONS_CSV) -> dict[str, str]:
    """Lambda's own region descriptions ("Virginia, USA"), the first quoted text of each row's note."""
    out: dict[str, str] = {}
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            found = re.match(r"'([^']+)'", row["note"])
            if row["provider"] == "lambda" and found:
                out[row["region"]] = found.group(1)
    return out


def _gpu_memory_gb(gpu_info: str) -> int:
    """GPU memory per card in GB as Lambda writes it (the catalog's MiB / 1024)."""
    info = ast.literal_eval(gpu_info)
    mib = int(info["Gpus"][0]["MemoryInfo"]["SizeInMiB"])
    return mib // 1024


def _form(instance_type: str) -> str | None:
    suffix = instance_type.rsplit("_", 1)[-1]
    return FORM_SUFFIX.get(suffix)


def build(catalog: Path) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The instance-types body and the regions per instance type, from the catalog rows (source order kept)."""
    types: dict[str, dict[str, Any]] = {}
    regions: dict[str, list[str]] = {}
    described = region_descriptions()
    with catalog.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            name = row["InstanceType"]
            if not row["AcceleratorName"]:
                continue  # CPU-only type
            regions.setdefault(name, []).append(row["Region"])
            cents = Decimal(row["Price"]) * 100
            if cents != cents.to_integral_value():
                raise SystemExit(f"{name}: price {row['Price']} is not a whole number of cents")
            count = int(float(row["AcceleratorCount"]))
            memory = _gpu_memory_gb(row["GpuInfo"])
            model = LAMBDA_MODEL.get(row["AcceleratorName"], row["AcceleratorName"])
            form = _form(name)
            gpu_description = f"{model} ({memory} GB{' ' + form if form else ''})"
            record = {
                "name": name,
                "description": f"{count}x {gpu_description}",
                "gpu_description": gpu_description,
                "price_cents_per_hour": int(cents),
                "specs": {"vcpus": int(float(row["vCPUs"])), "memory_gib": int(float(row["MemoryGiB"])),
                          "gpus": count},
            }
            if name in types and types[name] != record:
                raise SystemExit(f"{name}: the catalog gives different prices or specs in different regions")
            types[name] = record
    data = {
        name: {"instance_type": record,
               "regions_with_capacity_available": [
                   {"name": code, "description": described.get(code, code)} for code in regions[name]]}
        for name, record in types.items()
    }
    return {"data": data}, regions


def main(argv: list[str]) -> int:
    catalog = Path(argv[1]) if len(argv) > 1 else DEFAULT_CATALOG
    body, regions = build(catalog)
    recording = PACKAGE / "recording"
    recording.mkdir(parents=True, exist_ok=True)
    (recording / "instance-types.json").write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    manifest = {
        "format": 1,
        "provider": "lambda",
        "recorded_at": RECORDED_AT,
        # The prices' own date is not known: the catalog copy has a commit but no commit date
        # (../shared/reference/skypilot-catalog/SOURCES.md); RECORDED_AT is only when this file was rebuilt.
        "data_date": None,
        "data_date_note": DATA_DATE_NOTE,
        "kind": "reconstructed",
        "source": f"SkyPilot catalog v8 lambda/vms.csv (skypilot-org/skypilot-catalog@{CATALOG_COMMIT[:7]})",
        "notes": ("Lambda's instance-types answer rebuilt by scripts/build_recording.py from the catalog's prices, "
                  "specs and regions for every GPU type; descriptions follow Lambda's 'Nx MODEL (MEM GB FORM)' "
                  "pattern; storage_gib is absent (not in the source); the capacity lists name every region the "
                  "catalog sells the type in and are not a capacity snapshot."),
        "exchanges": [{
            "request": {"method": "GET", "url": URL, "body": None},
            "response": {"status": 200, "headers": {"content-type": "application/json"},
                         "body_file": "instance-types.json"},
        }],
    }
    (recording / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    all_regions = sorted({code for codes in regions.values() for code in codes})
    table = {
        "source": manifest["source"],
        "note": "regions each Lambda instance type is sold in; prices are global",
        "regions": all_regions,
        "instance_types": regions,
    }
    data_dir = PACKAGE / "data"
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "regions.json").write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(f"{len(body['data'])} instance types, {len(all_regions)} regions -> {recording}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
