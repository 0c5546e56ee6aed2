"""The gpuhub hook implementations of the AWS plugin (registration only; no I/O)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import GpuSpec, Provider, hookimpl
from gpuhub_aws.parse import GPU_ALIASES
from gpuhub_aws.provider import AwsProvider


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the ``aws`` provider."""
    register(AwsProvider())


@hookimpl
def register_gpu_specs(register: Callable[[GpuSpec], None], alias: Callable[[str, str], None]) -> None:
    """AWS spellings the core's GPU table does not resolve by itself (``DescribeInstanceTypes`` names)."""
    for spelling, canonical in GPU_ALIASES.items():
        alias(spelling, canonical)
