"""gpuhub hook implementations of gpuhub-slurm (found through the ``gpuhub`` entry-point group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, hookimpl
from gpuhub_slurm.provider import SlurmProvider


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Slurm provider (name ``slurm``)."""
    register(SlurmProvider())
