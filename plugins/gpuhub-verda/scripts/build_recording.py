"""Build gpuhub-verda's bundled recording, in Verda's own API shape, from the shared reference facts.

Input (read, never copied): ``../shared/reference/skypilot-catalog/verda/vms.csv`` (SkyPilot catalog v8,
skypilot-org/skypilot-catalog commit 538675a09162988c70e6f07f8302e7d986749ff8; no date in the file).

Reconstruction, per catalog row (instance type, vCPUs, RAM GiB, GPU model and count, location, price, spot price):
``/instance-types`` items carry ``instance_type``, ``price_per_hour``/``spot_price`` as strings (null when no
row has a spot price), ``currency`` ``usd``, ``cpu.number_of_cores``, ``memory.size_in_gigabytes``,
``gpu {description "<n>x <model> <GB>GB", number_of_gpus}`` and ``gpu_memory.size_in_gigabytes`` as the instance
total (Verda's convention). The per-GPU GB is the catalog's ``GpuInfo`` MiB divided by the count and by 1024: in
this catalog version ``MemoryInfo.SizeInMiB`` is already the instance total (and ``TotalGpuMemoryInMiB`` is
multiplied by the count once more), so it is divided, never taken as per-GPU. ``/instance-availability``
(``isSpot=false``) lists each type in the locations of its rows, ``isSpot=true`` in those whose row has a spot
price. ``/oauth2/token`` is recorded with redacted credentials and token.

Run: ``python plugins/gpuhub-verda/scripts/build_recording.py [--check]``.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import httpx

from gpuhub.plugin import build_recording_main, json_exchange

PLUGIN = Path(__file__).resolve().parents[1]
SOURCE = PLUGIN.parents[2] / "shared" / "reference" / "skypilot-catalog" / "verda" / "vms.csv"
OUT = PLUGIN / "gpuhub_verda" / "recording"
BASE = "https://api.datacrunch.io/v1"
COMMIT = "538675a09162988c70e6f07f8302e7d986749ff8"
MODEL = {"B300": "B300", "B200": "B200", "H200": "H200", "H100": "H100 SXM5", "A100-80GB": "A100 SXM4",
         "A100-40GB": "A100 SXM4", "Tesla-V100": "Tesla V100", "RTX-PRO-6000": "RTX PRO 6000",
         "L40S": "L40S", "RTX-6000-Ada": "RTX 6000 Ada", "RTX-A6000": "RTX A6000"}
"""Catalog GPU names (without their ``-<total>GB`` suffix) -> the model words of Verda's descriptions."""


def _model(name: str) -> str:
    for key in sorted(MODEL, key=len, reverse=True):
        if name == key or name.startswith(key + "-"):
            return MODEL[key]
    raise KeyError(name)


def build() -> dict[str, Any]:
    """The recording's files: name -> JSON-ready content (``manifest.json`` included)."""
    types: dict[str, dict[str, Any]] = {}
    demand: dict[str, list[str]] = {}
    spot: dict[str, list[str]] = {}
    with SOURCE.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            name, count = row["InstanceType"], int(float(row["AcceleratorCount"]))
            info = json.loads(row["GpuInfo"])
            per_gpu_gb = info["Gpus"][0]["MemoryInfo"]["SizeInMiB"] // count // 1024
            item = types.setdefault(name, {
                "instance_type": name, "price_per_hour": row["Price"], "spot_price": None, "currency": "usd",
                "cpu": {"description": f"{int(float(row['vCPUs']))} CPU",
                        "number_of_cores": int(float(row["vCPUs"]))},
                "gpu": {"description": f"{count}x {_model(row['AcceleratorName'])} {per_gpu_gb}GB",
                        "number_of_gpus": count},
                "gpu_memory": {"description": f"{per_gpu_gb * count}GB GPU RAM",
                               "size_in_gigabytes": per_gpu_gb * count},
                "memory": {"description": f"{int(float(row['MemoryGiB']))}GB RAM",
                           "size_in_gigabytes": int(float(row["MemoryGiB"]))},
                "model": _model(row["AcceleratorName"]), "manufacturer": "NVIDIA"})
            if item["price_per_hour"] != row["Price"]:
                raise SystemExit(f"{name}: two prices in the catalog")
            demand.setdefault(row["Region"], []).append(name)
            if row["SpotPrice"]:
                item["spot_price"] = row["SpotPrice"]
                spot.setdefault(row["Region"], []).append(name)
    token_body = httpx.Request("POST", f"{BASE}/oauth2/token", json={
        "grant_type": "client_credentials", "client_id": "REDACTED", "client_secret": "REDACTED"}).content.decode()

    def exchange(method: str, url: str, body_file: str, body: str | None = None) -> dict[str, Any]:
        return json_exchange(url, body_file, method=method, body=body)

    manifest = {
        "format": 1, "provider": "verda", "recorded_at": None, "data_date": None,
        "data_date_note": "the SkyPilot catalog file carries no date and the index gives no commit date",
        "kind": "reconstructed",
        "source": f"SkyPilot catalog v8 catalogs/v8/verda/vms.csv (skypilot-org/skypilot-catalog@{COMMIT[:8]})",
        "notes": ("Reconstructed in Verda's API shape from the catalog's rows (see scripts/build_recording.py); "
                  "descriptions are written from the catalog's GPU names; spot_price is null for the 5 types no "
                  "row prices as spot; availability = the locations of the catalog's rows, not a capacity "
                  "snapshot."),
        "exchanges": [
            exchange("POST", f"{BASE}/oauth2/token", "token.json", token_body),
            exchange("GET", f"{BASE}/instance-types", "instance-types.json"),
            exchange("GET", f"{BASE}/instance-availability?isSpot=false", "availability-on-demand.json"),
            exchange("GET", f"{BASE}/instance-availability?isSpot=true", "availability-spot.json")]}

    def listing(where: dict[str, list[str]]) -> list[dict[str, Any]]:
        return [{"location_code": code, "availabilities": names} for code, names in sorted(where.items())]

    return {"manifest.json": manifest, "instance-types.json": list(types.values()),
            "availability-on-demand.json": listing(demand), "availability-spot.json": listing(spot),
            "token.json": {"access_token": "REDACTED", "refresh_token": "REDACTED", "scope": "cloud-api-v1",
                           "token_type": "Bearer", "expires_in": 3600}}


def main() -> int:
    return build_recording_main(__doc__, OUT, build, (SOURCE,))


if __name__ == "__main__":
    raise SystemExit(main())
