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
    """AWS spellings the core's GPU table does not resolve by itself (``DescribeInstanceTypes`` names), and the
    Qualcomm AI100 of dl2q.24xlarge as a known accelerator that is not a GPU (so a search shows it only with
    ``--include-accelerators``)."""
    for spelling, canonical in GPU_ALIASES.items():
        alias(spelling, canonical)
    register(AI100)


AI100 = GpuSpec(name="AI100", vendor="Qualcomm", form_factor="PCIe", memory_gib=16000 / 1024,
                model="Qualcomm Cloud AI 100 (inference accelerator)", aliases=("Qualcomm AI100",), is_gpu=False,
                source="AWS DescribeInstanceTypes InferenceAcceleratorInfo of dl2q.24xlarge: 8 x Qualcomm AI100, "
                       "MemoryInfo.SizeInMiB 16000 each (moto 5.2.1 data)")
