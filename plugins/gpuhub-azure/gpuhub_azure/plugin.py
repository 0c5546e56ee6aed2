"""gpuhub hook implementations of the Azure plugin (entry point ``gpuhub.azure``)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import GpuSpec, Provider, hookimpl
from gpuhub_azure.provider import AzureProvider

# Azure's own GPU spellings (size docs, Resource SKUs family names) mapped to gpuhub's canonical names.
AZURE_GPU_ALIASES: dict[str, str] = {
    "NVIDIA H100 NVL": "H100-NVL",
    "Radeon Instinct MI25": "MI25",
    "AMD Radeon PRO V620": "RadeonProV620",
    "AMD Radeon PRO V710": "RadeonProV710",
    "NVIDIA RTX PRO 6000 Blackwell Server Edition": "RTXPRO6000",
}


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Azure provider."""
    register(AzureProvider())


@hookimpl
def register_gpu_specs(register: Callable[[GpuSpec], None], alias: Callable[[str, str], None]) -> None:
    """Azure's spellings of GPUs the core table already knows (no new GPU rows)."""
    for spelling, canonical in AZURE_GPU_ALIASES.items():
        alias(spelling, canonical)
