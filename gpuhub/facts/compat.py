"""Framework compatibility of each GPU: CUDA compute capability, Tensor Cores, FP8 / Transformer Engine, MIG, and
the CUDA releases (with their minimum Linux driver) that can build for it.

Sources: ``gpuhub/data/compute.csv`` (per GPU: NVIDIA's CUDA GPUs page and architecture whitepapers, named per row)
and ``gpuhub/data/cuda.csv`` (per compute capability: the CUDA release that added it and the last release that
still supports it, from the CUDA Toolkit release notes); MIG comes from the GPU table (``mig_support``). GPUs
without a CUDA compute capability (AMD, Intel, AWS accelerators) have None: a CUDA filter never keeps them.

PyTorch follows CUDA: its wheels built with CUDA 12.8 and newer (PyTorch 2.8+) target compute capability 7.5 and up
only (pytorch/pytorch issue 157517), so Maxwell, Pascal and Volta need an older build.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from gpuhub.facts._data import read_csv

__all__ = ["CUDA_MIN_DRIVER", "CUDA_RELEASES", "FEATURES", "GpuCompat", "compat", "cuda_supports", "parse_version"]

FEATURES = ("fp8", "transformer-engine", "tensor-cores", "mig")
"""Names accepted by ``--feature``."""
CUDA_MIN_DRIVER = {(8, 0): "375.26", (9, 0): "384.81", (10, 0): "410.48", (11, 0): "450.36.06", (11, 1): "455.23",
                   (11, 8): "520.61.05", (12, 8): "570.26", (12, 9): "575.51.03"}
"""Linux driver of each CUDA release's general-availability toolkit (CUDA Toolkit release notes, "CUDA Toolkit and
Corresponding Driver Versions"): the oldest driver that runs a GPU first supported by that release."""


CUDA_RELEASES: tuple[tuple[int, int], ...] = (
    (7, 0), (7, 5), (8, 0), (9, 0), (9, 1), (9, 2), (10, 0), (10, 1), (10, 2),
    (11, 0), (11, 1), (11, 2), (11, 3), (11, 4), (11, 5), (11, 6), (11, 7), (11, 8),
    (12, 0), (12, 1), (12, 2), (12, 3), (12, 4), (12, 5), (12, 6), (12, 8), (12, 9),
    (13, 0), (13, 1), (13, 2), (13, 3), (13, 4), (13, 5))
"""Every CUDA Toolkit release (major.minor), from NVIDIA's release notes archive (docs.nvidia.com/cuda/archive/
<version>: "CUDA Toolkit and Corresponding Driver Versions"; 13.1 to 13.5 also from the CUDA Tile IR releases aligned
with them, the last of November 2026). There is no 12.7: 12.6 was followed by 12.8."""


@dataclass(frozen=True)
class GpuCompat:
    """What software a GPU runs (``compute_capability`` as ``(major, minor)``; None when not a CUDA GPU)."""

    name: str
    compute_capability: tuple[int, int] | None
    tensor_core_generation: int | None
    fp8: bool | None
    transformer_engine: bool | None
    first_cuda: tuple[int, int] | None
    last_cuda: tuple[int, int] | None
    source: str

    @property
    def cuda_range(self) -> str:
        """The CUDA releases that target this GPU, e.g. ``11.8+`` or ``9.0–12.9``; ``-`` for none."""
        if self.compute_capability is None:
            return "-"
        first = _text(self.first_cuda) if self.first_cuda else "older"
        return f"{first}–{_text(self.last_cuda)}" if self.last_cuda else f"{first}+"

    @property
    def min_driver(self) -> str | None:
        """The oldest Linux driver that runs this GPU: the driver of the CUDA release that added it (None when
        unknown or not a CUDA GPU)."""
        return CUDA_MIN_DRIVER.get(self.first_cuda) if self.first_cuda else None

    def has(self, feature: str, mig_support: bool) -> bool:
        """True when the GPU has ``feature`` (one of :data:`FEATURES`); ``mig_support`` from the GPU table."""
        if feature == "mig":
            return mig_support
        if feature == "fp8":
            return bool(self.fp8)
        if feature == "transformer-engine":
            return bool(self.transformer_engine)
        if feature == "tensor-cores":
            return bool(self.tensor_core_generation)
        raise ValueError(feature)


def parse_version(text: str) -> tuple[int, int]:
    """``"12.4"`` → ``(12, 4)``; ``"9"`` → ``(9, 0)``.

    Raises:
        ValueError: not a ``major[.minor]`` version.
    """
    parts = text.strip().split(".")
    if not 1 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"{text!r} is not a version like 12.4")
    return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0


def _text(version: tuple[int, int] | None) -> str:
    return "" if version is None else f"{version[0]}.{version[1]}"


def _flag(value: str) -> bool | None:
    return {"yes": True, "no": False}.get(value.strip().lower())


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, GpuCompat], dict[tuple[int, int], tuple[tuple[int, int] | None,
                                                                          tuple[int, int] | None]]]:
    cuda: dict[tuple[int, int], tuple[tuple[int, int] | None, tuple[int, int] | None]] = {}
    for row in read_csv("cuda.csv"):
        cuda[parse_version(row["compute_capability"])] = (
            parse_version(row["first_cuda"]) if row["first_cuda"] else None,
            parse_version(row["last_cuda"]) if row["last_cuda"] else None)
    gpus: dict[str, GpuCompat] = {}
    for row in read_csv("compute.csv"):
        cc = parse_version(row["compute_capability"])
        first, last = cuda.get(cc, (None, None))
        gpus[row["name"]] = GpuCompat(
            name=row["name"], compute_capability=cc, tensor_core_generation=int(row["tensor_core_generation"]),
            fp8=_flag(row["fp8"]), transformer_engine=_flag(row["transformer_engine"]), first_cuda=first,
            last_cuda=last, source=row["source"])
    return gpus, cuda


def compat(name: str) -> GpuCompat:
    """The compatibility facts of a canonical GPU name (unknown GPUs and non-CUDA accelerators: all None)."""
    known = _tables()[0].get(name)
    if known is not None:
        return known
    return GpuCompat(name, None, None, None, None, None, None, "not a CUDA GPU, or not in gpuhub/data/compute.csv")


def cuda_supports(name: str, cuda: tuple[int, int]) -> bool:
    """True when CUDA release ``cuda`` can build for GPU ``name`` (False for non-CUDA or unknown GPUs)."""
    facts = compat(name)
    if facts.compute_capability is None:
        return False
    if facts.first_cuda is not None and cuda < facts.first_cuda:
        return False
    return facts.last_cuda is None or cuda <= facts.last_cuda
