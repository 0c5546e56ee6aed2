"""The gpuhub hook implementations of gpuhub-coreweave (entry point ``coreweave`` in the ``gpuhub`` group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import GpuSpec, Provider, hookimpl
from gpuhub_coreweave.parse import GPU_LABELS
from gpuhub_coreweave.provider import CoreWeave


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the CoreWeave provider."""
    register(CoreWeave())


@hookimpl
def register_gpu_specs(register: Callable[[GpuSpec], None], alias: Callable[[str, str], None]) -> None:
    """Alias CoreWeave's own GPU labels (``A100_NVLINK``, ``H100_PCIE``, ...) to canonical GPUs.

    Every CoreWeave-specific label (the ones with an underscore) that has a canonical GPU is aliased, not only
    those the core's resolver misses today, so the labels keep resolving (``A100_NVLINK`` to the 40 GB A100, known
    fault C06) whatever the core's spelling heuristics become. Source: CoreWeave's docs (see ``parse.GPU_LABELS``).
    """
    for label in GPU_LABELS.values():
        if label.canonical is not None and "_" in label.label:
            alias(label.label, label.canonical)
