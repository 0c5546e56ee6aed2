"""gpuhub-slurm: free GPUs, MIG slices and power-saved cloud nodes of a Slurm cluster as gpuhub offers."""

from gpuhub_slurm.provider import SlurmProvider

__all__ = ["SlurmProvider"]
