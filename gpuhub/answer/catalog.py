"""A columnar index over offers, built once per set of provider results, for fast filtering and ranking.

Every filter of a :class:`~gpuhub.answer.query.Query` is a numpy mask over these columns, so a search over 100,000
offers costs a few milliseconds; only the offers that survive are touched as Python objects.

The catalog is assembled from parts with one job each: :mod:`~gpuhub.answer.catalog_tables` (the stored tables and
codes), :mod:`~gpuhub.answer.catalog_columns` (one array per attribute), :mod:`~gpuhub.answer.catalog_filters` (the
masks per query argument) and :mod:`~gpuhub.answer.catalog_ranking` (views, scores, order).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from gpuhub.answer.catalog_filters import CatalogFilters
from gpuhub.answer.catalog_ranking import CatalogRanking
from gpuhub.answer.catalog_tables import _FAST_LINKS as _FAST_LINKS
from gpuhub.answer.catalog_tables import _Categorical as _Categorical
from gpuhub.answer.ranking import ScoreView
from gpuhub.facts.carbon import PUE as PUE
from gpuhub.facts.gpus import GpuTable
from gpuhub.facts.perf import PRECISIONS as PRECISIONS

if TYPE_CHECKING:
    from gpuhub.model import Offer

__all__ = ["Catalog", "ScoreView"]


class Catalog(CatalogFilters, CatalogRanking):
    """Offers plus their columns. ``offers[i]`` is described by row ``i`` of every column.

    Numeric columns hold NaN where a figure is unknown; a filter on an unknown figure does not pass (an offer whose
    VRAM is unknown never satisfies a VRAM minimum); ``available_only`` keeps only offers known to be available.

    Ranking puts offers known to be sold out after every other offer at any price (:meth:`tiers`).

    Args:
        offers: the offers to index.
        gpus: the GPU table, for throughput, bandwidth and power columns (None: those columns are unknown).
    """

    def __init__(self, offers: Sequence[Offer], gpus: GpuTable | None = None,
                 kinds: Mapping[str, str] | None = None) -> None:
        self._build([offers], gpus, kinds)

    @classmethod
    def from_parts(cls, parts: Sequence[Sequence[Offer]], gpus: GpuTable | None = None,
                   kinds: Mapping[str, str] | None = None, views: bool = False) -> Catalog:
        """The catalog over several providers' offers, each part either stored columns
        (:class:`~gpuhub.store.columns.OfferColumns`: read as columns, Offer objects built only for rows asked for)
        or any sequence of :class:`Offer` objects.

        Args:
            parts: one sequence of offers per provider.
            gpus: the GPU table (throughput, bandwidth, power, MIG, accelerator columns).
            kinds: provider name -> provider kind.
            views: stored rows are shown as read-only views (:meth:`~gpuhub.store.columns.OfferColumns.view`: no
                pydantic) rather than validated :class:`Offer` objects: for a caller that only reads them, such as
                the command line.
        """
        catalog = cls.__new__(cls)
        catalog._build(parts, gpus, kinds, views)
        return catalog
