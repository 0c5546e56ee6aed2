"""Build gpuhub-coreweave's bundled price table and recording manifest from the shared reference facts.

Inputs (read, never copied):
    ../shared/reference/provider-samples/coreweave/pricing-page-transcription...2026-09-20....yml
        CoreWeave's pricing page, transcribed 2026-09-20 (whole-node USD prices per instance-hour).
    gpuhub/data/regions.csv
        CoreWeave's regions (the core's region table, built from ../shared/reference/regions.csv).

Outputs:
    gpuhub_coreweave/recording/price_table.json   the versioned price table fetch() reads
    gpuhub_coreweave/recording/manifest.json      provenance; no HTTP exchanges (CoreWeave has no price API)

Run from anywhere:  python plugins/gpuhub-coreweave/scripts/build_recording.py [--check]
``--check`` rebuilds in memory and exits 1 when the bundled files differ (for CI).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any

PLUGIN = Path(__file__).resolve().parents[1]
REPO = PLUGIN.parents[1]
sys.path.insert(0, str(PLUGIN))

from gpuhub_coreweave.parse import cpu_arch_for, page_row, parse_money, parse_spot, read_transcription_plans  # noqa: E402

from gpuhub.plugin import GpuTable, load_builtin_specs  # noqa: E402

VERIFIED_AT = "2026-09-20"
SOURCE_URL = "https://www.coreweave.com/pricing"
TRANSCRIPTION = (REPO.parent / "shared" / "reference" / "provider-samples" / "coreweave"
                 / f"pricing-page-transcription.coreweave.com-pricing.{VERIFIED_AT}.api-evangelist.yml")
REGIONS_CSV = REPO / "gpuhub" / "data" / "regions.csv"
OUT = PLUGIN / "gpuhub_coreweave" / "recording"
PRICE_REGION = "North America"
REGION_STATUS = "general-access"
BILLING_INCREMENT_S = 60  # "Billing is per minute" (CoreWeave docs, billing and charges)
# Facts about single rows that the page transcription does not carry (sources in the text).
ROW_NOTES = {
    "HGX H100": "CKS instance type label gd-8xh100ib-i128 (CoreWeave docs)",
    "GB200 NVL72 (4-GPU slice)": "sold per 4-GPU slice of a GB200 NVL72 rack (CKS instance type label gb200-4x, "
                                 "CoreWeave usage-monitoring docs); 4 x 10.50 USD per GPU-hour",
}


# Boards the page prices only as spot ("Contact sales" on-demand); GPUs per board are not on the page.
SPOT_ONLY_BOARDS = {
    "HGX B300": (8, "8 GPUs per HGX B300 board (AWS DescribeInstanceTypes p6-b300.48xlarge, moto 5.2.1: 8 x B300); "
                    "memory per GPU not published on the page; on-demand: Contact sales (spot price only)"),
}


def spot_only_row(plan: dict[str, str]) -> dict[str, Any] | None:
    """A row for a board the page sells on demand only through sales but gives a spot price for
    (``'HGX B300 Spot Price: $35.84 / Hour (NA)'``), or None."""
    spot = parse_spot(plan.get("overage"))
    if spot is None or parse_money(plan.get("price_text")) is not None:
        return None
    board = str(plan.get("overage", "")).split("Spot")[0].strip()
    if board not in SPOT_ONLY_BOARDS:
        return None
    count, note = SPOT_ONLY_BOARDS[board]
    return {"instance_type": board, "page_name": plan["name"], "gpu": board, "gpu_count": count,
            "gpu_memory_gb": None, "vcpus": None, "ram_gb": None, "local_storage_tb": None, "cpu_arch": "x86_64",
            "on_demand": None, "spot": str(spot[0]), "note": note}


def regions() -> list[str]:
    """CoreWeave's general-access regions in North America, in the region table's order."""
    with REGIONS_CSV.open(newline="", encoding="utf-8") as fh:
        return [r["region"] for r in csv.DictReader(fh)
                if r["provider"] == "coreweave" and r["continent"] == PRICE_REGION and r["status"] == REGION_STATUS]


def build() -> tuple[dict[str, Any], dict[str, Any]]:
    """The price table and the manifest, as JSON-ready dicts."""
    plans = read_transcription_plans(TRANSCRIPTION.read_text(encoding="utf-8"))
    gpus = GpuTable()
    for spec in load_builtin_specs():
        gpus.add(spec)
    rows: list[dict[str, Any]] = []
    left_out: list[str] = []
    for plan in plans:
        row = page_row(plan)
        spot_only = spot_only_row(plan) if row is None else None
        if spot_only is not None:
            rows.append(spot_only)
            left_out.append(f"{plan['name']}: {plan.get('price_text', 'no price')} on demand "
                            f"(only the {spot_only['instance_type']} spot price is offered)")
            continue
        if row is None:
            if "GPU" in plan.get("included_quota", "") or "NVIDIA" in plan.get("name", ""):
                left_out.append(f"{plan['name']}: {plan.get('price_text', 'no price')}")
            continue
        q = row.quota
        vram = float(q.vram_gb_per_gpu) if q.vram_gb_per_gpu is not None else None
        resolved = gpus.resolve(row.gpu, vram)
        if resolved is None:
            print(f"warning: {row.gpu!r} is not in gpuhub's GPU table; it will be an unknown GPU", file=sys.stderr)
        rows.append({
            "instance_type": row.instance_type,
            "page_name": row.page_name,
            "gpu": row.gpu,
            "gpu_count": q.gpus,
            "gpu_memory_gb": vram,
            "vcpus": q.vcpus,
            "ram_gb": float(q.ram_gb) if q.ram_gb is not None else None,
            "local_storage_tb": float(q.local_storage_tb) if q.local_storage_tb is not None else None,
            "cpu_arch": cpu_arch_for(resolved.name if resolved else None),
            "on_demand": str(row.on_demand),
            "spot": str(row.spot) if row.spot is not None else None,
            "note": ROW_NOTES.get(row.instance_type),
        })
    region_codes = regions()
    table = {
        "format": 1,
        "provider": "coreweave",
        "verified_at": VERIFIED_AT,
        "source_url": SOURCE_URL,
        "currency": "USD",
        "price_unit": "instance-hour",
        "price_region": PRICE_REGION,
        "regions": region_codes,
        "region_rule": f"CoreWeave regions in gpuhub's region table with continent {PRICE_REGION} and status "
                       f"{REGION_STATUS}: the page's prices are North America prices (spot marked 'NA'); "
                       "legacy (CoreWeave Cloud) and dedicated-access regions are left out",
        "billing_increment_s": BILLING_INCREMENT_S,
        "instances": rows,
    }
    manifest = {
        "format": 1,
        "provider": "coreweave",
        "recorded_at": VERIFIED_AT,
        "data_date": VERIFIED_AT,
        "data_date_note": "the day the prices were read from CoreWeave's pricing page",
        "kind": "static price table",
        "source": f"{SOURCE_URL} as transcribed on {VERIFIED_AT} (api-evangelist/coreweave "
                  "plans/coreweave-plans-pricing.yml); table in price_table.json",
        "notes": "CoreWeave has no price API: no HTTP exchanges. Whole-node on-demand and spot prices, USD per "
                 f"instance-hour, offered in {len(region_codes)} general-access North America regions. Left out: "
                 + "; ".join([*left_out, "CPU-only nodes, storage and networking (not GPU instances)",
                             "reserved capacity ('up to 60%' off, no price published)"]),
        "exchanges": [],
    }
    return table, manifest


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the bundled files, write nothing")
    args = parser.parse_args(argv)
    if not TRANSCRIPTION.is_file():
        print(f"missing {TRANSCRIPTION}: the shared reference data is needed to rebuild", file=sys.stderr)
        return 2
    table, manifest = build()
    files = {"price_table.json": _dump(table), "manifest.json": _dump(manifest)}
    if args.check:
        stale = [n for n, text in files.items() if (OUT / n).read_text(encoding="utf-8") != text]
        print("up to date" if not stale else f"out of date: {', '.join(stale)}")
        return 1 if stale else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (OUT / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(table['instances'])} instance types x {len(table['regions'])} regions to {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
