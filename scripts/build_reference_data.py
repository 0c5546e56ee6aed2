"""Build gpuhub's own data files from the facts in ../shared/reference (gpus.csv, regions.csv, carbon.csv).

Run from the repository root: ``python scripts/build_reference_data.py [PATH_TO_SHARED_REFERENCE]``.
Every output row keeps the reference row's ``source`` column.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

# gpu_id in the reference table -> (canonical name, short form factor). The canonical name is what users type and
# what offers carry; variants that differ in memory are different names (A100 40 GB vs A100-80GB).
CANONICAL = {
    "nvidia-b200": ("B200", "SXM"),
    "nvidia-gb200": ("GB200", "Superchip"),
    "nvidia-h200-sxm": ("H200", "SXM"),
    "nvidia-h100-sxm": ("H100", "SXM"),
    "nvidia-h100-pcie": ("H100", "PCIe"),
    "nvidia-h100-nvl": ("H100-NVL", "PCIe"),
    "nvidia-gh200": ("GH200", "Superchip"),
    "nvidia-a100-sxm4-80gb": ("A100-80GB", "SXM"),
    "nvidia-a100-sxm4-40gb": ("A100", "SXM"),
    "nvidia-a100-pcie-80gb": ("A100-80GB", "PCIe"),
    "nvidia-a100-pcie-40gb": ("A100", "PCIe"),
    "nvidia-a10": ("A10", "PCIe"),
    "nvidia-a10g": ("A10G", "PCIe"),
    "nvidia-l4": ("L4", "PCIe"),
    "nvidia-l40": ("L40", "PCIe"),
    "nvidia-l40s": ("L40S", "PCIe"),
    "nvidia-rtx-6000-ada": ("RTX6000-Ada", "PCIe"),
    "nvidia-rtx-a6000": ("RTXA6000", "PCIe"),
    "nvidia-a40": ("A40", "PCIe"),
    "nvidia-a16": ("A16", "PCIe"),
    "nvidia-quadro-rtx-6000": ("RTX6000", "PCIe"),
    "nvidia-t4": ("T4", "PCIe"),
    "nvidia-v100-sxm2-16gb": ("V100", "SXM"),
    "nvidia-v100-sxm2-32gb": ("V100-32GB", "SXM"),
    "nvidia-v100-pcie-16gb": ("V100", "PCIe"),
    "nvidia-p100-pcie-16gb": ("P100", "PCIe"),
    "nvidia-p4": ("P4", "PCIe"),
    "nvidia-k80": ("K80", "PCIe"),
    "nvidia-m60": ("M60", "PCIe"),
    "nvidia-rtx-pro-6000-blackwell-server": ("RTXPRO6000", "PCIe"),
    "amd-mi300x": ("MI300X", "OAM"),
    "amd-mi250x": ("MI250X", "OAM"),
    "amd-mi25": ("MI25", "PCIe"),
    "amd-radeon-pro-v520": ("RadeonProV520", "PCIe"),
    "amd-radeon-pro-v620": ("RadeonProV620", "PCIe"),
    "amd-radeon-pro-v710": ("RadeonProV710", "PCIe"),
    "intel-gaudi-hl205": ("Gaudi", "OAM"),
    "aws-trainium": ("Trainium", "Custom"),
    "aws-trainium2": ("Trainium2", "Custom"),
    "aws-trainium3": ("Trainium3", "Custom"),
    "aws-inferentia": ("Inferentia", "Custom"),
    "aws-inferentia2": ("Inferentia2", "Custom"),
}

GPU_COLUMNS = [
    "name", "gpu_id", "vendor", "model", "form_factor", "architecture", "memory_gib", "memory_type",
    "memory_bandwidth_gb_s", "fp64_tflops", "fp32_tflops", "tf32_tflops", "fp16_tflops", "bf16_tflops",
    "fp8_tflops", "tdp_w", "interconnect", "mig_support", "aliases", "source",
]


def build_gpus(ref: Path, out: Path) -> None:
    rows = []
    with (ref / "gpus.csv").open(newline="") as fh:
        for r in csv.DictReader(fh):
            name, form = CANONICAL[r["gpu_id"]]
            vendor = r["vendor"].split(" (")[0]
            rows.append({
                "name": name, "gpu_id": r["gpu_id"], "vendor": vendor, "model": r["model"], "form_factor": form,
                "architecture": r["architecture"], "memory_gib": r["memory_gb"], "memory_type": r["memory_type"],
                "memory_bandwidth_gb_s": r["memory_bandwidth_gb_s"], "fp64_tflops": r["fp64_tflops"],
                "fp32_tflops": r["fp32_tflops"], "tf32_tflops": r["tf32_tensor_tflops_dense"],
                "fp16_tflops": r["fp16_tensor_tflops_dense"], "bf16_tflops": r["bf16_tensor_tflops_dense"],
                "fp8_tflops": r["fp8_tensor_tflops_dense"], "tdp_w": r["tdp_w"], "interconnect": r["interconnect"],
                "mig_support": "yes" if r["mig_support"].startswith("yes") else "no",
                "aliases": r["aliases"], "source": r["source"],
            })
    _write(out / "gpus.csv", GPU_COLUMNS, rows)


REGION_COLUMNS = ["provider", "region", "region_name", "city", "country", "continent", "lat", "lon",
                  "location_precision", "status", "source"]
CARBON_COLUMNS = ["provider", "region", "gco2e_per_kwh", "year", "metric", "cfe_fraction", "proxy_of", "source"]


# Regions providers' own data names that ../shared/reference/regions.csv lacks, each with its source.
SUPPLEMENT_REGIONS = [
    {"provider": "gcp", "region": "us-west8", "region_name": "Phoenix", "city": "Phoenix (Arizona)", "country": "US",
     "continent": "North America", "lat": "33.45", "lon": "-112.07", "location_precision": "city",
     "status": "public",
     "source": "Cloud Billing SKU descriptions '... running in Phoenix' with serviceRegions ['us-west8'] "
               "(shared/reference/provider-samples/gcp, SKUs of 2024-09-16); city-centre coordinates"},
]


def build_regions(ref: Path, out: Path) -> None:
    with (ref / "regions.csv").open(newline="") as fh:
        rows = [{k: r[k] for k in REGION_COLUMNS} for r in csv.DictReader(fh)]
    have = {(r["provider"], r["region"]) for r in rows}
    rows += [r for r in SUPPLEMENT_REGIONS if (r["provider"], r["region"]) not in have]
    _write(out / "regions.csv", REGION_COLUMNS, rows)
    with (ref / "carbon.csv").open(newline="") as fh:
        rows = [{k: r[k] for k in CARBON_COLUMNS} for r in csv.DictReader(fh) if r["preferred"] == "1"]
    _write(out / "carbon.csv", CARBON_COLUMNS, rows)


def _write(path: Path, columns: list[str], rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {path} ({len(rows)} rows)")


if __name__ == "__main__":
    reference = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("../shared/reference")
    target = Path("gpuhub/data")
    build_gpus(reference, target)
    build_regions(reference, target)
