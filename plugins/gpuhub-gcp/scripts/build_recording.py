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

Run from the repository root:  python plugins/gpuhub-gcp/scripts/build_recording.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PLUGIN = HERE.parent
sys.path.insert(0, str(PLUGIN))

from gpuhub_gcp.machines import machine_types  # noqa: E402
from gpuhub_gcp.parse import component_of  # noqa: E402

SAMPLES = PLUGIN.parents[1] / ".." / "shared" / "reference" / "provider-samples" / "gcp"
BIG = "cloudbilling-v1.skus-items.compute-engine.gpu-h100-a3-n1std.2024-09-16.cromwell-monitor-test.json"
MIXED = "cloudbilling-v1.skus-items.mixed-11.h100-plus-spot-commit3yr-l4-spot.2024-09-16.cromwell-monitor-test.json"
OUT = PLUGIN / "gpuhub_gcp" / "recording"
URL = "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus"
PAGE = 200


def wanted(sku: dict[str, Any], families: set[str]) -> bool:
    """True for the SKUs the bundled machine types can use."""
    component = component_of(sku)
    if component is None:
        return False
    return component.kind in ("gpu", "ssd") or component.name in families


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
        "format": 1, "provider": "gcp", "recorded_at": "2024-09-16", "kind": "reconstructed",
        "source": ("real Compute Engine SKUs (effectiveTime 2024-09-16) from deepgenomics/cromwell-monitor "
                   "tests/data/services_pricelist.json (blob eb532891) and test_get_machine_hour_h100_mega_pricelist"
                   ".json (blob 8b795839), as excerpted in ../shared/reference/provider-samples/gcp/; re-paged by "
                   "plugins/gpuhub-gcp/scripts/build_recording.py"),
        "notes": (f"{len(skus)} SKUs in {len(pages)} pages of up to {PAGE}; page tokens are made up. Holds H100 "
                  "80GB / Mega / Plus GPU SKUs (all usage types), A3 and A3Plus core/RAM, N1 predefined core/RAM, "
                  "one Tesla A100 and one L4 spot GPU SKU; no A2/G2 core/RAM and no T4/V100/P100/P4 GPU SKUs, so "
                  "those types are reported as unpriced. Machine types come from gpuhub_gcp/machines.py."),
        "exchanges": exchanges,
    }
    manifest["notes"] += " " + DWS_NOTE
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in OUT.glob("*.json"))
    print(f"wrote {len(skus)} SKUs in {len(pages)} pages to {OUT} ({size} bytes)")


if __name__ == "__main__":
    main()
