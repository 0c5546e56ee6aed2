"""Workload presets: rankers that answer what a job needs, not just what is cheapest per hour.

Each is a documented formula over the catalog's columns (lower score ranks first; NaN: cannot be scored, ranked
last). Throughput figures are dense TFLOPS from the GPU table (vendor datasheets); prices per instance-hour.

- ``training``: price per hour / (BF16 TFLOPS of the instance × efficiency), i.e. USD per effective BF16
  TFLOP-hour. Mixed-precision throughput is what training buys. Efficiency is 0.8 for a multi-GPU instance
  without NVLink/NVSwitch/SXM (gradient all-reduce over PCIe is the bottleneck) and 1.0 otherwise; spot and low
  priority cost the expected re-run of lost work where their interruption bucket is published
  (:func:`gpuhub.answer.cost.penalty_fraction`: bucket upper bound per month / 730 h × (``checkpoint_every`` / 2 +
  restart)), else 15 % more effective time (work since the last checkpoint is lost when reclaimed). FP16 is used
  where a GPU has no BF16 figure. Pair with ``model=`` to require enough total VRAM. The effective throughput is
  also multiplied by the data-path factor (below): network per GPU, local disk per GPU and, for a multi-node job,
  the fabric.
- ``inference``: price per hour × 1.25 for spot/low priority (serving needs stable capacity: on-demand wins
  unless spot is 20 % cheaper) × (1 + RTT/100 ms) when ``near=`` is given (10 ms of extra round trip weighs like
  10 % of price). With ``near=``, offers within the real-time budget (``rtt_budget``, default 50 ms round trip)
  rank ahead of every offer beyond it, at any price (a chat or voice frontend cannot hide 140 ms per turn). Pair
  with ``model=`` (fit) and ``max_rtt=`` (a hard latency limit).
- ``near`` (the default sort when ``near=`` is given without ``sort``/``workload``): distance-adjusted price,
  price per hour × (1 + RTT/100 ms). An offer 10 ms away pays a 10 % premium, one 140 ms away (Frankfurt to
  Tokyo) 140 %: a far region wins only when it is less than half the price of a near one (1.1 / 2.4 ≈ 46 %).
- ``data-science``: price per GPU-hour / (balance × data-path factor), balance = min(1, vCPUs per GPU / 8) ×
  min(1, RAM per GPU / 64 GiB): data preparation and notebooks stall GPUs that lack CPU and memory beside them; the
  data-path factor's network and local-disk terms (no fabric term: one machine) apply as for training.
- ``rendering``: price per hour / memory bandwidth (TB/s), USD per TB/s-hour: rasterization, path tracing and
  large scenes are bound by memory bandwidth.
- ``scientific``: price per hour / FP64 TFLOPS (vector), USD per FP64 TFLOP-hour: simulations need double
  precision; consumer-class GPUs (1/64 rate) rank last by themselves.

The data path (``training`` and ``data-science``): a GPU waits when data cannot reach it. Each term is
``1 - weight × shortfall``, shortfall = max(0, 1 - have / need) (0 when the need is met, 1 when nothing is there),
and the factor, their product, multiplies the effective throughput (``training``) or the balance (``data-science``);
a weight is the most of it one term can take away. The needs and weights are judgements, stated so they can be
checked and changed, not measurements:

- network: need ``NETWORK_GBPS_PER_GPU`` = 10 Gbps of baseline network per GPU (writing a 7B model's 112 GB
  training state, 16 bytes per parameter, takes 90 s at 10 Gbps; streaming a data set from object storage is bound
  by it too), weight ``NETWORK_WEIGHT`` = 0.2. g5.xlarge (2.5 Gbps baseline, 1 GPU): 1 - 0.2 × 0.75 = 0.85.
- local disk: need ``LOCAL_DISK_GIB_PER_GPU`` = 500 GiB of instance storage per GPU (a data set cache and
  checkpoints beside the GPU), weight ``LOCAL_DISK_WEIGHT`` = 0.1.
- fabric (``training`` only, when the job spans nodes, ``nodes`` > 1): the RDMA fabric's bandwidth per GPU against
  ``FABRIC_GBPS_PER_GPU`` = 400 Gbps (one 400 Gb/s adapter per GPU, as in NVIDIA's DGX H100; p5.48xlarge's 3,200
  Gbps EFA for 8 GPUs meets it), weight ``FABRIC_GBPS_WEIGHT`` = 0.25 (p4d.24xlarge, 400 Gbps for 8 GPUs:
  1 - 0.25 × 0.875 = 0.78). A type without a fabric never reaches this term: ``nodes`` keeps only types with one
  (the rest are counted, and ``--explain`` says the best of them would starve its GPUs); a model no single instance
  holds is filtered by ``model`` and explained with the nodes it needs and the fabric between them.

An unknown figure (the provider does not publish it) is neither rewarded nor punished: its term is 1, the same as a
need met, so an offer is never ranked down for what its provider does not say. ``--explain`` prints every term under
1 with its figure and need (an unknown figure adds none), and the starvation notes of
:func:`gpuhub.answer.network.cpu_starvation_note` and :func:`~gpuhub.answer.network.starvation_note`.

Two more rankers: ``carbon`` (estimated gCO2e per hour, see :mod:`gpuhub.facts.carbon`) and ``latency`` (estimated
round trip from ``near=``, see :mod:`gpuhub.facts.location`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gpuhub.answer.ranking import Ranker, ScoreView

__all__ = ["DATA_PATH_NEEDS", "DATA_PATH_PRESETS", "PRESETS", "WORKLOAD_RANKERS", "data_path_factor", "data_path_terms"]

FloatArray = npt.NDArray[np.float64]
SPOT_TRAINING_PENALTY = 1.15
SPOT_INFERENCE_PENALTY = 1.25
PCIE_SCALING = 0.8
RTT_WEIGHT_MS = 100.0
"""Round trip that weighs like doubling the price (``near`` and ``inference``), ms."""
VCPUS_PER_GPU = 8.0
RAM_PER_GPU_GIB = 64.0
NETWORK_GBPS_PER_GPU = 10.0
"""Baseline network bandwidth per GPU that meets a training or data-science job's need, Gbps."""
NETWORK_WEIGHT = 0.2
"""The most of the effective throughput a network shortfall takes away (no network at all: × 0.8)."""
LOCAL_DISK_GIB_PER_GPU = 500.0
"""Local (instance) storage per GPU that meets the need, GiB."""
LOCAL_DISK_WEIGHT = 0.1
"""The most of the effective throughput a local-disk shortfall takes away."""
FABRIC_GBPS_PER_GPU = 400.0
"""Fabric bandwidth per GPU that meets a multi-node training job's need, Gbps (one 400 Gb/s adapter per GPU)."""
FABRIC_GBPS_WEIGHT = 0.25
"""The most of the effective throughput a fabric's bandwidth shortfall takes away."""


def _mixed_precision(v: ScoreView) -> FloatArray:
    bf16, fp16 = v.tflops["bf16"], v.tflops["fp16"]
    result: FloatArray = np.where(np.isnan(bf16), fp16, bf16)
    return result


def _term(have: FloatArray, need: float, weight: float) -> FloatArray:
    """1 - weight × shortfall (shortfall = max(0, 1 - have / need), at most 1); 1 where ``have`` is unknown."""
    shortfall = np.clip(1.0 - have / need, 0.0, 1.0)
    result: FloatArray = np.where(np.isnan(have), 1.0, 1.0 - weight * shortfall)
    return result


def data_path_terms(v: ScoreView, *, fabric: bool) -> dict[str, FloatArray]:
    """The data-path terms of each row (module docstring): ``network`` and ``local disk`` per GPU, and with
    ``fabric`` and ``nodes`` > 1 the ``fabric`` between nodes; 1 where a figure is unknown."""
    gpus = np.where(v.gpu_count > 0, v.gpu_count, np.nan)
    terms = {"network": _term(v.fact("network_gbps") / gpus, NETWORK_GBPS_PER_GPU, NETWORK_WEIGHT),
             "local disk": _term(v.fact("storage_gib") / gpus, LOCAL_DISK_GIB_PER_GPU, LOCAL_DISK_WEIGHT)}
    if fabric and v.query.nodes > 1:
        terms["fabric"] = _term(v.fact("fabric_gbps") / gpus, FABRIC_GBPS_PER_GPU, FABRIC_GBPS_WEIGHT)
    return terms


def data_path_factor(v: ScoreView, *, fabric: bool) -> FloatArray:
    """The data-path factor of each row: the product of :func:`data_path_terms`."""
    factor: FloatArray = np.prod(np.vstack(list(data_path_terms(v, fabric=fabric).values())), axis=0)
    return factor


def training(v: ScoreView) -> FloatArray:
    """Training score per offer: price / (mixed-precision TFLOPS × interconnect efficiency × data-path factor),
    spot raised by its expected re-run (or a flat penalty without a published interruption bucket); lower is
    better."""
    efficiency = np.where((v.gpu_count > 1) & ~v.fast_interconnect, PCIE_SCALING, 1.0)
    penalty = np.where(v.interruptible, SPOT_TRAINING_PENALTY, 1.0)
    if v.interruption_max_pct is not None:  # a published interruption bucket: the expected re-run instead
        from gpuhub.answer.cost import penalty_fraction

        expected = 1.0 + penalty_fraction(np.nan_to_num(v.interruption_max_pct, nan=0.0),  # type: ignore[arg-type]
                                          v.query.checkpoint_every_h)
        penalty = np.where(v.interruptible & ~np.isnan(v.interruption_max_pct), expected, penalty)
    data_path = data_path_factor(v, fabric=DATA_PATH_PRESETS["training"])
    result: FloatArray = v.price * penalty / (_mixed_precision(v) * efficiency * data_path)
    return result


def inference(v: ScoreView) -> FloatArray:
    """Inference score per offer: price, spot raised by a penalty, times the round-trip factor from ``near``
    (1 + rtt_ms / RTT_WEIGHT_MS); lower is better."""
    penalty = np.where(v.interruptible, SPOT_INFERENCE_PENALTY, 1.0)
    latency = 1.0 + np.nan_to_num(v.rtt_ms, nan=0.0) / RTT_WEIGHT_MS
    result: FloatArray = v.price * penalty * latency
    return result


def near(v: ScoreView) -> FloatArray:
    """Latency score per offer: price × (1 + estimated round trip from ``near``, ms / RTT_WEIGHT_MS); lower is
    better."""
    result: FloatArray = v.price * (1.0 + v.rtt_ms / RTT_WEIGHT_MS)
    return result


def data_science(v: ScoreView) -> FloatArray:
    """Data-science score per offer: price per GPU-hour over how well vCPUs and RAM per GPU meet
    VCPUS_PER_GPU and RAM_PER_GPU_GIB, times the data-path factor (network, local disk); lower is better."""
    gpus = np.where(v.gpu_count > 0, v.gpu_count, np.nan)
    balance = (np.minimum(1.0, v.vcpus / gpus / VCPUS_PER_GPU) * np.minimum(1.0, v.memory / gpus / RAM_PER_GPU_GIB)
               * data_path_factor(v, fabric=DATA_PATH_PRESETS["data-science"]))
    result: FloatArray = v.price_per_gpu / np.where(balance > 0, balance, np.nan)
    return result


def rendering(v: ScoreView) -> FloatArray:
    """Rendering score per offer: price per hour / GPU memory bandwidth of the instance (TB/s); lower is better."""
    result: FloatArray = v.price / v.bandwidth_tb_s
    return result


def scientific(v: ScoreView) -> FloatArray:
    """Scientific score per offer: price per hour / FP64 TFLOPS of the instance; lower is better."""
    result: FloatArray = v.price / v.tflops["fp64"]
    return result


DATA_PATH_NEEDS = {"network": ("network_gbps", NETWORK_GBPS_PER_GPU, "Gbps"),
                   "local disk": ("storage_gib", LOCAL_DISK_GIB_PER_GPU, "GiB"),
                   "fabric": ("fabric_gbps", FABRIC_GBPS_PER_GPU, "Gbps")}
"""Each data-path term: the :class:`~gpuhub.model.Instance` field it reads, the need per GPU and its unit."""
DATA_PATH_PRESETS = {"training": True, "data-science": False}
"""The presets that weigh the data path, and whether they weigh the fabric between nodes."""

PRESETS = {
    "training": Ranker("training", "price / (BF16 TFLOPS × interconnect efficiency × data path: network "
                       "10 Gbps/GPU, local disk 500 GiB/GPU, fabric across nodes), spot + expected re-run "
                       "(published bucket) or +15 %",
                       "USD per effective BF16 TFLOP-hour", vector=training, query_dependent=True),
    "inference": Ranker("inference", "price × 1.25 if spot × (1 + RTT/100 ms) when near= is given; within the "
                        "real-time budget (rtt_budget, 50 ms) first", "USD per hour, weighted", vector=inference,
                        query_dependent=True),
    "data-science": Ranker("data-science", "price per GPU-hour / (CPU-RAM balance (8 vCPUs, 64 GiB per GPU) × "
                           "data path: network 10 Gbps/GPU, local disk 500 GiB/GPU)",
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
