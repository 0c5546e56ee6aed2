"""Build gpuhub-cudo's bundled recording, in Cudo's ``/vms/machine-types-2`` shape, from the shared reference.

Input (read, never copied): ``../shared/reference/skypilot-catalog/cudo/vms.csv`` (SkyPilot catalog v8,
skypilot-org/skypilot-catalog commit e280db6c2d70d4828c039527b027ea3a14a88073; no date in the file).

SkyPilot priced each size as GPUs x gpu_price + vCPUs x vcpu_price + GiB x memory_price. Every catalog size has
2 GiB per vCPU, so the rows fix the GPU price and (vCPU price + 2 x GiB price), not the two apart: the recording's
``vcpuPriceHr`` holds that sum and ``memoryGibPriceHr`` 0 (stated in the manifest). ``gpuModel`` uses the spellings
gpuhunt's Cudo map shows (``A40 (compute mode)``, ``A100 80GB PCIe``, ``H100 SXM``, ``RTX A5000``...) and the
catalog's name where none is known. Free capacity is not in the catalog: ``maxGpuFree`` is left out.

Run: ``python plugins/gpuhub-cudo/scripts/build_recording.py [--check]``.
"""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path
from typing import Any

from gpuhub.plugin import build_recording_main, json_exchange

PLUGIN = Path(__file__).resolve().parents[1]
SOURCE = PLUGIN.parents[2] / "shared" / "reference" / "skypilot-catalog" / "cudo" / "vms.csv"
OUT = PLUGIN / "gpuhub_cudo" / "recording"
URL = "https://rest.compute.cudo.org/v1/vms/machine-types-2"
COMMIT = "e280db6c2d70d4828c039527b027ea3a14a88073"
SPELLING = {"A40": "A40 (compute mode)", "RTXA5000": "RTX A5000", "RTXA6000": "RTX A6000", "A100": "A100 80GB PCIe",
            "L40S": "L40S (compute mode)", "H100-SXM": "H100 SXM", "A800": "A800 80GB PCIe", "V100": "V100"}


def _text(value: Decimal) -> str:
    return format(value.quantize(Decimal("1e-10")).normalize(), "f")


def build() -> dict[str, Any]:
    """The recording's files by name."""
    points: dict[tuple[str, str], dict[tuple[int, int, int], Decimal]] = {}
    names: dict[tuple[str, str], str] = {}
    with SOURCE.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            machine = row["InstanceType"].rsplit("_", 1)[0]
            key = (machine, row["Region"])
            spec = (int(float(row["AcceleratorCount"])), int(row["vCPUs"]), int(row["MemoryGiB"]))
            points.setdefault(key, {})[spec] = Decimal(row["Price"])
            names[key] = row["AcceleratorName"]
    types = []
    for (machine, region), prices in points.items():
        combined = (prices[(1, 4, 8)] - prices[(1, 2, 4)]) / 2
        gpu = prices[(1, 2, 4)] - 2 * combined
        for (g, v, _), price in prices.items():  # the linear model holds for every size (within float noise)
            assert abs(g * gpu + v * combined - price) < Decimal("1e-9"), (machine, region)
        types.append({"machineType": machine, "dataCenterId": region, "gpuModel": SPELLING[names[(machine, region)]],
                      "gpuModelId": names[(machine, region)].lower(), "gpuPriceHr": {"value": _text(gpu)},
                      "vcpuPriceHr": {"value": _text(combined)}, "memoryGibPriceHr": {"value": "0"}})
    manifest = {
        "format": 1, "provider": "cudo", "recorded_at": None, "data_date": None,
        "data_date_note": "the SkyPilot catalog file carries no date and the index gives no commit date",
        "kind": "reconstructed",
        "source": f"SkyPilot catalog v8 catalogs/v8/cudo/vms.csv (skypilot-org/skypilot-catalog@{COMMIT[:8]})",
        "notes": ("Reconstructed in the /vms/machine-types-2 shape: gpuPriceHr exact; vcpuPriceHr = vCPU price + "
                  "2 x GiB price and memoryGibPriceHr = 0 (the catalog's sizes cannot separate them); gpuModel "
                  "spellings for A800 and the graphics-mode A40/L40S are not known and written by hand; no free "
                  "capacity."),
        "exchanges": [json_exchange(URL, "machine-types-2.json")]}
    return {"manifest.json": manifest, "machine-types-2.json": {"machineTypes": types}}


def main() -> int:
    return build_recording_main(__doc__, OUT, build, (SOURCE,))


if __name__ == "__main__":
    raise SystemExit(main())
