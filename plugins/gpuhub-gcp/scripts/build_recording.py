"""Rebuild the bundled GCP recording (``gpuhub_gcp/recording/``) from the real SKU samples in ../shared.

Input (read only, never copied whole): ``../shared/reference/provider-samples/gcp/``
  * ``cloudbilling-v1.skus-items.compute-engine.gpu-h100-a3-n1std.2024-09-16.cromwell-monitor-test.json``:
    760 real Compute Engine SKUs of 2024-09-16 (GPU, A3/A3Plus core and RAM, N1 predefined core and RAM);
  * ``cloudbilling-v1.skus-items.mixed-11.h100-plus-spot-commit3yr-l4-spot.2024-09-16.cromwell-monitor-test.json``:
    11 real SKUs of the same date (A100 and L4 GPUs, A3Plus spot, an egress SKU with two tiers, ...).

Kept: the SKUs the bundled machine types need (resourceGroup GPU; CPU/RAM/N1Standard SKUs whose family is one of
the machine table's: A2, A3, A3Plus, A3Ultra, A4, G2, G4, N1) plus the out-of-scope SKUs of the mixed file (an E2
custom core, an H3 RAM and an egress SKU) so replay exercises the filters. Each SKU keeps its real fields; the
``name`` (``services/6F81-5844-456A/skus/<skuId>``) is filled in when the source dropped it. Written as the API's
``{"skus": [...], "nextPageToken": "..."}`` pages (``PAGE`` SKUs each; the last page's token is ""), compact JSON.

Widening (reconstructed SKUs, ``reconstructed_skus``): ``../shared/reference/skypilot-catalog/gcp/vms.csv``
(SkyPilot catalog v8 @8427bbf, commit date unknown, 2025 or later) gives per-zone prices of the host VM (vCPUs +
RAM) of A2/A3/A4 types and of 1-16 GPUs. From them this script writes SKUs in the API's shape for what the real
samples lack: A2 and A3Ultra core/RAM (solved per region from the host totals of shapes with different vCPU:RAM
ratios; where a region has one ratio only, split in the ratio of a region where it is solved, or of the real A3
SKUs), Tesla A100, A100 80GB, H200 141GB and L4 per-GPU SKUs, and A4 B200 "(1 gpu slice)" SKUs (the A4 host row
is 0.0: the slice prices the VM, C29), and also A3/N1 core/RAM and H100/H100 Mega GPUs, which real 2024
SKUs price too: every reconstructed SKU carries ``effectiveTime`` :data:`CATALOG_DATE`, so where it and an older
real SKU price one component, the parser's newest-dated rule takes the catalog's price and names the one it
replaced. Catalog on-demand GPU figures that are DWS/flex-start prices are left out
(:func:`_catalog_dws_regions`), and where a real on-demand GPU SKU exists the catalog's is not used. The real
2023 A2 page of opencost (A2 core/RAM, Tesla A100 for us-central1, us-east1, us-west1) is included as it is.
Reconstructed SKUs have ``skuId`` ``gpuhub-…`` and ``effectiveTime`` :data:`CATALOG_DATE` (see its docstring for
the evidence).

Run from the repository root:  python plugins/gpuhub-gcp/scripts/build_recording.py
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import sys
from collections import defaultdict
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PLUGIN = HERE.parent
sys.path.insert(0, str(PLUGIN))

from gpuhub_gcp.machines import machine_types  # noqa: E402
from gpuhub_gcp.parse import Component, Notes, build_index, component_of  # noqa: E402

SAMPLES = PLUGIN.parents[1] / ".." / "shared" / "reference" / "provider-samples" / "gcp"
BIG = "cloudbilling-v1.skus-items.compute-engine.gpu-h100-a3-n1std.2024-09-16.cromwell-monitor-test.json"
MIXED = "cloudbilling-v1.skus-items.mixed-11.h100-plus-spot-commit3yr-l4-spot.2024-09-16.cromwell-monitor-test.json"
PAGE_2023 = "cloudbilling-v1.services.6F81-5844-456A.skus.a2-gpu-core-ram.page-excerpt.opencost-test.json"
CATALOG = PLUGIN.parents[1] / ".." / "shared" / "reference" / "skypilot-catalog" / "gcp" / "vms.csv"
CATALOG_G2_N1 = CATALOG.with_name("vms-g2-n1.csv")  # G2 hosts, N1 hosts and T4/V100/P100/P4 rows of the same file
OUT = PLUGIN / "gpuhub_gcp" / "recording"
URL = "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus"
PAGE = 200
RECORDED_AT = "2026-12-01"  # the day this recording was rebuilt (the prices' own date is data_date)


def wanted(sku: dict[str, Any], families: set[str]) -> bool:
    """True for the SKUs the bundled machine types can use."""
    component = component_of(sku)
    if component is None:
        return False
    return component.kind in ("gpu", "ssd") or component.name in families



NANO = Decimal("0.000000001")
# SkyPilot accelerator name -> (accelerator type, description words of Google's GPU SKU)
GPU_WORDS = {"A100": ("nvidia-tesla-a100", "Tesla A100"), "A100-80GB": ("nvidia-a100-80gb", "A100 80GB"),
             "H200": ("nvidia-h200-141gb", "H200 141GB"), "L4": ("nvidia-l4", "L4"),
             "B200": ("nvidia-b200", "B200"), "T4": ("nvidia-tesla-t4", "Tesla T4"),
             "V100": ("nvidia-tesla-v100", "Tesla V100"), "P100": ("nvidia-tesla-p100", "Tesla P100"),
             "P4": ("nvidia-tesla-p4", "Tesla P4"), "H100": ("nvidia-h100-80gb", "H100 80GB"),
             "H100-MEGA": ("nvidia-h100-mega-80gb", "H100 80GB Mega")}
SLICED = {"B200"}  # priced per "(1 gpu slice)" including the VM (known fault C29)
HOST_FAMILIES = {"A2", "A3", "A3Ultra", "G2", "N1"}  # A4 has no host SKU: its slice prices the VM
# Not A3Plus: SkyPilot's fetch_gcp.py prices every a3-* host with the "A3 Instance" SKUs (SERIES_TO_DESCRIPTION maps
# the series "a3" to "A3 Instance"), so its a3-megagpu-8g host rows are A3 prices, not A3Plus ones (they equal the A3
# unit prices in every region); the real A3Plus SKUs stay. A3Ultra has no other source: its rows are kept, with
# the same caveat in the plugin README.
USAGE = {"on_demand": "OnDemand", "spot": "Preemptible"}
CATALOG_DATE = "2025-08-15"
"""The date given to every price taken from the SkyPilot catalog (its commit date is not known). Evidence: the
catalog's on-demand ``H100:8`` figure in us-central1 and asia-northeast1, 33.60609, is 8 x 4.200761, the unit price
of the "DWS Defined Duration" H100 SKU on a bill of 2025-08-15 (../shared/reference/obtainability/gcp, an article
about DWS's then new pricing): the snapshot was taken while that price was current, so its prices are at least as
new as that bill and newer than the 2024-09-16 SKUs (its A3 spot prices are 2-5x below theirs). The GCP plugin
README records this decision."""
N1_RX = re.compile(r"^n1-standard-(\d+)$")


def _host_shape(instance_type: str, machines: dict[str, Any]) -> tuple[str, Decimal, Decimal] | None:
    """``(family, vCPUs, RAM GiB)`` of a catalog host row: a machine type of the table, or a bare N1 host
    ``n1-standard-N`` (N vCPUs, 3.75 GiB each, Google's N1 standard shape)."""
    machine = machines.get(instance_type)
    if machine is not None:
        return machine.family, Decimal(machine.vcpus), Decimal(str(machine.memory_gib))
    n1 = N1_RX.match(instance_type)
    if n1:
        return "N1", Decimal(n1.group(1)), Decimal(n1.group(1)) * Decimal("3.75")
    return None


def _money(amount: Decimal) -> dict[str, Any]:
    amount = amount.quantize(NANO, rounding=ROUND_HALF_EVEN)
    units = int(amount)
    return {"currencyCode": "USD", "units": str(units), "nanos": int((amount - units) * 1_000_000_000)}


def _sku(kind: str, description: str, group: str, purchase: str, region: str, amount: Decimal,
         unit: str) -> dict[str, Any]:
    sku_id = "gpuhub-" + hashlib.sha256(f"{kind}|{description}|{region}".encode()).hexdigest()[:12]
    return {"name": f"services/6F81-5844-456A/skus/{sku_id}", "skuId": sku_id, "description": description,
            "category": {"serviceDisplayName": "Compute Engine", "resourceFamily": "Compute", "resourceGroup": group,
                         "usageType": USAGE[purchase]},
            "serviceRegions": [region],
            "pricingInfo": [{"summary": "", "pricingExpression": {
                "usageUnit": unit, "displayQuantity": 1,
                "tieredRates": [{"startUsageAmount": 0, "unitPrice": _money(amount)}],
                "usageUnitDescription": "hour" if unit == "h" else "gibibyte hour", "baseUnit": "s" if unit == "h"
                else "By.s", "baseUnitDescription": "second" if unit == "h" else "byte second",
                "baseUnitConversionFactor": 3600 if unit == "h" else 3865470566400}, "currencyConversionRate": 1,
                "effectiveTime": f"{CATALOG_DATE}T00:00:00Z"}],
            "serviceProviderName": "Google", "geoTaxonomy": {"type": "REGIONAL", "regions": [region]}}


def _solve(shapes: dict[tuple[Decimal, Decimal], Decimal]) -> tuple[Decimal, Decimal] | None:
    """Core and RAM unit prices from host totals of shapes with two different vCPU:RAM ratios, else None."""
    items = sorted(shapes.items())
    for (v1, m1), t1 in items:
        for (v2, m2), t2 in items:
            det = v1 * m2 - v2 * m1
            if det != 0:
                core = (t1 * m2 - t2 * m1) / det
                ram = (v1 * t2 - v2 * t1) / det
                if core > 0 and ram > 0:
                    return core, ram
    return None


def _catalog_dws_regions(rows: list[dict[str, str]], machines: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(accelerator, region) -> why its catalog on-demand GPU figure is a DWS (flex-start) price, not on-demand.

    Three signs, in order: the figure is below the same row's spot price; the per-GPU figure equals the unit price
    of a real "DWS Defined Duration" GPU SKU (:func:`dws_skus`); or the figure stands to the region's host on-demand
    price in the same ratio (within 0.2 %) as in a region found by the first two signs. DWS prices are one fixed
    discount off every component, so a region's DWS GPU figure over its host figure is the same everywhere (A100
    80GB: 1.679 in us-central1, europe-west4 and us-east4), while real on-demand ratios differ by region (3.57 in
    asia-southeast1, 4.02 in us-east5). This is how a2-ultragpu-1g us-east4 on-demand 3.31769998 (host 1.23833 +
    GPU 2.07937, only 1.17x the spot GPU price) was found to be a flex-start figure.
    """
    dws_unit = {}
    for sku in dws_skus():
        if sku["category"]["resourceGroup"] == "GPU":
            for name, (_, words) in GPU_WORDS.items():
                if f"Nvidia {words} GPU" in sku["description"]:
                    price = sku["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"]
                    dws_unit[name] = Decimal(price["units"]) + Decimal(price["nanos"]) / Decimal(10**9)
    smallest: dict[str, Any] = {}
    for machine in machines.values():
        for name, (accelerator, _) in GPU_WORDS.items():
            if machine.accelerator == accelerator and (name not in smallest
                                                       or machine.gpu_count < smallest[name].gpu_count):
                smallest[name] = machine
    host = {(r["InstanceType"], r["Region"]): Decimal(r["Price"]) for r in rows
            if r["InstanceType"] and r["Price"] and Decimal(r["Price"]) > 0}
    ratio: dict[tuple[str, str], Decimal] = {}
    found: dict[tuple[str, str], str] = {}
    for row in rows:
        name, region = row["AcceleratorName"], row["Region"]
        if row["InstanceType"] or name not in GPU_WORDS or not row["Price"] or Decimal(row["Price"]) <= 0:
            continue
        per_gpu = Decimal(row["Price"]) / Decimal(row["AcceleratorCount"])
        if row["SpotPrice"] and Decimal(row["Price"]) < Decimal(row["SpotPrice"]):
            found[(name, region)] = "below the spot price"
        if name in dws_unit and abs(per_gpu - dws_unit[name]) < Decimal("0.00001"):
            found[(name, region)] = f"equal to the DWS Defined Duration SKU price {dws_unit[name]}"
        machine = smallest.get(name)
        if machine is not None and Decimal(row["AcceleratorCount"]) == machine.gpu_count \
                and (machine.name, region) in host:
            ratio[(name, region)] = per_gpu / host[(machine.name, region)]
    known = {name: [ratio[(n, r)] for n, r in found if n == name and (n, r) in ratio] for name, _ in found}
    for (name, region), value in sorted(ratio.items()):
        if (name, region) not in found and any(abs(value / k - 1) < Decimal("0.002") for k in known.get(name, [])):
            found[(name, region)] = "on the DWS scale (GPU/host ratio) of a region where it is below spot"
    return found


def reconstructed_skus(real: list[dict[str, Any]], log: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """SKUs from the SkyPilot catalog's per-zone prices, dated :data:`CATALOG_DATE` (see the module doc).

    Where a real (older) SKU prices the same component, region and purchase model, the catalog's SKU is written
    too and the parser's "newest dated SKU wins" rule picks it, naming the one it replaced; except for on-demand
    GPU prices, whose catalog column mixes in DWS figures (:func:`_catalog_dws_regions`): there the real SKU stays.
    """
    notes = Notes()
    index = build_index(real, notes)
    machines = {m.name: m for m in machine_types()}
    rows: list[dict[str, str]] = []
    for path in (CATALOG, CATALOG_G2_N1):
        with open(path, newline="", encoding="utf-8") as fh:
            rows += list(csv.DictReader(fh))
    out: list[dict[str, Any]] = []
    columns = {"on_demand": "Price", "spot": "SpotPrice"}
    # Host core/RAM: (family, region, purchase) -> {(vCPUs, GiB): host total per hour}
    hosts: dict[tuple[str, str, str], dict[tuple[Decimal, Decimal], Decimal]] = defaultdict(dict)
    for row in rows:
        shape = _host_shape(row["InstanceType"], machines) if row["InstanceType"] else None
        if shape is None or shape[0] not in HOST_FAMILIES:
            continue
        family, vcpus, gib = shape
        for purchase, column in columns.items():
            if row[column] and Decimal(row[column]) > 0:
                hosts[(family, row["Region"], purchase)][(vcpus, gib)] = Decimal(row[column])
    solved = {key: _solve(shapes) for key, shapes in hosts.items()}
    ratio: dict[tuple[str, str], tuple[Decimal, Decimal]] = {}
    for (family, region, purchase), found in sorted(solved.items()):
        if found is not None and region == "us-central1":
            ratio[(family, purchase)] = found
    # One vCPU:RAM ratio only (A3, A3Ultra, G2, N1): split in the ratio of real SKUs of us-central1
    # (A3Ultra: of A3; G2: of N1; any split gives every type of such a family the same price).
    for family, reference in (("A3", "A3"), ("A3Ultra", "A3"), ("G2", "N1"), ("N1", "N1")):
        for purchase in columns:
            ref = [index.lookup(Component(k, reference), "us-central1", purchase) for k in ("core", "ram")]
            if ref[0] and ref[1]:
                ratio.setdefault((family, purchase), (ref[0][0], ref[1][0]))
    for (family, region, purchase), shapes in sorted(hosts.items()):
        real_parts = [index.lookup(Component(k, family), region, purchase) for k in ("core", "ram")]
        found = solved[(family, region, purchase)]
        # the largest shape, whose printed total carries the least rounding per vCPU
        (vcpus, gib), total = max(shapes.items())
        if real_parts[0] and real_parts[1]:
            real_core, real_ram = real_parts[0][0], real_parts[1][0]
            if all(abs(v * real_core + m * real_ram - t) <= Decimal("0.00001") for (v, m), t in shapes.items()):
                found = (real_core, real_ram)  # the catalog confirms the real SKUs' prices: same price, newer date
            elif found is None:
                scale = total / (vcpus * real_core + gib * real_ram)
                found = (real_core * scale, real_ram * scale)
                log.append(("newer catalog host price split in the ratio of the real SKUs it replaces",
                            f"{family} {purchase} {region}"))
        elif any(real_parts):
            log.append(("real SKU for core or RAM only, catalog host price not used", f"{family} {purchase} {region}"))
            continue
        if found is None:
            if (family, purchase) not in ratio:
                log.append(("no reference vCPU:RAM ratio, host price not used", f"{family} {purchase} {region}"))
                continue
            ref_core, ref_ram = ratio[(family, purchase)]
            scale = total / (vcpus * ref_core + gib * ref_ram)
            found = (ref_core * scale, ref_ram * scale)
            log.append(("one vCPU:RAM ratio only, host total split in the ratio of us-central1 (A3Ultra: of "
                        "the real A3 SKUs; G2: of the real N1 SKUs)", f"{family} {purchase} {region}"))
        core, ram = found
        prefix = "Spot Preemptible " if purchase == "spot" else ""
        out.append(_sku("core", f"{prefix}{family} Instance Core running in {region}", "CPU", purchase, region,
                        core, "h"))
        out.append(_sku("ram", f"{prefix}{family} Instance Ram running in {region}", "RAM", purchase, region,
                        ram, "GiBy.h"))
    # GPUs: per-GPU price of the region (all zones and counts of a region agree in the catalog).
    gpu: dict[tuple[str, str, str], dict[Decimal, set[Decimal]]] = defaultdict(lambda: defaultdict(set))
    dws = _catalog_dws_regions(rows, machines)
    for row in rows:
        if row["InstanceType"] or row["AcceleratorName"] not in GPU_WORDS:
            continue
        count = Decimal(row["AcceleratorCount"])
        for purchase, column in columns.items():
            if row[column] and Decimal(row[column]) > 0:
                gpu[(row["AcceleratorName"], row["Region"], purchase)][count].add(Decimal(row[column]))
    for (name, region, purchase), by_count in sorted(gpu.items()):
        count = min(by_count)  # the smallest GPU count gives the per-GPU price with the least rounding
        prices = {p / count for p in by_count[count]}
        accelerator, words = GPU_WORDS[name]
        kind = "slice" if name in SLICED else "gpu"
        if purchase == "on_demand" and (name, region) in dws:
            log.append((f"on-demand GPU figure {dws[(name, region)]}: a DWS/flex-start price, left out",
                        f"{name} {region}"))
            continue
        if purchase == "on_demand" and index.lookup(Component(kind, accelerator), region, purchase):
            continue  # the catalog's on-demand GPU column mixes in DWS figures: a real SKU is kept
        if len(prices) > 1:
            log.append(("zones of one region disagree, left out", f"{name} {purchase} {region}"))
            continue
        price = prices.pop()
        if kind == "slice":
            text = f"A4 Nvidia {words} (1 gpu slice) running in {region}"
            text = ("Spot Preemptible " if purchase == "spot" else "") + text
        elif purchase == "spot":
            text = f"Nvidia {words} GPU attached to Spot Preemptible VMs running in {region}"
        else:
            text = f"Nvidia {words} GPU running in {region}"
        out.append(_sku(kind, text, "GPU", purchase, region, price, "h"))
    return out


def _calls(log: list[tuple[str, str]]) -> str:
    grouped: dict[str, list[str]] = defaultdict(list)
    for reason, what in log:
        grouped[reason].append(what)
    return "; ".join(f"{reason}: {', '.join(whats)}" for reason, whats in grouped.items())


# --- DWS flex-start (issue 17) -------------------------------------------------------------------------------
DWS_SAMPLE = (PLUGIN.parents[1] / ".." / "shared" / "reference" / "obtainability" / "gcp"
              / "dws-flex-start-vs-ondemand-billing-skus.zenn-article-excerpt.md")
DWS_NOTE = ("DWS flex-start: 4 Compute Engine SKUs (H100 80GB GPU, A3 core, A3 RAM, local SSD 'DWS Defined Duration', "
            "us-central1) reconstructed from the SKU ids and unit prices of an observed Aug 2025 bill (Zenn article "
            "excerpt in ../shared/reference/obtainability/gcp); the local SSD price is the bill's hourly figure "
            "(GiBy.h). Region list, usageType and resource groups are assumptions; no calendar-mode SKU is known.")
_UNITS_BY_TEXT = {"per 1 hour": ("h", "hour"), "per 1 gigabyte hour": ("GiBy.h", "gibibyte hour"),
                  "per 1 gibibyte hour": ("GiBy.h", "gibibyte hour")}


def dws_skus() -> list[dict[str, Any]]:
    """The article's Compute Engine 'DWS Defined Duration' rows as Cloud Billing Catalog SKU objects."""
    import re
    from decimal import Decimal

    out = []
    for line in DWS_SAMPLE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5 or "DWS" not in cells[0] or cells[1] != "Compute Engine":
            continue
        sku_id = re.search(r"\[([0-9A-F-]{14})\]", cells[2]).group(1)  # type: ignore[union-attr]
        amount = Decimal(re.search(r"\$([0-9.]+)", cells[3]).group(1))  # type: ignore[union-attr]
        unit, unit_text = _UNITS_BY_TEXT[cells[4]]
        units, nanos = int(amount), int((amount - int(amount)) * 1_000_000_000)
        group = "GPU" if " GPU " in cells[0] else "LocalSSD" if "Storage" in cells[0] else \
            "RAM" if " Ram " in cells[0] else "CPU"
        out.append({
            "name": f"services/6F81-5844-456A/skus/{sku_id}", "skuId": sku_id,
            "description": cells[0],
            "category": {"serviceDisplayName": "Compute Engine", "resourceFamily": "Compute",
                         "resourceGroup": group, "usageType": "OnDemand"},
            "serviceRegions": ["us-central1"],
            "pricingInfo": [{"summary": "", "pricingExpression": {
                "usageUnit": unit, "usageUnitDescription": unit_text, "displayQuantity": 1,
                "tieredRates": [{"startUsageAmount": 0,
                                 "unitPrice": {"currencyCode": "USD", "units": str(units), "nanos": nanos}}]},
                "currencyConversionRate": 1, "effectiveTime": "2025-08-15T00:00:00Z"}],
            "serviceProviderName": "Google"})
    if len(out) != 4:
        raise SystemExit(f"expected 4 DWS Compute Engine rows in {DWS_SAMPLE.name}, found {len(out)}")
    return out


def main() -> None:
    families = {m.family for m in machine_types()}
    big = json.loads((SAMPLES / BIG).read_text(encoding="utf-8"))
    mixed = json.loads((SAMPLES / MIXED).read_text(encoding="utf-8"))
    kept: dict[str, dict[str, Any]] = {}
    for sku in big:
        if wanted(sku, families):
            kept[sku["skuId"]] = sku
    for sku in mixed:  # all 11: in-scope ones are used, the others exercise the filters
        kept.setdefault(sku["skuId"], sku)
    for sku in json.loads((SAMPLES / PAGE_2023).read_text(encoding="utf-8"))["skus"]:  # real 2023 A2 page
        kept.setdefault(sku["skuId"], sku)
    log: list[tuple[str, str]] = []
    real_count = len(kept)
    for sku in reconstructed_skus(list(kept.values()), log):
        kept[sku["skuId"]] = sku
    skus = []
    for sku in kept.values():
        sku = dict(sku)
        sku.setdefault("name", f"services/6F81-5844-456A/skus/{sku['skuId']}")
        skus.append(sku)
    skus.extend(dws_skus())  # issue 17: DWS flex-start SKUs (reconstructed from an observed bill)
    pages = [skus[i:i + PAGE] for i in range(0, len(skus), PAGE)]
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("skus-page-*.json"):
        old.unlink()
    exchanges = []
    token = ""
    for n, page in enumerate(pages, start=1):
        next_token = f"gpuhub-page-{n + 1}" if n < len(pages) else ""
        body_file = f"skus-page-{n}.json"
        body = {"skus": page, "nextPageToken": next_token}
        (OUT / body_file).write_text(json.dumps(body, separators=(",", ":"), ensure_ascii=False) + "\n",
                                     encoding="utf-8")
        url = f"{URL}?pageSize=5000" + (f"&pageToken={token}" if token else "")
        exchanges.append({"request": {"method": "GET", "url": url, "body": None},
                          "response": {"status": 200, "headers": {"content-type": "application/json; charset=UTF-8"},
                                       "body_file": body_file}})
        token = next_token
    manifest = {
        "format": 1, "provider": "gcp", "recorded_at": RECORDED_AT, "kind": "reconstructed",
        "data_date": None,
        "data_date_note": ("dated per price, by each SKU's effectiveTime: the real 2023-03-24 A2 page (opencost), "
                           "the real H100/A3/N1 SKUs of 2024-09-16, the DWS SKUs of a 2025-08-15 bill, and the SKUs "
                           f"rebuilt from the SkyPilot GCP catalog v8 @8427bbf dated {CATALOG_DATE} (its commit date "
                           "is not known; its H100 DWS figure equals the 2025-08-15 bill's, see the plugin README). "
                           "Where two SKUs price one component, the newest dated one wins and the offer names the "
                           "one it replaced"),
        "source": ("real Compute Engine SKUs (effectiveTime 2024-09-16) from deepgenomics/cromwell-monitor "
                   "tests/data/services_pricelist.json (blob eb532891) and test_get_machine_hour_h100_mega_pricelist"
                   ".json (blob 8b795839), and the real 2023-03-24 A2 page of opencost/opencost "
                   "pkg/cloud/gcp/provider_test.go (commit 42976a2b), as excerpted in "
                   "../shared/reference/provider-samples/gcp/; plus SKUs reconstructed from the per-zone prices of "
                   "the SkyPilot GCP catalog v8 (skypilot-org/skypilot-catalog catalogs/v8/gcp/vms.csv@8427bbf, "
                   "../shared/reference/skypilot-catalog/gcp/); paged by plugins/gpuhub-gcp/scripts/"
                   "build_recording.py"),
        "notes": (f"{len(skus)} SKUs in {len(pages)} pages of up to {PAGE}; page tokens are made up. "
                  f"{real_count} real SKUs: H100 80GB / Mega / Plus GPU SKUs (all usage types), A3 and A3Plus "
                  "core/RAM, N1 predefined core/RAM, Tesla A100 and L4 spot GPU SKUs, the 2023 A2 core/RAM. "
                  f"{len(skus) - real_count} reconstructed SKUs (skuId gpuhub-..., effectiveTime {CATALOG_DATE}, "
                  "description '... running in <region>'): A2, A3, A3Ultra, G2 and N1 core/RAM from "
                  "SkyPilot host-VM totals (solved where a region has two vCPU:RAM ratios, else split in the ratio "
                  "of the real SKUs; where the catalog total equals the real SKUs' sum, their unit prices are "
                  "kept), Tesla A100, A100 80GB, H100 80GB, H100 80GB Mega, H200 141GB, L4, Tesla T4, V100, P100 "
                  "and P4 per-GPU and A4 B200 '(1 gpu slice)' SKUs, on-demand and spot only (the catalog has no "
                  "commitment prices). Catalog on-demand GPU figures are not used where a real SKU exists (the "
                  "column mixes in DWS prices) nor where they are DWS prices (below spot, equal to the DWS SKU, or "
                  "on the DWS scale). RTX PRO 6000: no source. Judgement calls: " + _calls(log) + ". "
                  "Where Google sells each type comes from gpuhub_gcp/data/zones.csv (scripts/build_zones.py)."),
        "exchanges": exchanges,
    }
    manifest["notes"] += " " + DWS_NOTE
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in OUT.glob("*.json"))
    print(f"wrote {len(skus)} SKUs in {len(pages)} pages to {OUT} ({size} bytes)")


if __name__ == "__main__":
    main()
