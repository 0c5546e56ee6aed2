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
is 0.0: the slice prices the VM, C29). Real SKUs always win: nothing is reconstructed for a (component, region,
purchase) that a real SKU prices. An on-demand GPU price below the same zone's spot price is not an on-demand
price (the catalog mixes in DWS/flex-start prices there) and is left out. The real 2023 A2 page of opencost
(A2 core/RAM, Tesla A100 for us-central1, us-east1, us-west1) is included as it is. Reconstructed SKUs have
``skuId`` ``gpuhub-…`` and no ``effectiveTime`` (the source has no date).

Run from the repository root:  python plugins/gpuhub-gcp/scripts/build_recording.py
"""

from __future__ import annotations

import csv
import hashlib
import json
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
             "P4": ("nvidia-tesla-p4", "Tesla P4")}
SLICED = {"B200"}  # priced per "(1 gpu slice)" including the VM (known fault C29)
HOST_FAMILIES = {"A2", "A3Ultra", "G2"}  # host families the real samples lack (A3/A3Plus/N1 are real; A4: slice)
USAGE = {"on_demand": "OnDemand", "spot": "Preemptible"}


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
                "baseUnitConversionFactor": 3600 if unit == "h" else 3865470566400}, "currencyConversionRate": 1}],
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


def reconstructed_skus(real: list[dict[str, Any]], log: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """SKUs for what the real samples lack, from the SkyPilot catalog's per-zone prices (see the module doc)."""
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
        machine = machines.get(row["InstanceType"])
        if machine is None or machine.family not in HOST_FAMILIES:
            continue
        for purchase, column in columns.items():
            if row[column] and Decimal(row[column]) > 0:
                shape = (Decimal(machine.vcpus), Decimal(str(machine.memory_gib)))
                hosts[(machine.family, row["Region"], purchase)][shape] = Decimal(row[column])
    solved = {key: _solve(shapes) for key, shapes in hosts.items()}
    ratio: dict[tuple[str, str], tuple[Decimal, Decimal]] = {}
    for (family, region, purchase), found in sorted(solved.items()):
        if found is not None and region == "us-central1":
            ratio[(family, purchase)] = found
    # A3Ultra has one shape only: the real A3 ratio of us-central1. Every G2 type has 4 GiB per vCPU, so no region
    # solves G2 either: the real N1 ratio of us-central1 splits it (any split gives every G2 type the same price).
    for family, reference in (("A3Ultra", "A3"), ("G2", "N1")):
        for purchase in columns:
            ref = [index.lookup(Component(k, reference), "us-central1", purchase) for k in ("core", "ram")]
            if ref[0] and ref[1]:
                ratio.setdefault((family, purchase), (ref[0][0], ref[1][0]))
    for (family, region, purchase), shapes in sorted(hosts.items()):
        if any(index.lookup(Component(k, family), region, purchase) for k in ("core", "ram")):
            continue  # a real SKU prices it
        found = solved[(family, region, purchase)]
        if found is None:
            ref_core, ref_ram = ratio[(family, purchase)]
            # G2: the largest shape, whose printed total carries the least rounding per vCPU
            (vcpus, gib), total = max(shapes.items()) if family == "G2" else next(iter(sorted(shapes.items())))
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
    suspect: set[tuple[str, str]] = set()
    for row in rows:
        if row["InstanceType"] or row["AcceleratorName"] not in GPU_WORDS:
            continue
        count = Decimal(row["AcceleratorCount"])
        if row["Price"] and row["SpotPrice"] and Decimal(row["Price"]) < Decimal(row["SpotPrice"]):
            suspect.add((row["AcceleratorName"], row["Region"]))
        for purchase, column in columns.items():
            if row[column] and Decimal(row[column]) > 0:
                gpu[(row["AcceleratorName"], row["Region"], purchase)][count].add(Decimal(row[column]))
    for (name, region, purchase), by_count in sorted(gpu.items()):
        count = min(by_count)  # the smallest GPU count gives the per-GPU price with the least rounding
        prices = {p / count for p in by_count[count]}
        accelerator, words = GPU_WORDS[name]
        kind = "slice" if name in SLICED else "gpu"
        if purchase == "on_demand" and (name, region) in suspect:
            log.append(("on-demand GPU price below the spot price (a DWS/flex-start price), left out",
                        f"{name} {region}"))
            continue
        if index.lookup(Component(kind, accelerator), region, purchase):
            continue
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
                           "the real H100/A3/N1 SKUs of 2024-09-16 and the DWS SKUs of a 2025-08-15 bill; A2 "
                           "elsewhere, A2 Ultra, A3 Ultra, A4, G2, L4, T4, V100, P100 and P4 prices are from the "
                           "SkyPilot GCP catalog v8 @8427bbf (commit date not known; 2025 or later) and undated"),
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
                  f"{len(skus) - real_count} reconstructed SKUs (skuId gpuhub-..., no effectiveTime, description "
                  "'... running in <region>'): A2, A3Ultra and G2 core/RAM solved from SkyPilot host-VM totals "
                  "(G2 from vms-g2-n1.csv), Tesla A100, A100 80GB, H200 141GB, L4, Tesla T4, V100, P100 and P4 "
                  "per-GPU (T4/V100/P100/P4 from vms-g2-n1.csv) and A4 B200 '(1 gpu slice)' SKUs, on-demand and "
                  "spot only (the catalog has no commitment prices). Not reconstructed: H100/H100 Mega (real SKUs "
                  "exist; the catalog's H100 on-demand figure is a DWS price), N1 core/RAM (real 2024 SKUs exist "
                  "in every region the catalog sells N1 in; their spot prices differ from the catalog's), RTX PRO "
                  "6000 (no source). Judgement calls: " + _calls(log) + ". "
                  "Where Google sells each type comes from gpuhub_gcp/data/zones.csv (scripts/build_zones.py)."),
        "exchanges": exchanges,
    }
    manifest["notes"] += " " + DWS_NOTE
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in OUT.glob("*.json"))
    print(f"wrote {len(skus)} SKUs in {len(pages)} pages to {OUT} ({size} bytes)")


if __name__ == "__main__":
    main()
