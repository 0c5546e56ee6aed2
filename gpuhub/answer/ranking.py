"""Ranking strategies: named scores over offers (lower ranks first; NaN/None means "cannot rank": last, never first).

A ranker gives either ``key(offer)`` (simple, one offer at a time: what most plugins need) or ``vector(view)``
(numpy over the catalog's columns: fast over 100,000 offers). The built-in rankers (price, per GPU-hour, per VRAM
GiB-hour, the workload presets in :mod:`gpuhub.answer.workloads`, carbon, latency) are registered through the
``register_rankers`` hook like any plugin's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from gpuhub.answer.query import Query
    from gpuhub.model import Offer

    FloatArray = npt.NDArray[np.float64]
    IntArray = npt.NDArray[np.int32]
    BoolArray = npt.NDArray[np.bool_]

__all__ = ["BUILTIN_RANKERS", "Ranker", "ScoreView"]


@dataclass
class ScoreView:
    """The columns of the rows being ranked (all arrays aligned with ``rows``), for vectorized rankers.

    Money is in the offer's currency per hour; TFLOPS and TB/s are whole-instance figures; ``rtt_ms`` and
    ``carbon_g_per_h`` are NaN where unknown (no ``near`` given, no grid data).
    """

    rows: IntArray
    price: FloatArray
    price_per_gpu: FloatArray
    price_per_vram: FloatArray
    gpu_count: FloatArray
    vram_per_gpu: FloatArray
    vram_total: FloatArray
    vcpus: FloatArray
    memory: FloatArray
    tflops: dict[str, FloatArray]
    bandwidth_tb_s: FloatArray
    carbon_g_per_h: FloatArray
    rtt_ms: FloatArray
    interruptible: BoolArray
    fast_interconnect: BoolArray
    query: Query
    interruption_max_pct: FloatArray | None = None
    """Interruption bucket upper bound, percent per month (NaN: unknown; gpuhub.obtain)."""
    data_path: Callable[[], FloatArray] | None = None
    """The instances' data-path figures, one row per ranked row, columns
    :data:`gpuhub.answer.network.DATA_PATH_FIELDS` (NaN: unknown); gathered when a ranker first asks
    (:meth:`fact`)."""

    def fact(self, name: str) -> FloatArray:
        """One data-path column of the ranked rows (``network_gbps``, ``fabric_gbps``, ``storage_gib``); all NaN
        when the view carries none."""
        import numpy as np

        from gpuhub.answer.network import DATA_PATH_FIELDS

        if self.data_path is None:
            return np.full(len(self.rows), np.nan)
        column: FloatArray = self.data_path()[:, DATA_PATH_FIELDS.index(name)]
        return column


@dataclass(frozen=True)
class Ranker:
    """A named ranking.

    Attributes:
        name: what users pass as ``sort=`` (or ``workload=`` for presets).
        description: the formula and the reasoning behind it (shown by ``gpuhub rankers``).
        unit: the score's unit, e.g. ``"USD per BF16 TFLOP-hour"``; used in explanations.
        key: score of one offer (lower is better; None when it cannot be scored).
        vector: scores of many offers at once from a :class:`ScoreView` (NaN when unknown).
        query_dependent: the vector reads ``view.query`` or ``view.rtt_ms``.
    """

    name: str
    description: str
    unit: str = ""
    key: Callable[[Offer], float | Decimal | None] | None = None
    vector: Callable[[ScoreView], npt.NDArray[np.float64]] | None = None
    query_dependent: bool = False
    """True when ``vector`` reads the query (``near``): the catalog then cannot reuse one precomputed order."""

    def __post_init__(self) -> None:
        if self.key is None and self.vector is None:
            raise ValueError(f"ranker {self.name!r} needs key or vector")


BUILTIN_RANKERS = (
    Ranker("price", "price per instance-hour", "per hour", vector=lambda v: v.price),
    Ranker("price_per_gpu", "price per GPU-hour (instance price / GPUs, fractions included)", "per GPU-hour",
           vector=lambda v: v.price_per_gpu),
    Ranker("price_per_vram", "price per GiB of usable VRAM per hour", "per VRAM GiB-hour",
           vector=lambda v: v.price_per_vram),
)
