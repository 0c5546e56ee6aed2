"""The catalog's ranking: the columns of the selected rows for a ranker (:class:`~gpuhub.answer.ranking.ScoreView`),
scores, rank tiers (owned first, sold out last) and the stable order (currency groups, then score, then price,
provider, instance type, region, zone).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from gpuhub.answer.catalog_columns import CatalogColumns
from gpuhub.answer.catalog_tables import FloatArray, IntArray, _float
from gpuhub.answer.query import Query
from gpuhub.answer.ranking import Ranker, ScoreView
from gpuhub.facts.carbon import PUE
from gpuhub.facts.perf import PRECISIONS
from gpuhub.purchase import OWNED

__all__ = ["CatalogRanking"]


class CatalogRanking(CatalogColumns):
    """Views of the selected rows, scores and ordering (:meth:`rank`)."""

    def view(self, rows: IntArray, q: Query) -> ScoreView:
        """The columns of ``rows`` for a vectorized ranker (gathered for those rows only, unless the whole column
        was gathered already)."""
        place = q.place()
        rtt = self.rtt_ms(place)[rows] if place is not None else np.full(len(rows), np.nan)
        price = self.price[rows]
        gpu_count = self._at("gpu_count", rows, lambda: self._inst_at(4, rows))
        card = self._inst_at(5, rows)
        vram = self._at("vram", rows, lambda: np.where((gpu_count > 0) & (gpu_count < 1), card * gpu_count, card))
        total = self._at("total_vram", rows, lambda: card * gpu_count)
        per_gpu = self._per_gpu_at(rows, gpu_count)
        width = len(PRECISIONS)
        power = per_gpu[:, width + 1]
        carbon = self._at("carbon_g_per_h", rows, lambda: power * PUE * self._region_at(6, rows))
        with np.errstate(divide="ignore", invalid="ignore"):
            per_gpu_price = np.where(gpu_count > 0, price / gpu_count, np.nan)
            per_vram_price = np.where(total > 0, price / total, np.nan)
        return ScoreView(
            rows=rows, price=price, price_per_gpu=per_gpu_price, price_per_vram=per_vram_price, gpu_count=gpu_count,
            vram_per_gpu=vram, vram_total=total, vcpus=self._at("vcpus", rows, lambda: self._inst_at(6, rows)),
            memory=self._at("memory", rows, lambda: self._inst_at(7, rows)),
            tflops={p: per_gpu[:, i] for i, p in enumerate(PRECISIONS)}, bandwidth_tb_s=per_gpu[:, width],
            carbon_g_per_h=carbon, rtt_ms=rtt, interruptible=self.interruptible[rows],
            fast_interconnect=self._at("fast_interconnect", rows, lambda: self._inst_at(9, rows).astype(np.bool_)),
            query=q, interruption_max_pct=self._at("interruption_max_pct", rows, lambda: self._obtain_values[
                self._global_codes("extra")[rows], 0]), data_path=lambda: self.data_path[rows])

    # --- values of some rows only (a ranker looks at the selected rows) -----------------------------------
    def _per_gpu_at(self, rows: IntArray, gpu_count: FloatArray | None = None) -> FloatArray:
        """:attr:`_per_gpu_table` at ``rows`` (scaled by each row's GPU count), without building the whole table."""
        if "_per_gpu_table" in vars(self):
            picked: FloatArray = self._per_gpu_table[rows]
            return picked
        count = self._at("gpu_count", rows, lambda: self._inst_at(4, rows)) if gpu_count is None else gpu_count
        scaled: FloatArray = self._per_gpu_values[self._global_codes("inst")[rows]] * np.where(
            count > 0, count, np.nan)[:, None]
        return scaled

    def carbon_g_per_h_at(self, rows: IntArray) -> FloatArray:
        """:attr:`carbon_g_per_h` at ``rows`` only (an explanation of the rows shown needs no whole column)."""
        carbon: FloatArray = self._at("carbon_g_per_h", rows, lambda: self._per_gpu_at(rows)[:, len(PRECISIONS) + 1]
                                      * PUE * self._region_at(6, rows))
        return carbon

    def _at(self, name: str, rows: IntArray, compute: Callable[[], Any]) -> Any:
        """Column ``name`` at ``rows``: from the whole column when it was gathered already, else ``compute()``."""
        column = vars(self).get(name)
        return column[rows] if column is not None else compute()

    def _inst_at(self, field: int, rows: IntArray) -> FloatArray:
        picked: FloatArray = self._table_values("inst", field)[self._global_codes("inst")[rows]]
        return picked

    def _region_at(self, field: int, rows: IntArray) -> FloatArray:
        picked: FloatArray = self._table_values("region", field)[self._global_codes("region")[rows]]
        return picked

    def scores(self, rows: IntArray, ranker: Ranker, q: Query) -> FloatArray:
        """The ranker's score for each row (NaN where it cannot score)."""
        if ranker.vector is not None:
            return np.asarray(ranker.vector(self.view(rows, q)), dtype=np.float64)
        key = ranker.key
        assert key is not None
        return np.fromiter((_float(key(self.offers[i])) for i in rows), dtype=np.float64, count=len(rows))

    def rank(self, rows: IntArray, ranker: Ranker, q: Query, limit: int | None = None) -> tuple[IntArray, FloatArray]:
        """Rows sorted by the ranker (lowest first, unknown scores last), with their scores.

        Prices in different currencies are never compared: USD first, then each other currency as a group. Ties
        break on price, provider, instance type, region and zone, so the order is stable across runs.

        A ranker that does not depend on the query sorts the whole catalog once; ranking a large selection is then
        a gather along that order instead of a sort.
        """
        if ranker.query_dependent or ranker.vector is None or len(rows) * 50 < len(self.offers):
            key = self.scores(rows, ranker, q)
            order = self._lexsort(rows, key, self.tiers(rows, q, ranker))
        else:
            full_order, full_key = self._full_order(ranker, q)
            keep = np.zeros(len(self.offers), dtype=np.bool_)
            keep[rows] = True
            ranked_all = full_order[keep[full_order]]
            ranked = ranked_all[:limit] if limit is not None else ranked_all
            return ranked, full_key[ranked]
        if limit is not None:
            order = order[:limit]
        return rows[order], key[order]

    def tiers(self, rows: IntArray, q: Query, ranker: Ranker) -> IntArray:
        """Rank tier of each row (lower first, before any score): -4 for capacity the user owns (purchase model
        ``owned``: it fits the query, so it goes first); +2 when known sold out; +1 for an inference preset with
        ``near`` when the round trip is over the real-time budget (``q.rtt_budget_ms``)."""
        tier: IntArray = np.where(self.available[rows] == 0, 2, 0).astype(np.int32)
        tier -= np.where(self.purchase.mask([OWNED])[rows], 4, 0).astype(np.int32)
        place = q.place()
        if ranker.name == "inference" and place is not None:
            rtt = self.rtt_ms(place)[rows]
            tier += np.where(np.isnan(rtt) | (rtt > q.rtt_budget_ms), 1, 0).astype(np.int32)
        return tier

    def _lexsort(self, rows: IntArray, key: FloatArray, tier: IntArray | None = None) -> npt.NDArray[np.intp]:
        unknown = np.isnan(key)
        usd = self.currency.lookup.get("USD", -2)
        currency = self.currency.codes[rows]
        # np.lexsort sorts by the last key first.
        order: npt.NDArray[np.intp] = np.lexsort((
            self.zone.codes[rows], self.region.codes[rows], self.instance_type.codes[rows],
            self.provider.codes[rows], self.price[rows], np.where(unknown, 0.0, key), unknown,
            *(() if tier is None else (tier,)), currency, currency != usd,
        ))
        return order

    def _full_order(self, ranker: Ranker, q: Query) -> tuple[IntArray, FloatArray]:
        cached = self._orders.get(ranker.name)
        if cached is None or cached[2] is not ranker:
            rows = np.arange(len(self.offers), dtype=np.int32)
            key = self.scores(rows, ranker, q)
            cached = (rows[self._lexsort(rows, key, self.tiers(rows, q, ranker))], key, ranker)
            self._orders[ranker.name] = cached
        return cached[0], cached[1]
