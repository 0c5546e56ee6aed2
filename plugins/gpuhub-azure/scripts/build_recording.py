"""Rebuild gpuhub-azure's bundled recording from the 2026-08 Azure GPU price rows in ``../shared/reference``.

Usage (from the repository root)::

    python plugins/gpuhub-azure/scripts/build_recording.py [--shared PATH]

Input: ``shared/reference/provider-samples/azure/retail-prices.eu-regions.gpu-vm-consumption.NORMALIZED.2026-08.
azure-pricing-radar.json`` (1,085 real GPU VM rows of westeurope, northeurope, swedencentral and francecentral, and
an empty Belgium file, as kept by andy-diericks/azure-pricing-radar on 2026-08-20). Each source key is
``skuId|meterId|type|reservationTerm``; each record keeps ``armRegionName, meterName, productName, retailPrice,
unitPrice, skuName, unitOfMeasure`` and ``savingsPlanPrice`` (the 1-year ``savingsPlan`` entry).

Output: ``gpuhub_azure/recording/`` — ``manifest.json`` plus raw Retail Prices pages in the API's real shape
(``{BillingCurrency, CustomerEntityId, CustomerEntityType, Items, NextPageLink, Count}``), 100 items a page (the
page size Azure served in the 2022 snapshot), linked by absolute ``NextPageLink`` URLs with ``:443`` and ``$skip``
as the API writes them. What is reconstructed rather than copied is listed in the manifest's ``notes``:
``armSkuName`` (mapped from the meter/SKU names below, since the source dropped it), ``currencyCode`` (USD, per the
source), ``type`` (from the source key), ``productId``/``skuId``/``meterId`` (from the source key),
``isPrimaryMeterRegion`` (true: not in the source) and ``savingsPlan`` (only the 1-year term is in the source).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

HERE = Path(__file__).resolve().parent
PLUGIN = HERE.parent
OUT = PLUGIN / "gpuhub_azure" / "recording"
SAMPLE = ("provider-samples/azure/"
          "retail-prices.eu-regions.gpu-vm-consumption.NORMALIZED.2026-08.azure-pricing-radar.json")
HOST = "https://prices.azure.com"
API_VERSION = "2023-01-01-preview"
PAGE_SIZE = 100
RECORDED_AT = "2026-08-20"
# Source file name -> ARM region (the Belgium file holds no GPU rows: kept as an empty region).
REGIONS = {"vm-eu-west": "westeurope", "vm-northeurope": "northeurope", "vm-swedencentral": "swedencentral",
           "vm-francecentral": "francecentral", "vm-belgium": "belgiumcentral"}

# Meter/SKU names whose ARM size name does not follow from the generic rules (provider-apis.md 1.1 quirk 5).
IRREGULAR = {
    "ND96amsA100v4": "Standard_ND96amsr_A100_v4",     # drops the r
    "ND96asr_A100_v4": "Standard_ND96asr_v4",         # A100 40 GB size, meter names the GPU
    "ND96asrA100v4_NU": "Standard_ND96asr_v4",
    "NC16asT4 v3": "Standard_NC16as_T4_v3",
    "NC64asT4 v3": "Standard_NC64as_T4_v3",
}
_COMPACT = re.compile(r"^(N[A-Z]+\d+[a-z]*?)(IB)?(H100|H200|MI300X|A100|V620|V710)(v\d)?$")
_RTX = re.compile(r"^NC(\d+)(l?ds)xlRTX6[Kk]v6$")


def arm_sku_name(sku_name: str, meter_name: str, product_name: str) -> str:
    """The ARM size name (``armSkuName``) of a source row, reconstructed from its SKU/meter names."""
    base = re.sub(r" (Spot|Low Priority)$", "", sku_name)
    if "Dedicated Host" in product_name:  # host SKUs, e.g. "NDamsrA100v4 Type1" -> "NDamsrA100v4_Type1"
        return base.replace(" ", "_")
    if base.startswith("Standard_"):
        return base
    if base in IRREGULAR:
        return IRREGULAR[base]
    if "Promo" in product_name:
        return f"Standard_{base}_Promo"
    rtx = _RTX.match(base)
    if rtx:
        return f"Standard_NC{rtx.group(1)}{rtx.group(2)}_xl_RTXPRO6000BSE_v6"
    compact = _COMPACT.match(base)
    if compact:
        size, ib, gpu, version = compact.groups()
        return f"Standard_{size}{ib or ''}_{gpu}_{version or 'v1'}"
    return "Standard_" + base.replace(" ", "_")


def build_item(key: str, row: dict[str, Any]) -> dict[str, Any]:
    """One Retail Prices item in the API's field order (2022 raw sample), from one source row."""
    sku_id, meter_id, kind, term = key.split("|")
    item: dict[str, Any] = {
        "currencyCode": "USD", "tierMinimumUnits": 0.0,
    }
    if term:
        item["reservationTerm"] = term
    item.update({
        "retailPrice": row["retailPrice"], "unitPrice": row["unitPrice"], "armRegionName": row["armRegionName"],
        "meterId": meter_id, "meterName": row["meterName"], "productId": sku_id.split("/")[0], "skuId": sku_id,
        "productName": row["productName"], "skuName": row["skuName"], "serviceName": "Virtual Machines",
        "serviceId": "DZH313Z7MMC8", "serviceFamily": "Compute", "unitOfMeasure": row["unitOfMeasure"],
        "type": kind, "isPrimaryMeterRegion": True,
        "armSkuName": arm_sku_name(row["skuName"], row["meterName"], row["productName"]),
    })
    if row.get("savingsPlanPrice") is not None:
        item["savingsPlan"] = [{"unitPrice": row["savingsPlanPrice"], "retailPrice": row["savingsPlanPrice"],
                                "term": "1 Year"}]
    return item


def price_filter(region: str) -> str:
    """Same filter text as ``gpuhub_azure.provider.price_filter`` (kept in sync by a test)."""
    families = " or ".join(f"contains(meterName, '{f}')" for f in ("NC", "ND", "NG", "NV"))
    return f"serviceName eq 'Virtual Machines' and armRegionName eq '{region}' and ({families})"


def _query(region: str, skip: int) -> str:
    params = {"api-version": API_VERSION, "currencyCode": "USD", "$filter": price_filter(region)}
    if skip:
        params["$skip"] = str(skip)
    return urlencode(params, quote_via=quote, safe="$',()")


# --- US regions from the SkyPilot Azure catalog copy (issue 13) ----------------------------------------------
US_CATALOG = "skypilot-catalog/azure/vms.csv"
US_NOTE = ("US regions (centralus, eastus, eastus2, northcentralus, southcentralus, westus, westus2, westus3): "
           "Retail Prices items reconstructed from the GPU rows of the SkyPilot Azure catalog v8 copy "
           "(coopslarhette/skypilot-catalog catalogs/v8/azure/vms.csv@20291d7, date unknown, 2023 or later; "
           "shared/reference/skypilot-catalog/azure/): one Linux Consumption item per size and region with its "
           "Price and one Spot item with its SpotPrice (the catalog has no Low Priority, reservation or savings-plan "
           "prices). Copied: armSkuName (InstanceType), armRegionName, retailPrice/unitPrice. Reconstructed: "
           "meterName/skuName (size name without 'Standard_' and underscores), productName, meterId/skuId/"
           "productId (gpuhub-..., deterministic), the rest as for the EU rows. Left out: _Promo sizes (retired "
           "promotions) and rows without a price. Spot rows equal to the on-demand price (the H100 sizes) are "
           "kept as the source has them: the parser leaves them out as placeholders and counts them.")
US_REGIONS = ("centralus", "eastus", "eastus2", "northcentralus", "southcentralus", "westus", "westus2", "westus3")
_NS = uuid.UUID("6f3c2a1e-0d7b-4e53-9a39-6a1e2b0c9d13")


def us_items(shared: Path) -> dict[str, list[dict[str, Any]]]:
    """Retail Prices items per US region from the SkyPilot Azure catalog rows (see :data:`US_NOTE`)."""
    out: dict[str, list[dict[str, Any]]] = {r: [] for r in US_REGIONS}
    with open(shared / US_CATALOG, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        size, region = row["InstanceType"], row["Region"]
        if size.endswith("_Promo") or region not in out:
            continue
        meter = size.removeprefix("Standard_").replace("_", " ")
        for suffix, column in (("", "Price"), (" Spot", "SpotPrice")):
            if not row[column]:
                continue
            ident = uuid.uuid5(_NS, f"{size}|{region}|{suffix}")
            out[region].append({
                "currencyCode": "USD", "tierMinimumUnits": 0.0, "retailPrice": float(row[column]),
                "unitPrice": float(row[column]), "armRegionName": region, "location": region,
                "effectiveStartDate": None, "meterId": str(ident), "meterName": meter + suffix,
                "productId": f"gpuhub-{ident.hex[:12]}", "skuId": f"gpuhub-{ident.hex[:12]}/{ident.hex[12:16]}",
                "productName": f"Virtual Machines {meter} Series", "skuName": meter + suffix,
                "serviceName": "Virtual Machines", "serviceId": "DZH313Z7MMC8", "serviceFamily": "Compute",
                "unitOfMeasure": "1 Hour", "type": "Consumption", "isPrimaryMeterRegion": True,
                "armSkuName": size})
    for region, items in out.items():
        items.sort(key=lambda i: (i["armSkuName"], i["meterName"]))
        if not items:
            raise SystemExit(f"no SkyPilot rows for {region}")
    return out


EU_ANSWERED = "Thu, 20 Aug 2026 00:00:00 GMT"
"""The HTTP ``Date`` of the EU pages: the day azure-pricing-radar read those rows (the plugin dates each price by
its page's answer; the US pages, from an undated catalog, carry no Date)."""


def write_region(region: str, items: list[dict[str, Any]], exchanges: list[dict[str, Any]],
                 answered: str | None = None) -> None:
    """One region's items as raw pages of :data:`PAGE_SIZE`, linked by ``NextPageLink`` (``answered``: the pages'
    HTTP ``Date`` header, when the rows' date is known)."""
    chunks = [items[i:i + PAGE_SIZE] for i in range(0, len(items), PAGE_SIZE)] or [[]]
    for n, chunk in enumerate(chunks):
        skip = n * PAGE_SIZE
        last = n == len(chunks) - 1
        link = None if last else f"{HOST}:443/api/retail/prices?{_query(region, skip + PAGE_SIZE)}"
        page = {"BillingCurrency": "USD", "CustomerEntityId": "Default", "CustomerEntityType": "Retail",
                "Items": chunk, "NextPageLink": link, "Count": len(chunk)}
        body = f"{region}-{n + 1:02d}.json"
        (OUT / body).write_text(json.dumps(page, separators=(",", ":")) + "\n", encoding="utf-8")
        exchanges.append({"request": {"method": "GET", "url": f"{HOST}/api/retail/prices?{_query(region, skip)}",
                                      "body": None},
                          "response": {"status": 200, "headers": {"content-type": "application/json",
                                                                  **({"date": answered} if answered else {})},
                                       "body_file": body}})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=PLUGIN.parents[1] / ".." / "shared" / "reference")
    args = parser.parse_args()
    source = json.loads((args.shared / SAMPLE).read_text(encoding="utf-8"))
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    exchanges = []
    total = 0
    for file_name, region in REGIONS.items():
        rows = source[file_name]
        items = [build_item(k, v) for k, v in rows.items()]
        assert all(i["armRegionName"] == region for i in items), file_name
        total += len(items)
        write_region(region, items, exchanges, EU_ANSWERED)
    assert total == 1085, total
    us = us_items(args.shared)
    for region, items in us.items():
        write_region(region, items, exchanges)
    us_total = sum(len(v) for v in us.values())
    manifest = {
        "format": 1, "provider": "azure", "recorded_at": RECORDED_AT, "kind": "reconstructed",
        "data_date": None,
        "data_date_note": ("dated per price: EU rows are Azure Retail Prices of 2026-08-20 (azure-pricing-radar; "
                           "their pages carry that HTTP Date); US rows come from a SkyPilot Azure catalog copy of "
                           "unknown date (2023 or later) and are undated"),
        "source": "Azure Retail Prices GPU VM rows of 2026-08-20 (andy-diericks/azure-pricing-radar data/latest, "
                  "commit 1b7f55446201), via shared/reference/provider-samples/azure; US regions from the SkyPilot "
                  "Azure catalog v8 copy (coopslarhette/skypilot-catalog@20291d7), via "
                  "shared/reference/skypilot-catalog/azure",
        "notes": ("All 1,085 rows (368 westeurope, 291 northeurope, 253 swedencentral, 173 francecentral; the "
                  "Belgium file had none and is replayed as the empty region belgiumcentral), rebuilt into raw "
                  "pages of 100 items linked by NextPageLink by scripts/build_recording.py. Copied per row: "
                  "retailPrice, unitPrice, armRegionName, meterName, productName, skuName, unitOfMeasure. "
                  "Reconstructed: armSkuName (from the SKU/meter names; for sizes the spec table does not know "
                  "the name is mechanical), meterId/skuId/productId/type (from the source key), currencyCode USD, "
                  "isPrimaryMeterRegion true, serviceName/serviceId/serviceFamily, savingsPlan (1-year term only; "
                  "the source kept no 3-year term). No Reservation or DevTestConsumption rows: the source kept "
                  "Consumption rows only. " + US_NOTE + f" ({us_total} US items)"),
        "exchanges": exchanges,
    }
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(exchanges)} pages, {total} EU + {us_total} US items to {OUT}")


if __name__ == "__main__":
    main()
