"""Rebuild gpuhub-runpod's bundled recording and data-centre table from the SkyPilot catalog's RunPod file.

Input: ``../shared/reference/skypilot-catalog/runpod/vms.digest.csv``, a digest of SkyPilot catalog v8
``runpod/vms.csv`` (commit 46062ac): one row per instance type ``Nx_<GPU>_SECURE`` with vCPUs, RAM (GB), Price and
SpotPrice (USD per pod-hour), GpuInfo (RunPod's GPU name, manufacturer, memory in GB written in a MiB field, C37)
and the ``country/data centre`` pairs it is sold in. CPU rows are left out.

Output (inside the package): ``gpuhub_runpod/recording/`` -- the answers of RunPod's GraphQL API in its own shape:

* ``catalog.json``: the answer to ``CATALOG_QUERY``: ``countryCodes`` and ``dataCenters`` (every pair of the
  file, ``listed: true``) and one ``gpuTypes`` entry per GPU model: ``id`` and ``displayName`` = the GpuInfo name
  (RunPod's own ids are not in the source), ``manufacturer``, ``memoryInGb``, ``maxGpuCount`` (largest count in the
  file), ``secureCloud: true``, ``securePrice`` = the 1-GPU row's Price (every row of a model is exactly linear in
  the GPU count), ``communityCloud: false`` and ``communityPrice: null`` (the file holds Secure Cloud only);
* ``price-N.json`` per GPU count N: the answer to ``PRICE_QUERY`` for ``{gpuCount: N, secureCloud: true}``:
  ``lowestPrice`` = ``minVcpu``/``minMemory`` of the N-GPU row, ``uninterruptablePrice`` = Price / N,
  ``minimumBidPrice`` = SpotPrice / N (null where the file has none), ``stockStatus: "High"`` -- the file has no
  stock figures; SkyPilot lists only types that were offered, and the manifest says the status is assumed --,
  and ``lowestPrice: null`` for a model without an N-GPU row;
* ``manifest.json``: the exchanges and their provenance (``kind: reconstructed``, data date unknown).

``gpuhub_runpod/data/regions.json``: data centre -> the countries the file lists it under (``EU-SE-1`` under NO
and SE), and the continent of each country. Usage (from the repository root)::

    python plugins/gpuhub-runpod/scripts/build_recording.py [path/to/vms.digest.csv]
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
sys.path.insert(0, str(PLUGIN))

from gpuhub_runpod.provider import CATALOG_QUERY, PRICE_QUERY, graphql_body  # noqa: E402

PACKAGE = PLUGIN / "gpuhub_runpod"
DEFAULT_DIGEST = PLUGIN.parents[2] / "shared" / "reference" / "skypilot-catalog" / "runpod" / "vms.digest.csv"
URL = "https://api.runpod.io/graphql"
RECORDED_AT = "2026-12-01"
CONTINENTS = {"CA": "North America", "US": "North America", "CZ": "Europe", "NL": "Europe", "RO": "Europe",
              "NO": "Europe", "SE": "Europe", "IS": "Europe"}


def _number(text: str) -> float | int:
    value = float(text)
    return int(value) if value.is_integer() else value


def _per_gpu(text: str, count: int) -> float | None:
    if not text:
        return None
    return float(Decimal(text) / count)


def build(digest: Path) -> tuple[dict[str, Any], dict[int, dict[str, Any]], dict[str, Any]]:
    """The catalog answer, the price answer per GPU count, and the region table."""
    rows = [r for r in csv.DictReader(digest.open(newline="", encoding="utf-8")) if r["AcceleratorName"]]
    models: dict[str, dict[str, Any]] = {}
    pairs: list[tuple[str, str]] = []
    for row in rows:
        info = ast.literal_eval(row["GpuInfo"])["Gpus"][0]
        count = int(float(row["AcceleratorCount"]))
        model = models.setdefault(row["AcceleratorName"], {"info": info, "counts": {}})
        model["counts"][count] = row
        for pair in row["Regions"].split(";"):
            country, zone = pair.split("/")
            if (country, zone) not in pairs:
                pairs.append((country, zone))
    data_centres: dict[str, list[str]] = {}
    for country, zone in pairs:
        data_centres.setdefault(zone, []).append(country)
    types = []
    for model in models.values():
        info, counts = model["info"], model["counts"]
        types.append({"id": info["Name"], "displayName": info["Name"], "manufacturer": info["Manufacturer"],
                      "memoryInGb": info["MemoryInfo"]["SizeInMiB"], "maxGpuCount": max(counts),
                      "secureCloud": True, "communityCloud": False,
                      "securePrice": _number(counts[1]["Price"]), "communityPrice": None})
    countries = list(dict.fromkeys(country for country, _ in pairs))
    catalog = {"data": {"countryCodes": countries,
                        "dataCenters": [{"id": zone, "listed": True} for zone in data_centres],
                        "gpuTypes": types}}
    prices: dict[int, dict[str, Any]] = {}
    for count in range(1, max(t["maxGpuCount"] for t in types) + 1):
        entries = []
        for model in models.values():
            row = model["counts"].get(count)
            lowest = None if row is None else {
                "minimumBidPrice": _per_gpu(row["SpotPrice"], count),
                "uninterruptablePrice": _per_gpu(row["Price"], count),
                "minVcpu": _number(row["vCPUs"]), "minMemory": _number(row["MemoryGiB"]), "stockStatus": "High"}
            entries.append({"id": model["info"]["Name"], "lowestPrice": lowest})
        prices[count] = {"data": {"gpuTypes": entries}}
    regions = {"data_centres": data_centres, "continents": {c: CONTINENTS[c] for c in countries}}
    return catalog, prices, regions


def main(argv: list[str]) -> None:
    digest = Path(argv[1]) if len(argv) > 1 else DEFAULT_DIGEST
    catalog, prices, regions = build(digest)
    out = PACKAGE / "recording"
    out.mkdir(exist_ok=True)
    exchanges = []

    def exchange(body: str, name: str, answer: dict[str, Any]) -> None:
        (out / name).write_text(json.dumps(answer, indent=1) + "\n", encoding="utf-8")
        exchanges.append(json_exchange(URL, name, method="POST", body=body))

    exchange(graphql_body(CATALOG_QUERY), "catalog.json", catalog)
    for count, answer in prices.items():
        exchange(graphql_body(PRICE_QUERY, {"lowestPriceInput": {"gpuCount": count, "secureCloud": True}}),
                 f"price-{count}.json", answer)
    manifest = {
        "format": 1, "provider": "runpod", "recorded_at": RECORDED_AT, "data_date": None,
        "data_date_note": "SkyPilot catalog v8 runpod/vms.csv at commit 46062ac; the commit's date is not known "
                          "and the file has no date column",
        "kind": "reconstructed",
        "source": "SkyPilot catalog v8 runpod/vms.csv (skypilot-org/skypilot-catalog@46062ac), as the digest "
                  "../shared/reference/skypilot-catalog/runpod/vms.digest.csv",
        "notes": "RunPod's GraphQL answers rebuilt by scripts/build_recording.py: 25 GPU models, Secure Cloud only "
                 "(the file has no Community Cloud rows), 24 data centres. Not in the source and so not real "
                 "RunPod values: the GPU ids (the catalog's GPU names are used), stockStatus (\"High\" for every "
                 "type and count the file lists). Per-GPU prices are the file's pod prices divided by the GPU "
                 "count (exact: every model's rows are linear in the count).",
        "exchanges": exchanges,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    (PACKAGE / "data" / "regions.json").write_text(json.dumps(regions, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(exchanges)} exchanges, {len(catalog['data']['gpuTypes'])} GPU types")


if __name__ == "__main__":
    main(sys.argv)
