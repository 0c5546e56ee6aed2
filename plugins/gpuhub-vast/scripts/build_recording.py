"""Rebuild gpuhub-vast's bundled recording from the SkyPilot catalog's Vast.ai file.

Input: ``../shared/reference/skypilot-catalog/vast/vms.csv`` (SkyPilot catalog v8, commit 680a69b; CRLF). Each row
is a **summary**, not a listing: SkyPilot's fetcher groups live listings into buckets (GPU model and count, 32
vCPUs, 64 GiB) per region and keeps the bucket's median price (known fault C35). ``SpotPrice`` is always 0.00.

Output (inside the package): ``gpuhub_vast/recording/bundles.json``, one answer of ``POST /api/v0/bundles/`` in
Vast's shape (``{"offers": [...]}``), one entry per row:

* ``id`` = the row number (Vast's listing ids are not in the source); ``gpu_name`` = ``AcceleratorName``;
  ``num_gpus`` = ``AcceleratorCount``; ``gpu_ram`` = GpuInfo ``SizeInMiB`` / count (the file's per-GPU field
  holds the total of all GPUs, known fault C32); ``cpu_cores`` = ``cpu_cores_effective`` = ``vCPUs``;
  ``cpu_ram`` = the MiB figure in the instance type name (``-65536`` = ``MemoryGiB`` x 1024);
* ``dph_base`` = ``Price``; ``min_bid`` = ``SpotPrice`` (0.00: the provider skips it as a placeholder);
  ``geolocation`` = the first two parts of ``Region`` (``"France, FR"``; ``", US"`` when the place is empty);
  no ``storage_cost``, ``disk_space``, ``reliability2`` or ``verification`` (not in the source).

Usage::

    python plugins/gpuhub-vast/scripts/build_recording.py [path/to/vms.csv]
"""

from __future__ import annotations

import ast
import csv
import json
import sys
from pathlib import Path
from typing import Any

from gpuhub.plugin import json_exchange

PLUGIN = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PLUGIN))

from gpuhub_vast.provider import DEFAULT_LIMIT, search_body  # noqa: E402

PACKAGE = PLUGIN / "gpuhub_vast"
DEFAULT_CATALOG = PLUGIN.parents[2] / "shared" / "reference" / "skypilot-catalog" / "vast" / "vms.csv"
URL = "https://console.vast.ai/api/v0/bundles/"
RECORDED_AT = "2026-12-01"


def build(path: Path) -> dict[str, Any]:
    """The bundles answer."""
    with path.open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    offers = []
    for number, row in enumerate(rows, start=1):
        info = ast.literal_eval(row["GpuInfo"])
        count = int(row["AcceleratorCount"])
        place, country, _ = (p.strip() for p in row["Region"].split(","))
        offers.append({
            "id": number, "gpu_name": row["AcceleratorName"], "num_gpus": count,
            "gpu_ram": info["Gpus"][0]["MemoryInfo"]["SizeInMiB"] / count,
            "cpu_cores": int(row["vCPUs"]), "cpu_cores_effective": int(row["vCPUs"]),
            "cpu_ram": int(row["InstanceType"].rsplit("-", 1)[1]),
            "dph_base": float(row["Price"]), "min_bid": float(row["SpotPrice"]),
            "geolocation": f"{place}, {country}" if place else f", {country}",
        })
    return {"offers": offers}


def main(argv: list[str]) -> None:
    answer = build(Path(argv[1]) if len(argv) > 1 else DEFAULT_CATALOG)
    out = PACKAGE / "recording"
    out.mkdir(exist_ok=True)
    (out / "bundles.json").write_text(json.dumps(answer, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    manifest = {
        "format": 1, "provider": "vast", "recorded_at": RECORDED_AT, "data_date": None,
        "data_date_note": "SkyPilot catalog v8 vast/vms.csv at commit 680a69b; the commit's date is not known and "
                          "the file has no date column",
        "kind": "reconstructed",
        "source": "SkyPilot catalog v8 vast/vms.csv (skypilot-org/skypilot-catalog@680a69b)",
        "notes": "One offer-search answer rebuilt by scripts/build_recording.py from the catalog's 63 rows. Each "
                 "row is the median price of a bucket of listings (SkyPilot's fetcher; known fault C35), not a "
                 "listing: the provider marks every replayed price listing_stat=median (count not in the source) "
                 "and availability unknown. Listing ids are row numbers; storage cost, disk, reliability and "
                 "verification are not in the source; every SpotPrice is 0.00 (no interruptible prices).",
        "exchanges": [json_exchange(URL, "bundles.json", method="POST", body=search_body(DEFAULT_LIMIT))],
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(answer['offers'])} listings")


if __name__ == "__main__":
    main(sys.argv)
