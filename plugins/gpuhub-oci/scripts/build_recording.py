"""Build gpuhub-oci's bundled recording (Cost Estimator ``shapes.json`` + ``products.json``) and region table.

Inputs (read, never copied):
    ../shared/reference/skypilot-catalog/oci/vms.gpu-digest.csv
        the GPU rows of SkyPilot's catalog v8 ``oci/vms.csv`` (skypilot-org/skypilot-catalog commit 0588751183...),
        one row per shape with every region/AD it is listed in; no date in the file.
    ../shared/reference/provider-samples/oci/cost-estimator.shapes.json.trimmed-excerpt.py-literal.txt
        two real (CPU-only) shapes of Oracle's shapes.json; kept in the recording so the CPU-only skip is exercised.
    gpuhub/data/places.csv
        city coordinates (GeoNames) for the regions' cities.

Reconstruction: each GPU row becomes a ``shapes.json`` item (``gpuQty`` = count, ``gpuMemoryQty`` = total GB from
``GpuInfo``, ``bundleMemoryQty`` = RAM, one ``ocpu`` product of vCPUs/2 OCPUs, ``allowPreemptible`` where the row has a
spot price, ``processorType`` ``arm`` for the Grace shapes GB200/GB300 and left out elsewhere) and a ``products.json``
item priced per GPU-hour (row price / count, exact). Oracle's real part numbers are not in the reference: the
recording's are ``RECON-<shape>``, stated in the manifest.

Run: ``python plugins/gpuhub-oci/scripts/build_recording.py [--check]``.
"""

from __future__ import annotations

import ast
import csv
from decimal import Decimal
from pathlib import Path
from typing import Any

from gpuhub.plugin import build_recording_main, json_exchange

PLUGIN = Path(__file__).resolve().parents[1]
REPO = PLUGIN.parents[1]
REFERENCE = REPO.parent / "shared" / "reference"
DIGEST = REFERENCE / "skypilot-catalog" / "oci" / "vms.gpu-digest.csv"
SAMPLE = REFERENCE / "provider-samples" / "oci" / "cost-estimator.shapes.json.trimmed-excerpt.py-literal.txt"
PLACES = REPO / "gpuhub" / "data" / "places.csv"
OUT = PLUGIN / "gpuhub_oci"
BASE = "https://www.oracle.com/a/ocom/docs/cloudestimator2/data"
COMMIT = "0588751183820cf2dab5c8a89447e8aac9f73fd5"
# Region code -> (city as in gpuhub's place table, country, continent); cities missing from that table get
# city-centre coordinates here.
CITIES = {
    "af-casablanca-1": ("Casablanca", "MA", "Africa"), "af-johannesburg-1": ("Johannesburg", "ZA", "Africa"),
    "ap-batam-1": ("Batam", "ID", "Asia"), "ap-chuncheon-1": ("Chuncheon", "KR", "Asia"),
    "ap-hyderabad-1": ("Hyderabad", "IN", "Asia"), "ap-kulai-2": ("Kulai", "MY", "Asia"),
    "ap-melbourne-1": ("Melbourne", "AU", "Oceania"), "ap-mumbai-1": ("Mumbai", "IN", "Asia"),
    "ap-osaka-1": ("Osaka", "JP", "Asia"), "ap-seoul-1": ("Seoul", "KR", "Asia"),
    "ap-singapore-1": ("Singapore", "SG", "Asia"), "ap-singapore-2": ("Singapore", "SG", "Asia"),
    "ap-sydney-1": ("Sydney", "AU", "Oceania"), "ap-tokyo-1": ("Tokyo", "JP", "Asia"),
    "ca-montreal-1": ("Montréal", "CA", "North America"), "ca-toronto-1": ("Toronto", "CA", "North America"),
    "eu-amsterdam-1": ("Amsterdam", "NL", "Europe"), "eu-frankfurt-1": ("Frankfurt am Main", "DE", "Europe"),
    "eu-madrid-1": ("Madrid", "ES", "Europe"), "eu-madrid-3": ("Madrid", "ES", "Europe"),
    "eu-marseille-1": ("Marseille", "FR", "Europe"), "eu-milan-1": ("Milan", "IT", "Europe"),
    "eu-paris-1": ("Paris", "FR", "Europe"), "eu-stockholm-1": ("Stockholm", "SE", "Europe"),
    "eu-turin-1": ("Turin", "IT", "Europe"), "eu-zurich-1": ("Zürich", "CH", "Europe"),
    "il-jerusalem-1": ("Jerusalem", "IL", "Asia"), "me-abudhabi-1": ("Abu Dhabi", "AE", "Asia"),
    "me-dubai-1": ("Dubai", "AE", "Asia"), "me-jeddah-1": ("Jeddah", "SA", "Asia"),
    "me-riyadh-1": ("Riyadh", "SA", "Asia"), "mx-monterrey-1": ("Monterrey", "MX", "North America"),
    "mx-queretaro-1": ("Santiago de Querétaro", "MX", "North America"),
    "sa-bogota-1": ("Bogotá", "CO", "South America"), "sa-santiago-1": ("Santiago", "CL", "South America"),
    "sa-saopaulo-1": ("São Paulo", "BR", "South America"), "sa-valparaiso-1": ("Valparaíso", "CL", "South America"),
    "sa-vinhedo-1": ("Vinhedo", "BR", "South America"), "uk-cardiff-1": ("Cardiff", "GB", "Europe"),
    "uk-london-1": ("London", "GB", "Europe"), "us-ashburn-1": ("Ashburn", "US", "North America"),
    "us-chicago-1": ("Chicago", "US", "North America"), "us-phoenix-1": ("Phoenix", "US", "North America"),
    "us-sanjose-1": ("San Jose", "US", "North America"),
}
CITY_CENTRES = {"Chuncheon": (37.8813, 127.7298), "Kulai": (1.6561, 103.6032), "Marseille": (43.2965, 5.3698),
                "Turin": (45.0703, 7.6869), "Valparaíso": (-33.0472, -71.6127), "Vinhedo": (-23.0297, -46.975),
                "Cardiff": (51.4816, -3.1791)}
ARM = {"GB200", "GB300"}


def _regions(digest_regions: list[str]) -> list[dict[str, Any]]:
    with PLACES.open(newline="", encoding="utf-8") as fh:
        places = {(r["name"], r["country"]): (float(r["lat"]), float(r["lon"])) for r in csv.DictReader(fh)}
    out = []
    for code in digest_regions:
        city, country, continent = CITIES[code]
        lat, lon = places.get((city, country)) or CITY_CENTRES[city]
        out.append({"region": code, "city": city, "country": country, "continent": continent, "lat": lat,
                    "lon": lon})
    return out


def _sample_items() -> list[dict[str, Any]]:
    text = SAMPLE.read_text(encoding="utf-8")
    literal = text[text.index("{"): text.rindex("}") + 1]
    items: list[dict[str, Any]] = ast.literal_eval(literal)["items"]
    return items


def build() -> dict[str, Any]:
    """The files to write (path relative to ``gpuhub_oci/`` -> JSON-ready content)."""
    shapes, products, digest_regions = [], [], []
    with DIGEST.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            name, count = row["InstanceType"], int(row["AcceleratorCount"])
            info = ast.literal_eval(row["GpuInfo"])
            total_gb = info["TotalGpuMemoryInMiB"] // 1024
            part = f"RECON-{name}"
            shape: dict[str, Any] = {
                "name": name, "hidden": False, "status": "ACTIVE", "allowPreemptible": bool(row["SpotPrice"]),
                "bundleMemoryQty": int(row["MemoryGiB"]), "gpuQty": count, "gpuMemoryQty": total_gb,
                "shapeType": {"value": name.split(".")[0].lower()}, "subType": {"value": "gpu"},
                "products": [{"partNumber": part, "qty": int(row["vCPUs"]) // 2, "type": {"value": "ocpu"}}]}
            if row["AcceleratorName"] in ARM:
                shape["processorType"] = {"value": "arm"}
                shape["products"][0]["qty"] = int(row["vCPUs"])
            shapes.append(shape)
            per_gpu = Decimal(row["Price"]) / count
            products.append({"partNumber": part, "billingModel": "UCM", "pricetype": "HOUR",
                             "currencyCodeLocalizations": [{"currencyCode": "USD", "prices": [
                                 {"model": "PAY_AS_YOU_GO", "value": float(per_gpu)}]}]})
            for entry in row["Regions"].split(";"):
                region = entry.split("/")[0]
                if region not in digest_regions:
                    digest_regions.append(region)

    def exchange(name: str) -> dict[str, Any]:
        return json_exchange(f"{BASE}/{name}", name)

    manifest = {
        "format": 1, "provider": "oci", "recorded_at": None, "data_date": None,
        "data_date_note": "the SkyPilot catalog file carries no date and the index gives no commit date",
        "kind": "reconstructed",
        "source": f"SkyPilot catalog v8 catalogs/v8/oci/vms.csv GPU rows (skypilot-org/skypilot-catalog@{COMMIT[:8]}) "
                  "and two real shapes.json items (gpuhunt's test excerpt)",
        "notes": ("Reconstructed in the Cost Estimator's shape: GPU shapes from the catalog's rows, priced per GPU "
                  "on a part number named RECON-<shape> (Oracle's part numbers are not in the source); "
                  "processorType is given only for the Grace shapes; the two CPU-only shapes are real excerpts."),
        "exchanges": [exchange("shapes.json"), exchange("products.json")]}
    return {"recording/manifest.json": manifest,
            "recording/shapes.json": {"items": _sample_items() + shapes},
            "recording/products.json": {"items": products},
            "data/regions.json": _regions(digest_regions)}


def main() -> int:
    return build_recording_main(__doc__, OUT, build, (DIGEST, SAMPLE, PLACES))


if __name__ == "__main__":
    raise SystemExit(main())
