"""Rebuild the GCP zone table (``gpuhub_gcp/data/zones.csv``): which zones sell which GPU machine type.

Input (read only, never copied): ``../shared/reference/skypilot-catalog/gcp/vms.csv`` (SkyPilot catalog v8,
commit 8427bbf), whose rows exist only where Google sells the type:

* host-VM rows (``InstanceType`` set): one row per A2/A3/A4 machine type and zone;
* accelerator rows (``InstanceType`` empty) of ``L4``: one row per zone and GPU count; L4 attaches only to G2, so
  a zone with ``L4:1`` sells the 1-GPU G2 sizes, ``L4:2`` g2-standard-24, ``L4:4`` g2-standard-48, ``L4:8``
  g2-standard-96.

and ``vms-g2-n1.csv`` (the same catalog's G2 and N1 host rows and T4/V100/P100/P4 accelerator rows):

* a G2 type is sold in a zone that has both its host row and its ``L4:<count>`` row;
* an N1 type with attached GPUs (``n1-standard-8+nvidia-tesla-t4x2``) in a zone that has both the
  ``n1-standard-8`` host row and the ``T4:2`` accelerator row.

Output: one row per (machine type, region) with the region's zones (``;``-separated, sorted) and the source of the
fact. ``-nolssd`` variants are folded into their base type's facts only when the base type has its own rows (they
are not separate offers in gpuhub). Deterministic: the same input gives a byte-identical file.

Run from the repository root:  python plugins/gpuhub-gcp/scripts/build_zones.py
"""

from __future__ import annotations

import csv
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PLUGIN = HERE.parent
sys.path.insert(0, str(PLUGIN))

from gpuhub_gcp.machines import machine_types  # noqa: E402

CATALOG = PLUGIN.parents[1] / ".." / "shared" / "reference" / "skypilot-catalog" / "gcp" / "vms.csv"
OUT = PLUGIN / "gpuhub_gcp" / "data" / "zones.csv"
CATALOG_G2_N1 = CATALOG.with_name("vms-g2-n1.csv")
SOURCE = "skypilot-catalog catalogs/v8/gcp/vms.csv@8427bbf"
N1_ACCELERATORS = {"T4": "nvidia-tesla-t4", "V100": "nvidia-tesla-v100", "P100": "nvidia-tesla-p100",
                   "P4": "nvidia-tesla-p4"}


def g2_n1_zones(known: dict[str, Any]) -> dict[tuple[str, str], set[str]]:
    """(machine type, region) -> zones for G2 (host and L4 rows) and N1 + GPU types (host and GPU rows)."""
    hosts: dict[str, set[tuple[str, str]]] = defaultdict(set)
    gpus: dict[tuple[str, int], set[tuple[str, str]]] = defaultdict(set)
    for path in (CATALOG, CATALOG_G2_N1):
        with open(path, newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                where = (row["Region"], row["AvailabilityZone"])
                if row["InstanceType"]:
                    hosts[row["InstanceType"]].add(where)
                elif row["AcceleratorName"]:
                    gpus[(row["AcceleratorName"], int(float(row["AcceleratorCount"])))].add(where)
    accelerator_name = {"nvidia-l4": "L4", **{v: k for k, v in N1_ACCELERATORS.items()}}
    out: dict[tuple[str, str], set[str]] = defaultdict(set)
    for machine in known.values():
        if machine.family not in ("G2", "N1"):
            continue
        host = machine.name.split("+", 1)[0]
        for region, zone in hosts[host] & gpus[(accelerator_name[machine.accelerator], machine.gpu_count)]:
            out[(machine.name, region)].add(zone)
    return out


def main() -> None:
    known = {m.name: m for m in machine_types()}
    g2_by_count: dict[int, list[str]] = defaultdict(list)
    for m in known.values():
        if m.family == "G2":
            g2_by_count[m.gpu_count].append(m.name)
    zones: dict[tuple[str, str], set[str]] = defaultdict(set)
    sources: dict[tuple[str, str], str] = {}
    with open(CATALOG, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            region, zone = row["Region"], row["AvailabilityZone"]
            if row["InstanceType"]:
                if row["InstanceType"] in known:
                    key = (row["InstanceType"], region)
                    zones[key].add(zone)
                    sources[key] = f"{SOURCE} host row"
            elif row["AcceleratorName"] == "L4":
                for name in g2_by_count.get(int(float(row["AcceleratorCount"])), ()):
                    key = (name, region)
                    zones[key].add(zone)
                    sources[key] = f"{SOURCE} L4:{row['AcceleratorCount']} accelerator row (L4 attaches to G2 only)"
    for key, found in g2_n1_zones(known).items():  # vms-g2-n1.csv: host and GPU rows of the same zone
        zones[key] = found
        sources[key] = f"{SOURCE.replace('vms.csv', 'vms-g2-n1.csv')} host+GPU rows"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with open(OUT, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["machine_type", "region", "zones", "source"])
        for (name, region) in sorted(zones):
            writer.writerow([name, region, ";".join(sorted(zones[(name, region)])), sources[(name, region)]])
    types = {name for name, _ in zones}
    print(f"wrote {len(zones)} (machine type, region) rows for {len(types)} machine types to {OUT}")


if __name__ == "__main__":
    main()
