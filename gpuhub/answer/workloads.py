"""Workload presets: rankers that answer what a job needs, not just what is cheapest per hour.

Each is a documented formula over the catalog's columns (lower score ranks first; NaN: cannot be scored, ranked
last). Throughput figures are dense TFLOPS from the GPU table (vendor datasheets); prices per instance-hour.

- ``training``: price per hour / (BF16 TFLOPS of the instance × efficiency), i.e. USD per effective BF16
  TFLOP-hour. Mixed-precision throughput is what training buys. Efficiency is 0.8 for a multi-GPU instance
  without NVLink/NVSwitch/SXM (gradient all-reduce over PCIe is the bottleneck) and 1.0 otherwise; spot and low
  priority cost the expected re-run of lost work where their interruption bucket is published
  (:func:`gpuhub.answer.cost.penalty_fraction`: bucket upper bound per month / 730 h × (``checkpoint_every`` / 2 +
  restart)), else 15 % more effective time (work since the last checkpoint is lost when reclaimed). FP16 is used
  where a GPU has no BF16 figure. Pair with ``model=`` to require enough total VRAM.
- ``inference``: price per hour × 1.25 for spot/low priority (serving needs stable capacity: on-demand wins
  unless spot is 20 % cheaper) × (1 + RTT/100 ms) when ``near=`` is given (10 ms of extra round trip weighs like
  10 % of price). With ``near=``, offers within the real-time budget (``rtt_budget``, default 50 ms round trip)
  rank ahead of every offer beyond it, at any price (a chat or voice frontend cannot hide 140 ms per turn). Pair
  with ``model=`` (fit) and ``max_rtt=`` (a hard latency limit).
- ``near`` (the default sort when ``near=`` is given without ``sort``/``workload``): distance-adjusted price,
  price per hour × (1 + RTT/100 ms). An offer 10 ms away pays a 10 % premium, one 140 ms away (Frankfurt to
  Tokyo) 140 %: a far region wins only when it is less than half the price of a near one (1.1 / 2.4 ≈ 46 %).
- ``data-science``: price per GPU-hour / balance, balance = min(1, vCPUs per GPU / 8) × min(1, RAM per GPU /
  64 GiB): data preparation and notebooks stall GPUs that lack CPU and memory beside them.
- ``rendering``: price per hour / memory bandwidth (TB/s), USD per TB/s-hour: rasterization, path tracing and
  large scenes are bound by memory bandwidth.
- ``scientific``: price per hour / FP64 TFLOPS (vector), USD per FP64 TFLOP-hour: simulations need double
  precision; consumer-class GPUs (1/64 rate) rank last by themselves.

Two more rankers: ``carbon`` (estimated gCO2e per hour, see :mod:`gpuhub.facts.carbon`) and ``latency`` (estimated
round trip from ``near=``, see :mod:`gpuhub.facts.location`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gpuhub.answer.ranking import Ranker, ScoreView

__all__ = ["PRESETS", "WORKLOAD_RANKERS"]

FloatArray = npt.NDArray[np.float64]
SPOT_TRAINING_PENALTY = 1.15
SPOT_INFERENCE_PENALTY = 1.25
PCIE_SCALING = 0.8
RTT_WEIGHT_MS = 100.0
"""Round trip that weighs like doubling the price (``near`` and ``inference``), ms."""
VCPUS_PER_GPU = 8.0
RAM_PER_GPU_GIB = 64.0


def _mixed_precision(v: ScoreView) -> FloatArray:
    bf16, fp16 = v.tflops["bf16"], v.tflops["fp16"]
    result: FloatArray = np.where(np.isnan(bf16), fp16, bf16)
    return result


def training(v: ScoreView) -> FloatArray:
    efficiency = np.where((v.gpu_count > 1) & ~v.fast_interconnect, PCIE_SCALING, 1.0)
    penalty = np.where(v.interruptible, SPOT_TRAINING_PENALTY, 1.0)
    if v.interruption_max_pct is not None:  # a published interruption bucket: the expected re-run instead
        from gpuhub.answer.cost import penalty_fraction

        expected = 1.0 + penalty_fraction(np.nan_to_num(v.interruption_max_pct, nan=0.0),  # type: ignore[arg-type]
                                          v.query.checkpoint_every_h)
        penalty = np.where(v.interruptible & ~np.isnan(v.interruption_max_pct), expected, penalty)
    result: FloatArray = v.price * penalty / (_mixed_precision(v) * efficiency)
    return result


def inference(v: ScoreView) -> FloatArray:
    penalty = np.where(v.interruptible, SPOT_INFERENCE_PENALTY, 1.0)
    latency = 1.0 + np.nan_to_num(v.rtt_ms, nan=0.0) / RTT_WEIGHT_MS
    result: FloatArray = v.price * penalty * latency
    return result


def near(v: ScoreView) -> FloatArray:
    result: FloatArray = v.price * (1.0 + v.rtt_ms / RTT_WEIGHT_MS)
    return result


def data_science(v: ScoreView) -> FloatArray:
    gpus = np.where(v.gpu_count > 0, v.gpu_count, np.nan)
    balance = np.minimum(1.0, v.vcpus / gpus / VCPUS_PER_GPU) * np.minimum(1.0, v.memory / gpus / RAM_PER_GPU_GIB)
    result: FloatArray = v.price_per_gpu / np.where(balance > 0, balance, np.nan)
    return result


def rendering(v: ScoreView) -> FloatArray:
    result: FloatArray = v.price / v.bandwidth_tb_s
    return result


def scientific(v: ScoreView) -> FloatArray:
    result: FloatArray = v.price / v.tflops["fp64"]
    return result


PRESETS = {
    "training": Ranker("training", "price / (BF16 TFLOPS × interconnect efficiency), spot + expected re-run "
                       "(published bucket) or +15 %",
                       "USD per effective BF16 TFLOP-hour", vector=training),
    "inference": Ranker("inference", "price × 1.25 if spot × (1 + RTT/100 ms) when near= is given; within the "
                        "real-time budget (rtt_budget, 50 ms) first", "USD per hour, weighted", vector=inference,
                        query_dependent=True),
    "data-science": Ranker("data-science", "price per GPU-hour / CPU-RAM balance (8 vCPUs, 64 GiB per GPU)",
                           "USD per balanced GPU-hour", vector=data_science),
    "rendering": Ranker("rendering", "price / memory bandwidth", "USD per TB/s-hour", vector=rendering),
    "scientific": Ranker("scientific", "price / FP64 TFLOPS", "USD per FP64 TFLOP-hour", vector=scientific),
}

WORKLOAD_RANKERS = (
    *PRESETS.values(),
    Ranker("carbon", "estimated gCO2e per hour (GPU TDP × PUE 1.1 × grid intensity)", "gCO2e per hour",
           vector=lambda v: v.carbon_g_per_h),
    Ranker("near", "distance-adjusted price: price × (1 + RTT/100 ms) from near= (default sort with near)",
           "USD per hour, distance-adjusted", vector=near, query_dependent=True),
    Ranker("latency", "estimated round trip from near= (needs near)", "ms round trip", vector=lambda v: v.rtt_ms,
           query_dependent=True),
)
