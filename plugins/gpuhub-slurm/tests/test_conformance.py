"""The core's conformance kit against gpuhub-slurm (live mode served the bundled recording through the seam)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from gpuhub.plugin import ProviderConformance

RECORDING = Path(__file__).resolve().parents[1] / "gpuhub_slurm" / "recording"


class TestSlurmConformance(ProviderConformance):
    provider_name = "slurm"
    min_offers = 10
    empty_body = b'{"nodes": [], "partitions": [], "errors": [], "warnings": []}'
    live_environ: ClassVar[dict[str, str] | None] = {
        "GPUHUB_SLURM_URL": "https://slurm.hpc-west.example.internal:6820", "SLURM_JWT": "conformance-jwt-abcdef",
        "GPUHUB_SLURM_USER": "gpuhub", "GPUHUB_SLURM_CLUSTER_NAME": "hpc-west",
        "GPUHUB_SLURM_SETTINGS": str(RECORDING / "settings.toml")}
