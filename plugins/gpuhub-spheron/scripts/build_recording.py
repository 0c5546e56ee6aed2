"""Rebuild gpuhub-spheron's bundled recording from the SkyPilot catalog's Spheron file.

Usage (from the plugin directory): ``python scripts/build_recording.py [PATH/TO/skypilot-catalog/spheron/vms.csv]``
(default ``../../../shared/reference/skypilot-catalog/spheron/vms.csv``).

SkyPilot's fetcher (``sky/catalog/data_fetchers/fetch_spheron.py``) writes one catalog row per available offer and
cluster; this script inverts it: rows of one ``InstanceType`` (the ``offerId``) become one offer whose ``clusters``
are the rows' regions, grouped by ``gpuType`` (the catalog's ``AcceleratorName``: SkyPilot upper-cases the API's
``gpuType``, whose original case is not in the catalog). A ``SPOT`` offer's ``price`` is the row's ``SpotPrice``
(the fetcher moves it there); ``gpu_memory`` is ``SizeInMiB`` / 1024 (the fetcher multiplies by 1024);
``os_options`` holds the one operating system the catalog kept. The groups are split into pages of
``PAGE_LIMIT``, as the plugin asks for them.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Any

from gpuhub.plugin import json_exchange

PLUGIN = Path(__file__).resolve().parents[1]
DEFAULT = PLUGIN.parents[1].parent / "shared" / "reference" / "skypilot-catalog" / "spheron" / "vms.csv"
SOURCE = "SkyPilot catalog v8 catalogs/v8/spheron/vms.csv (skypilot-org/skypilot-catalog@3898983)"
PAGE_LIMIT = 20  # gpuhub_spheron.provider.PAGE_LIMIT
URL = "https://app.spheron.ai/api/gpu-offers?page={page}&limit={limit}"


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() else value


def _price(text: str) -> float | None:
    return float(text) if text.strip() else None


def offer(rows: list[dict[str, str]]) -> dict[str, Any]:
    """One API offer from the catalog rows of one offer id."""
    row = rows[0]
    info = json.loads(row["GpuInfo"])
    spot_offer = row["SpheronInstanceType"].upper() == "SPOT"
    item: dict[str, Any] = {
        "offerId": row["InstanceType"], "available": True, "maintenance": False,
        "gpuCount": _number(row["AcceleratorCount"]), "vcpus": _number(row["vCPUs"]),
        "memory": _number(row["MemoryGiB"]),
        "price": _price(row["SpotPrice"] if spot_offer else row["Price"]),
        "provider": row["Provider"], "instanceType": row["SpheronInstanceType"],
        "gpu_memory": _number(str(info["Gpus"][0]["MemoryInfo"]["SizeInMiB"] / 1024)),
        "os_options": [row["OperatingSystem"]], "clusters": [r["Region"] for r in rows],
    }
    if not spot_offer and row["SpotPrice"].strip():
        item["spot_price"] = _price(row["SpotPrice"])
    return item


def build(path: Path) -> list[dict[str, Any]]:
    """The pages of the answer for every row of ``path``."""
    by_offer: dict[str, list[dict[str, str]]] = {}
    with path.open(newline="") as fh:
        for row in csv.DictReader(fh):
            by_offer.setdefault(row["InstanceType"], []).append(row)
    groups: dict[str, list[dict[str, Any]]] = {}
    for rows in by_offer.values():
        groups.setdefault(rows[0]["AcceleratorName"], []).append(offer(rows))
    items = [{"gpuType": gpu_type, "offers": offers} for gpu_type, offers in groups.items()]
    pages = [items[i:i + PAGE_LIMIT] for i in range(0, len(items), PAGE_LIMIT)]
    return [{"data": page, "page": n, "limit": PAGE_LIMIT, "totalPages": len(pages)}
            for n, page in enumerate(pages, start=1)]


def main(argv: list[str]) -> None:
    pages = build(Path(argv[1]) if len(argv) > 1 else DEFAULT)
    out = PLUGIN / "gpuhub_spheron" / "recording"
    exchanges = []
    for n, page in enumerate(pages, start=1):
        name = f"gpu-offers-page{n}.json"
        (out / name).write_text(json.dumps(page, indent=1) + "\n", encoding="utf-8")
        exchanges.append(json_exchange(URL.format(page=n, limit=PAGE_LIMIT), name))
    manifest = {
        "format": 1, "provider": "spheron", "recorded_at": None, "data_date": None,
        "data_date_note": "the SkyPilot catalog file carries no date and the index gives no commit date",
        "kind": "reconstructed", "source": SOURCE,
        "notes": "Spheron's /api/gpu-offers answer rebuilt by scripts/build_recording.py from the catalog (one offer "
                 "per offerId, its clusters from the catalog's regions; gpuType upper-cased as SkyPilot stores it; "
                 "only available offers, as the fetcher keeps them; one operating system per offer).",
        "exchanges": exchanges,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(pages)} pages to {out}")


if __name__ == "__main__":
    main(sys.argv)
