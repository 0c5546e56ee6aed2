"""Rebuild gpuhub-jarvislabs' bundled recording from the published SkyPilot catalog.

Input: ``../shared/reference/skypilot-catalog/jarvislabs/vms.csv`` (SkyPilot catalog v8, skypilot-org/skypilot-catalog
commit 8f09711; no date in the file or the index). SkyPilot's fetcher writes one row per GPU pool and GPU count
(1, 2, 4, 8 up to the pool's ceiling), with the per-GPU price, vCPUs and RAM multiplied by the count, the region
as JarvisLabs' display code (IN1, IN2) and CPU-only plans as rows without a GPU.

Output: ``gpuhub_jarvislabs/recording/server-meta.json``, one ``GET /misc/server_meta`` answer in JarvisLabs' own
shape (field names from the jarvislabs SDK's ``ServerMetaGPU`` model), and ``manifest.json`` (``kind:
reconstructed``). Reconstruction rules:

* one ``server_meta`` pool per (GPU, region): ``gpu_type`` in JarvisLabs' spelling (``RTX-PRO6000``; the others as
  the catalog writes them), ``region`` = the SDK's region id for the display code, ``workload_type`` = ``vm`` (the
  catalog holds VM pools only), ``num_gpus`` = the largest count the catalog lists, ``price_per_hour``,
  ``cpus_per_gpu``, ``ram_per_gpu`` = the row's figures divided by its count (every row of a pool must agree),
  ``vram`` = the catalog's MiB per GPU / 1024, in GB as text;
* no ``num_free_devices``: the catalog is not a capacity snapshot;
* ``cpu_meta.combinations``: the CPU-only rows, one plan per size with the regions it is listed in;
* ``currency``: ``USD`` (SkyPilot's fetcher refuses any other currency).

Every row is validated; a row that fails is left out and reported. Usage (from the repository root)::

    python plugins/gpuhub-jarvislabs/scripts/build_recording.py [--check] [path/to/vms.csv]
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
RECORDING = PLUGIN / "gpuhub_jarvislabs" / "recording"
DEFAULT_CATALOG = PLUGIN.parents[2] / "shared" / "reference" / "skypilot-catalog" / "jarvislabs" / "vms.csv"
URL = "https://backendn.jarvislabs.net/misc/server_meta"
RECORDED_AT = "2026-12-01"
REGION_IDS = {"IN1": "india-chennai-01", "IN2": "india-noida-01", "EU1": "europe-01"}  # jarvislabs SDK constants
JARVISLABS_GPU = {"RTXPRO6000": "RTX-PRO6000"}  # SkyPilot's jarvislabs utils: the API's hyphenated spelling


def _gpu_mib(gpu_info: str) -> int:
    info = ast.literal_eval(gpu_info)
    return int(info["Gpus"][0]["MemoryInfo"]["SizeInMiB"])


def build(catalog: Path) -> tuple[dict[str, Any], Counter[str]]:
    """The ``server_meta`` answer rebuilt from ``catalog``, and the rows left out by reason."""
    pools: dict[tuple[str, str], dict[str, Any]] = {}
    cpu: dict[tuple[int, int], dict[str, Any]] = {}
    skipped: Counter[str] = Counter()
    with catalog.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            region = REGION_IDS.get(row["Region"])
            if region is None:
                skipped[f"unknown region {row['Region']!r}"] += 1
                continue
            price = Decimal(row["Price"])
            if price <= 0:
                skipped["placeholder price"] += 1
                continue
            if not row["AcceleratorName"]:
                combo = cpu.setdefault((int(float(row["vCPUs"])), int(row["MemoryGiB"])), {
                    "vcpus": int(float(row["vCPUs"])), "ram_gb": int(row["MemoryGiB"]), "price_per_hour": float(price),
                    "available": True, "regions": {}})
                if Decimal(str(combo["price_per_hour"])) != price:
                    skipped["CPU plan priced differently per region"] += 1
                    continue
                combo["regions"][region] = True
                continue
            count = int(row["AcceleratorCount"])
            mib = _gpu_mib(row["GpuInfo"])
            if mib < 1024:  # a GB figure in the MiB field (known fault C37)
                skipped["GPU memory not in MiB"] += 1
                continue
            per_gpu = {"price_per_hour": float(price / count), "cpus_per_gpu": int(float(row["vCPUs"])) // count,
                       "ram_per_gpu": int(row["MemoryGiB"]) // count, "vram": f"{mib // 1024}"}
            gpu = JARVISLABS_GPU.get(row["AcceleratorName"], row["AcceleratorName"])
            pool = pools.setdefault((gpu, region), {"gpu_type": gpu, "region": region, "workload_type": "vm",
                                                    "num_gpus": count, **per_gpu, "spot_price": None})
            if any(pool[k] != v for k, v in per_gpu.items()):
                skipped["row disagrees with its pool's per-GPU figures"] += 1
                continue
            pool["num_gpus"] = max(pool["num_gpus"], count)
    body = {"currency": "USD", "server_meta": list(pools.values()),
            "cpu_meta": {"combinations": list(cpu.values())}}
    return body, skipped


def manifest() -> dict[str, Any]:
    return {
        "format": 1, "provider": "jarvislabs", "recorded_at": RECORDED_AT, "data_date": None,
        "data_date_note": "SkyPilot catalog v8 jarvislabs/vms.csv (commit 8f09711); the file and the index carry no "
                          "date",
        "kind": "reconstructed",
        "source": "SkyPilot catalog v8 jarvislabs/vms.csv (skypilot-org/skypilot-catalog@8f09711)",
        "notes": "JarvisLabs' GET /misc/server_meta answer rebuilt by scripts/build_recording.py: one VM pool per GPU "
                 "and region with the catalog's per-GPU price, vCPUs and RAM; no capacity fields (the catalog is "
                 "not a capacity snapshot); CPU-only plans in cpu_meta.",
        "exchanges": [json_exchange(URL, "server-meta.json")],
    }


def main(argv: list[str]) -> int:
    check = "--check" in argv
    paths = [a for a in argv if a != "--check"]
    body, skipped = build(Path(paths[0]) if paths else DEFAULT_CATALOG)
    outputs = {RECORDING / "server-meta.json": body, RECORDING / "manifest.json": manifest()}
    for path, data in outputs.items():
        text = json.dumps(data, indent=1) + "\n"
        if check:
            if path.read_text(encoding="utf-8") != text:
                print(f"{path} differs from a rebuild", file=sys.stderr)
                return 1
        else:
            path.write_text(text, encoding="utf-8")
    print(f"{len(body['server_meta'])} GPU pools, {len(body['cpu_meta']['combinations'])} CPU plans; "
          f"rows left out: {dict(skipped) or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
