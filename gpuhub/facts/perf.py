"""Price-performance figures: what an offer costs per unit of GPU throughput, bandwidth and memory.

Formulas (all per hour, in the offer's currency; ``n`` = GPUs in the instance, fractions included):

- per dense TFLOP-hour at precision P = price per hour / (n × dense TFLOPS at P). Dense figures come from the GPU
  table (``gpuhub/data/gpus.csv``: vendor datasheets, structured-sparsity figures halved).
- per TB/s-hour of memory bandwidth = price per hour / (n × bandwidth in TB/s).
- per VRAM GiB-hour = price per hour / (n × usable VRAM per GPU in GiB).

A GPU without a figure at some precision (no FP8 before Hopper, unknown GPUs) gets None there, never zero. When an
offer does not say SXM or PCIe and the model comes in both, the lower (PCIe) figures are used: the estimate errs
on the side of the buyer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuhub.facts.gpus import GpuSpec, GpuTable

if TYPE_CHECKING:
    from gpuhub.model import Instance, Offer

__all__ = ["PRECISIONS", "InstanceThroughput", "gpu_figures", "instance_throughput", "price_performance", "spec_for",
           "throughput"]

PRECISIONS = ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8")
"""Precisions with a dense TFLOPS figure in the GPU table (fp64/fp32: vector units; the others: tensor cores)."""


@dataclass(frozen=True)
class InstanceThroughput:
    """Whole-instance figures (n × per-GPU), None where the GPU table has no figure."""

    tflops: dict[str, float | None]
    bandwidth_tb_s: float | None
    power_kw: float | None
    spec: GpuSpec | None


def spec_for(gpus: GpuTable, name: str | None, form_factor: str | None) -> GpuSpec | None:
    """The spec row for an offer's GPU; with no form factor, the row with the lowest BF16 figure (conservative)."""
    if name is None:
        return None
    rows = [s for s in gpus.specs if s.name == name]
    if form_factor is not None:
        rows = [s for s in rows if s.form_factor == form_factor] or rows
    if not rows:
        return None
    return min(rows, key=lambda s: (s.bf16_tflops or s.fp16_tflops or s.fp32_tflops or 0))


def throughput(offer: Offer, gpus: GpuTable) -> InstanceThroughput:
    """Dense TFLOPS per precision, memory bandwidth (TB/s) and GPU power (kW) of the whole instance."""
    return instance_throughput(offer.instance, gpus)


def _tflops(spec: GpuSpec) -> tuple[float | None, ...]:
    return (spec.fp64_tflops, spec.fp32_tflops, spec.tf32_tflops, spec.fp16_tflops, spec.bf16_tflops,
            spec.fp8_tflops)


def gpu_figures(gpus: GpuTable, name: str | None, form_factor: str | None) -> tuple[float | None, ...]:
    """One GPU's dense TFLOPS per precision (:data:`PRECISIONS` order), memory bandwidth in TB/s and board power in
    kW, from the GPU table (:func:`spec_for`); None where the table has no figure or the GPU is not in it."""
    spec = spec_for(gpus, name, form_factor)
    if spec is None:
        return (None,) * (len(PRECISIONS) + 2)
    return (*_tflops(spec), spec.memory_bandwidth_gb_s / 1000 if spec.memory_bandwidth_gb_s else None,
            spec.tdp_w / 1000 if spec.tdp_w else None)


def instance_throughput(instance: Instance, gpus: GpuTable) -> InstanceThroughput:
    """:func:`throughput` of an instance (the figures depend on the instance only)."""
    gpu = instance.gpu
    spec = spec_for(gpus, gpu.name, gpu.form_factor) if gpu is not None and gpu.known else None
    n = instance.gpu_count
    if spec is None or n <= 0:
        return InstanceThroughput({p: None for p in PRECISIONS}, None, None, spec)
    return InstanceThroughput(
        tflops={p: (v * n if v else None) for p, v in zip(PRECISIONS, _tflops(spec), strict=True)},
        bandwidth_tb_s=spec.memory_bandwidth_gb_s * n / 1000 if spec.memory_bandwidth_gb_s else None,
        power_kw=spec.tdp_w * n / 1000 if spec.tdp_w else None,
        spec=spec,
    )


def price_performance(offer: Offer, gpus: GpuTable) -> dict[str, float | None]:
    """``usd_per_<precision>_tflop_hour`` for each precision, ``usd_per_tb_s_hour`` and ``usd_per_vram_gib_hour``
    (keys say USD; the figures are in the offer's currency, which is USD for every bundled provider but AWS China).
    """
    figures = throughput(offer, gpus)
    price = float(offer.price.amount)
    out: dict[str, float | None] = {}
    for precision in PRECISIONS:
        tflops = figures.tflops[precision]
        out[f"usd_per_{precision}_tflop_hour"] = price / tflops if tflops else None
    out["usd_per_tb_s_hour"] = price / figures.bandwidth_tb_s if figures.bandwidth_tb_s else None
    vram = offer.instance.gpu_memory_total_gib
    out["usd_per_vram_gib_hour"] = price / vram if vram else None
    return out
