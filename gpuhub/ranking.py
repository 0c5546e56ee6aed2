"""Ranking strategies: named sort keys over offers (lower key ranks first; None ranks last).

The built-in rankers are registered through the ``register_rankers`` hook like any plugin's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from gpuhub.model import Offer

__all__ = ["BUILTIN_RANKERS", "Ranker"]


@dataclass(frozen=True)
class Ranker:
    """A named ranking: ``key(offer)`` gives a number where lower is better, or None when it cannot be ranked
    (such offers go last, never first: an unknown price is never "cheapest")."""

    name: str
    key: Callable[[Offer], float | Decimal | None]
    description: str
    column: str | None = None
    """For built-in rankers: the :class:`~gpuhub.catalog.Catalog` column that holds the same key, precomputed."""


BUILTIN_RANKERS = (
    Ranker("price", lambda o: o.price.amount, "price per instance-hour", column="price"),
    Ranker("price_per_gpu", lambda o: o.price_per_gpu_hour, "price per GPU-hour", column="price_per_gpu"),
    Ranker("price_per_vram", lambda o: o.price_per_vram_gib_hour, "price per GiB of VRAM per hour",
           column="price_per_vram"),
)
