"""Rebuild gpuhub-hyperbolic's bundled recording from the published SkyPilot catalog.

Input: ``../shared/reference/skypilot-catalog/hyperbolic/vms.csv`` (SkyPilot catalog v8, skypilot-org/skypilot-catalog
commit 0082b04; no date in the file or the index). SkyPilot's ``fetch_hyperbolic.py`` writes each item of
Hyperbolic's ``GET /v2/skypilot/catalog`` answer as one row, unchanged except ``GpuInfo`` (a dict in the answer,
Python-literal text in the file).

Output: ``gpuhub_hyperbolic/recording/catalog.json`` (``{"vms": [...]}``: every row as an item, numbers as numbers,
``GpuInfo`` as an object, empty cells as null) and ``manifest.json`` (``kind: reconstructed``). Every row is
validated (count = ``GpuInfo`` count, a positive price, MiB-sized GPU memory); a row that fails is left out and
reported. Usage (from the repository root)::

    python plugins/gpuhub-hyperbolic/scripts/build_recording.py [--check] [path/to/vms.csv]
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
RECORDING = PLUGIN / "gpuhub_hyperbolic" / "recording"
DEFAULT_CATALOG = PLUGIN.parents[2] / "shared" / "reference" / "skypilot-catalog" / "hyperbolic" / "vms.csv"
URL = "https://api.hyperbolic.xyz/v2/skypilot/catalog"
RECORDED_AT = "2026-12-01"
NUMBERS = ("AcceleratorCount", "vCPUs", "MemoryGiB", "StorageGiB", "Price", "SpotPrice")


def _number(text: str) -> int | float | None:
    if text == "":
        return None
    value = Decimal(text)
    return int(value) if value == value.to_integral_value() and "." not in text else float(text)


def build(catalog: Path) -> tuple[dict[str, Any], Counter[str]]:
    """The catalog answer rebuilt from ``catalog``, and the rows left out by reason."""
    items: list[dict[str, Any]] = []
    skipped: Counter[str] = Counter()
    with catalog.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            item: dict[str, Any] = {k: (_number(v) if k in NUMBERS else v) for k, v in row.items()}
            info = ast.literal_eval(row["GpuInfo"]) if row["GpuInfo"] else None
            item["GpuInfo"] = info
            if not item["Price"] or Decimal(row["Price"]) <= 0:
                skipped["placeholder price"] += 1
                continue
            if info and info["Gpus"][0]["Count"] != item["AcceleratorCount"]:
                skipped["GpuInfo count differs from AcceleratorCount"] += 1
                continue
            if info and info["Gpus"][0]["MemoryInfo"]["SizeInMiB"] < 1024:
                skipped["GPU memory not in MiB"] += 1
                continue
            items.append(item)
    return {"vms": items}, skipped


def manifest() -> dict[str, Any]:
    return {
        "format": 1, "provider": "hyperbolic", "recorded_at": RECORDED_AT, "data_date": None,
        "data_date_note": "SkyPilot catalog v8 hyperbolic/vms.csv (commit 0082b04); the file and the index carry no "
                          "date",
        "kind": "reconstructed",
        "source": "SkyPilot catalog v8 hyperbolic/vms.csv (skypilot-org/skypilot-catalog@0082b04)",
        "notes": "Hyperbolic's GET /v2/skypilot/catalog answer rebuilt by scripts/build_recording.py: each catalog row "
                 "is one item of 'vms' (SkyPilot's fetcher writes the answer's items as rows), GpuInfo back to an "
                 "object. No HTTP Date header: the rows' date is unknown.",
        "exchanges": [json_exchange(URL, "catalog.json")],
    }


def main(argv: list[str]) -> int:
    check = "--check" in argv
    paths = [a for a in argv if a != "--check"]
    body, skipped = build(Path(paths[0]) if paths else DEFAULT_CATALOG)
    for path, data in {RECORDING / "catalog.json": body, RECORDING / "manifest.json": manifest()}.items():
        text = json.dumps(data, indent=1) + "\n"
        if check and path.read_text(encoding="utf-8") != text:
            print(f"{path} differs from a rebuild", file=sys.stderr)
            return 1
        if not check:
            path.write_text(text, encoding="utf-8")
    print(f"{len(body['vms'])} VM sizes; rows left out: {dict(skipped) or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
