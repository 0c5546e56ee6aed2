"""Rebuild gpuhub-primeintellect's bundled recording from the SkyPilot catalog's Prime Intellect file.

Input: ``../shared/reference/skypilot-catalog/primeintellect/vms.csv`` (SkyPilot catalog v8, commit d9a304e; CRLF;
190 rows: 115 GPU rows, 75 CPU rows; one row per offer and data centre). ``InstanceType`` is
``<provider>__<count>x<gpuType>__<vCPUs>__<GB>`` (``__SPOT`` for interruptible rows, priced in ``SpotPrice``);
``UpstreamCloudId`` is the seller's own instance type.

Output (inside the package): ``gpuhub_primeintellect/recording/availability.json``, one answer of
``GET /api/v1/availability/`` in Prime Intellect's shape: GPU type -> offers, one offer per row:
``cloudId`` = ``UpstreamCloudId``; ``gpuType``, ``provider`` and ``gpuCount`` from ``InstanceType``; ``gpuMemory`` =
the GB figure in the GPU type (``A100_80GB`` -> 80; the file's GpuInfo holds the instance total in its per-GPU
field, known fault C32, so it is not used); ``vcpu``/``memory`` ``defaultCount`` = ``vCPUs``/``MemoryGiB``;
``country`` = ``Region``; ``dataCenter`` = ``AvailabilityZone``; ``prices.onDemand`` = ``Price`` (``SpotPrice``
for ``__SPOT`` rows, with ``isSpot: true``), currency USD; ``socket`` = the fifth part of ``InstanceType`` where
there is one (``NVLINK``, two rows). CPU rows are kept under ``CPU_NODE`` with
``gpuCount: 0`` (the provider skips and counts them). No ``stockStatus`` (not in the source: availability unknown).
Usage::

    python plugins/gpuhub-primeintellect/scripts/build_recording.py [path/to/vms.csv]
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path
from typing import Any

from gpuhub.plugin import json_exchange

PLUGIN = Path(__file__).resolve().parents[1]
PACKAGE = PLUGIN / "gpuhub_primeintellect"
DEFAULT_CATALOG = PLUGIN.parents[2] / "shared" / "reference" / "skypilot-catalog" / "primeintellect" / "vms.csv"
URL = "https://api.primeintellect.ai/api/v1/availability/"
RECORDED_AT = "2026-12-01"


def _number(text: str) -> float | int:
    value = float(text)
    return int(value) if value.is_integer() else value


def build(path: Path) -> dict[str, list[dict[str, Any]]]:
    """The availability answer."""
    with path.open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    answer: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        parts = row["InstanceType"].split("__")
        provider, shape, spot = parts[0], parts[1], parts[-1] == "SPOT"
        socket = parts[4] if len(parts) > 4 and parts[4] != "SPOT" else None
        if shape == "CPU_NODE":
            gpu_type, count, memory = "CPU_NODE", 0, None
        else:
            number, gpu_type = shape.split("x", 1)
            count = int(number)
            found = re.search(r"_(\d+)GB$", gpu_type)
            memory = int(found.group(1)) if found else None
        assert count == int(float(row["AcceleratorCount"])), row
        answer.setdefault(gpu_type, []).append({
            "cloudId": row["UpstreamCloudId"], "gpuType": gpu_type, "provider": provider,
            "dataCenter": row["AvailabilityZone"], "country": row["Region"], "gpuCount": count, "gpuMemory": memory,
            "vcpu": {"defaultCount": _number(row["vCPUs"])}, "memory": {"defaultCount": _number(row["MemoryGiB"])},
            "prices": {"onDemand": float(row["SpotPrice"] if spot else row["Price"]), "currency": "USD"},
            "isSpot": spot, **({"socket": socket} if socket else {})})
    return answer


def main(argv: list[str]) -> None:
    answer = build(Path(argv[1]) if len(argv) > 1 else DEFAULT_CATALOG)
    out = PACKAGE / "recording"
    out.mkdir(exist_ok=True)
    (out / "availability.json").write_text(json.dumps(answer, indent=1) + "\n", encoding="utf-8")
    manifest = {
        "format": 1, "provider": "primeintellect", "recorded_at": RECORDED_AT, "data_date": None,
        "data_date_note": "SkyPilot catalog v8 primeintellect/vms.csv at commit d9a304e; the commit's date is not "
                          "known and the file has no date column",
        "kind": "reconstructed",
        "source": "SkyPilot catalog v8 primeintellect/vms.csv (skypilot-org/skypilot-catalog@d9a304e)",
        "notes": "One availability answer rebuilt by scripts/build_recording.py: 115 GPU offers of 10 sellers "
                 "(latitude, datacrunch, crusoecloud, hyperstack, oblivus, lambdalabs, nebius, dc_wildebeest, "
                 "primecompute, dc_roan) and 75 CPU nodes (skipped by the provider). gpuMemory is the GB figure of "
                 "the GPU type name; stockStatus is not in the source (availability unknown).",
        "exchanges": [json_exchange(URL, "availability.json")],
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {sum(len(v) for v in answer.values())} offers of {len(answer)} GPU types")


if __name__ == "__main__":
    main(sys.argv)
