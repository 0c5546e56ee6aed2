"""The bundled table of GCP GPU machine types: what each type is made of, and how GCP sells it.

GCP prices a VM as the sum of its components (vCPUs, RAM GiB, GPUs, bundled local SSD), so the price list alone
cannot say what a machine type contains. This table can. Provenance, per family:

* vCPUs and RAM of A2, A3 and A4 types: the skypilot-catalog GCP ``vms.csv`` (schema v8, commit ``8427bbf``),
  columns ``vCPUs``/``MemoryGiB``; a2-highgpu-1g (12 vCPUs, 87040 MiB = 85 GiB, 1 × nvidia-tesla-a100) also matches
  the real Compute Engine ``machineTypes`` resource in ../shared/reference/provider-samples/gcp/.
* GPU model and count, bundled local SSD, G2/G4 shapes and the N1 GPU limits: Google Cloud's public
  documentation pages "Accelerator-optimized machine family" and "GPU machine types" (read 2025).
* Which purchase models a type is sold under (:attr:`MachineType.purchases`): the "Pricing and consumption options"
  table of the "Accelerator-optimized machine family" page and the AI Hypercomputer "consumption options" page:
  A4 and A3 Ultra are obtained through reservations, Flex-start or Spot, never on-demand; a3-highgpu-1g/2g/4g
  only as Spot (or Flex-start, which gpuhub does not model). Everything else: on-demand, Spot, 1- and 3-year
  commitments.

The N1 rows are N1 predefined types with GPUs attached by the user. gpuhub offers a sensible, documented subset:
``n1-standard-{4,8,16,32,64,96}`` with 1/2/4 T4, 1/2/4/8 V100, 1/2/4 P100 or 1/2/4 P4, wherever GCP allows that
vCPU count with that many GPUs (limits from the "GPU machine types" page). The instance type is written
``n1-standard-8+nvidia-tesla-t4x2``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ACCELERATORS", "ALL_PURCHASES", "MACHINE_TYPES", "Accelerator", "MachineType", "machine_types"]

ALL_PURCHASES = frozenset({"on_demand", "spot", "reserved_1y", "reserved_3y"})
_NO_ON_DEMAND = frozenset({"spot", "reserved_1y", "reserved_3y"})
_SPOT_ONLY = frozenset({"spot"})

_DOCS = "cloud.google.com/compute/docs/accelerator-optimized-machines (read 2025)"
_SKYPILOT = "skypilot-catalog catalogs/v8/gcp/vms.csv@8427bbf (vCPUs, MemoryGiB)"
_N1_DOCS = "cloud.google.com/compute/docs/gpus (GPU machine types, N1 table; read 2025)"


@dataclass(frozen=True)
class Accelerator:
    """A GCP accelerator type: its Compute Engine name, its canonical gpuhub GPU name, and VRAM per GPU in GiB."""

    name: str
    canonical: str
    memory_gib: float


ACCELERATORS: dict[str, Accelerator] = {a.name: a for a in (
    Accelerator("nvidia-tesla-a100", "A100", 40),
    Accelerator("nvidia-a100-80gb", "A100-80GB", 80),
    Accelerator("nvidia-h100-80gb", "H100", 80),
    Accelerator("nvidia-h100-mega-80gb", "H100", 80),
    Accelerator("nvidia-h200-141gb", "H200", 141),
    Accelerator("nvidia-b200", "B200", 180),
    Accelerator("nvidia-l4", "L4", 24),
    Accelerator("nvidia-rtx-pro-6000", "RTXPRO6000", 96),
    Accelerator("nvidia-tesla-t4", "T4", 16),
    Accelerator("nvidia-tesla-v100", "V100", 16),
    Accelerator("nvidia-tesla-p100", "P100", 16),
    Accelerator("nvidia-tesla-p4", "P4", 8),
)}


@dataclass(frozen=True)
class MachineType:
    """One GPU machine type (or N1 type with attached GPUs) as gpuhub prices it.

    Attributes:
        name: the instance type as gpuhub shows it (``a3-highgpu-8g``, ``n1-standard-8+nvidia-tesla-t4x2``).
        family: the family word of its core and RAM SKUs ("A3" for "A3 Instance Core", "A3Plus", "N1").
        vcpus: vCPUs.
        memory_gib: RAM in GiB (the API's ``memoryMb`` is MiB: GiB = memoryMb / 1024).
        accelerator: Compute Engine accelerator type name (a key of :data:`ACCELERATORS`).
        gpu_count: GPUs per VM.
        local_ssd_gib: local SSD bundled with the type, GiB (0 when none).
        purchases: purchase models GCP sells the type under.
        source: where these facts come from.
    """

    name: str
    family: str
    vcpus: int
    memory_gib: float
    accelerator: str
    gpu_count: int
    local_ssd_gib: int = 0
    purchases: frozenset[str] = ALL_PURCHASES
    source: str = _DOCS
    interconnect: str | None = None


def _a2() -> list[MachineType]:
    high = [MachineType(f"a2-highgpu-{n}g", "A2", 12 * n, 85.0 * n, "nvidia-tesla-a100", n,
                        source=f"{_SKYPILOT}; {_DOCS}") for n in (1, 2, 4, 8)]
    mega = [MachineType("a2-megagpu-16g", "A2", 96, 1360.0, "nvidia-tesla-a100", 16, source=f"{_SKYPILOT}; {_DOCS}")]
    ultra = [MachineType(f"a2-ultragpu-{n}g", "A2", 12 * n, 170.0 * n, "nvidia-a100-80gb", n, 375 * n,
                         source=f"{_SKYPILOT}; {_DOCS}") for n in (1, 2, 4, 8)]
    return high + mega + ultra


def _a3_a4() -> list[MachineType]:
    src = f"{_SKYPILOT}; {_DOCS}"
    high = [MachineType(f"a3-highgpu-{n}g", "A3", 26 * n, 234.0 * n, "nvidia-h100-80gb", n, 750 * n,
                        purchases=ALL_PURCHASES if n == 8 else _SPOT_ONLY, source=src, interconnect="NVLink")
            for n in (1, 2, 4, 8)]
    return [*high,
            MachineType("a3-edgegpu-8g", "A3", 208, 1872.0, "nvidia-h100-80gb", 8, 6000, source=src,
                        interconnect="NVLink"),
            MachineType("a3-megagpu-8g", "A3Plus", 208, 1872.0, "nvidia-h100-mega-80gb", 8, 6000, source=src,
                        interconnect="NVLink"),
            MachineType("a3-ultragpu-8g", "A3Ultra", 224, 2952.0, "nvidia-h200-141gb", 8, 12000,
                        purchases=_NO_ON_DEMAND, source=src, interconnect="NVLink"),
            MachineType("a4-highgpu-8g", "A4", 224, 3968.0, "nvidia-b200", 8, 12000, purchases=_NO_ON_DEMAND,
                        source=src, interconnect="NVLink")]


def _g2_g4() -> list[MachineType]:
    # (vCPUs, GPUs, bundled local SSD GiB); RAM is 4 GiB per vCPU.
    g2 = [(4, 1, 375), (8, 1, 375), (12, 1, 375), (16, 1, 375), (24, 2, 750), (32, 1, 375), (48, 4, 1500),
          (96, 8, 3000)]
    out = [MachineType(f"g2-standard-{v}", "G2", v, 4.0 * v, "nvidia-l4", g, ssd) for v, g, ssd in g2]
    # G4: 48 vCPUs and 180 GiB per RTX PRO 6000.
    out += [MachineType(f"g4-standard-{48 * g}", "G4", 48 * g, 180.0 * g, "nvidia-rtx-pro-6000", g, 1500 * g)
            for g in (1, 2, 4, 8)]
    return out


# accelerator -> [(GPU count, most vCPUs allowed with that many GPUs)]
_N1_LIMITS: dict[str, list[tuple[int, int]]] = {
    "nvidia-tesla-t4": [(1, 48), (2, 48), (4, 96)],
    "nvidia-tesla-v100": [(1, 12), (2, 24), (4, 48), (8, 96)],
    "nvidia-tesla-p100": [(1, 16), (2, 32), (4, 64)],
    "nvidia-tesla-p4": [(1, 24), (2, 48), (4, 96)],
}
_N1_SIZES = (4, 8, 16, 32, 64, 96)


def _n1() -> list[MachineType]:
    out = []
    for accel, limits in _N1_LIMITS.items():
        for count, max_vcpus in limits:
            for size in _N1_SIZES:
                if size <= max_vcpus:
                    out.append(MachineType(f"n1-standard-{size}+{accel}x{count}", "N1", size, 3.75 * size, accel,
                                           count, source=_N1_DOCS))
    return out


MACHINE_TYPES: tuple[MachineType, ...] = (*_a2(), *_a3_a4(), *_g2_g4(), *_n1())


def machine_types() -> tuple[MachineType, ...]:
    """All machine types gpuhub prices for GCP (see the module docstring for sources)."""
    return MACHINE_TYPES
