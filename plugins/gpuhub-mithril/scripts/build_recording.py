"""Rebuild gpuhub-mithril's bundled recording from the published SkyPilot catalog.

Input: ``../shared/reference/skypilot-catalog/mithril/vms.csv`` (SkyPilot catalog v8, skypilot-org/skypilot-catalog
commit f379965; no date in the file or the index). SkyPilot's ``fetch_mithril.py`` writes one row per instance type
and region of ``/v2/spot/availability``, with ``Price`` = ``SpotPrice`` = the type's ``minimum_price_cents`` / 100.

Output (``gpuhub_mithril/recording/``, ``kind: reconstructed``): the answers of ``GET /v2/instance-types`` (one
item per type: name, GPU, counts and sizes from the row; ``gpu_memory_gb`` = the row's MiB per GPU / 1024; the
``fid`` is made up, ``it_gpuhub...``: the catalog does not keep it), ``GET /v2/pricing/current?instance_type=<fid>``
per type (``minimum_price_cents`` = ``Price`` x 100) and ``GET /v2/spot/availability`` (one record per row, without
``last_instance_price``: the catalog does not keep it). The placeholder prices (1 cent per GPU-hour: the A100 and
B200 rows) are kept as answered: the plugin skips them. Usage (from the repository root)::

    python plugins/gpuhub-mithril/scripts/build_recording.py [--check] [path/to/vms.csv]
"""

from __future__ import annotations

import ast
import csv
import hashlib
import json
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from gpuhub.plugin import json_exchange

PLUGIN = Path(__file__).resolve().parents[1]
RECORDING = PLUGIN / "gpuhub_mithril" / "recording"
DEFAULT_CATALOG = PLUGIN.parents[2] / "shared" / "reference" / "skypilot-catalog" / "mithril" / "vms.csv"
ROOT = "https://api.mithril.ai/v2"
RECORDED_AT = "2026-12-01"


def _fid(name: str) -> str:
    return "it_gpuhub" + hashlib.sha256(name.encode()).hexdigest()[:10]


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value == int(value) else value


def build(catalog: Path) -> dict[str, Any]:
    """Body file name -> answer, rebuilt from ``catalog``."""
    types: dict[str, dict[str, Any]] = {}
    prices: dict[str, int] = {}
    availability: list[dict[str, Any]] = []
    with catalog.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            fid = _fid(row["InstanceType"])
            info = ast.literal_eval(row["GpuInfo"]) if row["GpuInfo"] else None
            mib = info["Gpus"][0]["MemoryInfo"]["SizeInMiB"] if info else None
            types.setdefault(fid, {"fid": fid, "name": row["InstanceType"], "gpu_type": row["AcceleratorName"],
                                   "num_gpus": _number(row["AcceleratorCount"] or "0"),
                                   "gpu_memory_gb": mib // 1024 if mib else None,
                                   "num_cpus": _number(row["vCPUs"]), "ram_gb": _number(row["MemoryGiB"])})
            prices[fid] = int(Decimal(row["Price"]) * 100)
            availability.append({"instance_type": fid, "region": row["Region"], "last_instance_price": None})
    bodies: dict[str, Any] = {"instance-types.json": list(types.values()), "spot-availability.json": availability}
    for fid, cents in prices.items():
        bodies[f"pricing-{fid}.json"] = {"minimum_price_cents": cents}
    return bodies


def manifest(bodies: dict[str, Any]) -> dict[str, Any]:
    exchanges = [json_exchange(f"{ROOT}/instance-types", "instance-types.json"),
                 json_exchange(f"{ROOT}/spot/availability", "spot-availability.json")]
    exchanges += [json_exchange(f"{ROOT}/pricing/current?{urlencode({'instance_type': item['fid']})}",
                            f"pricing-{item['fid']}.json") for item in bodies["instance-types.json"]]
    return {
        "format": 1, "provider": "mithril", "recorded_at": RECORDED_AT, "data_date": None,
        "data_date_note": "SkyPilot catalog v8 mithril/vms.csv (commit f379965); the file and the index carry no date",
        "kind": "reconstructed",
        "source": "SkyPilot catalog v8 mithril/vms.csv (skypilot-org/skypilot-catalog@f379965)",
        "notes": "Mithril's /v2/instance-types, /v2/pricing/current (one per type) and /v2/spot/availability answers "
                 "rebuilt by scripts/build_recording.py: fids are made up (it_gpuhub...); availability records have "
                 "no last_instance_price (not in the catalog), so offers are priced at the minimum auction price. "
                 "The A100 and B200 minimum prices (1 cent per GPU-hour) are placeholders, kept as answered.",
        "exchanges": exchanges,
    }


def main(argv: list[str]) -> int:
    check = "--check" in argv
    paths = [a for a in argv if a != "--check"]
    bodies = build(Path(paths[0]) if paths else DEFAULT_CATALOG)
    outputs = {**bodies, "manifest.json": manifest(bodies)}
    for name, data in outputs.items():
        path, text = RECORDING / name, json.dumps(data, indent=1) + "\n"
        if check and (not path.exists() or path.read_text(encoding="utf-8") != text):
            print(f"{path} differs from a rebuild", file=sys.stderr)
            return 1
        if not check:
            path.write_text(text, encoding="utf-8")
    print(f"{len(bodies['instance-types.json'])} instance types, {len(bodies['spot-availability.json'])} "
          "availability records")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
