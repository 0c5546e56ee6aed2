"""gpuhub hook implementations of the GCP plugin (registered through the ``gpuhub`` entry point ``gcp``)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, hookimpl
from gpuhub_gcp.machines import ACCELERATORS
from gpuhub_gcp.provider import GcpProvider

# Compute Engine accelerator type names -> canonical gpuhub GPU names.
GCP_GPU_ALIASES: dict[str, str] = {a.name: a.canonical for a in ACCELERATORS.values()}


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the GCP provider."""
    register(GcpProvider())


@hookimpl
def register_gpu_specs(register: Callable[..., None], alias: Callable[[str, str], None]) -> None:
    """Map GCP accelerator type names (``nvidia-tesla-a100``, ``nvidia-h100-mega-80gb``) to canonical GPU names."""
    for spelling, canonical in GCP_GPU_ALIASES.items():
        alias(spelling, canonical)
