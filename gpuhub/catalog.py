"""A columnar index over offers, built once per set of provider results, for fast filtering and sorting.

Every filter of a :class:`~gpuhub.query.Query` is a numpy mask over these columns, so a search over 100,000
offers costs a few milliseconds; only the offers that survive are touched as Python objects.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from gpuhub.model import Offer
from gpuhub.query import Query
from gpuhub.ranking import Ranker

__all__ = ["Catalog"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int32]
BoolArray = npt.NDArray[np.bool_]


class _Categorical:
    """String column stored as integer codes; codes follow sorted order, so sorting codes sorts the strings."""

    def __init__(self, values: list[str | None]) -> None:
        uniques = sorted({v for v in values if v is not None})
        lookup = {v: i for i, v in enumerate(uniques)}
        self.values = uniques
        self.codes: IntArray = np.fromiter((lookup.get(v, -1) if v is not None else -1 for v in values),
                                           dtype=np.int32, count=len(values))
        self._lookup = lookup

    def mask(self, wanted: Sequence[str]) -> BoolArray:
        codes = [self._lookup[w] for w in wanted if w in self._lookup]
        return np.isin(self.codes, np.asarray(codes, dtype=np.int32))


def _floats(column: Sequence[Any]) -> FloatArray:
    return np.asarray(column, dtype=np.float64)


def _float(value: Any) -> float:
    return math.nan if value is None else float(value)


class Catalog:
    """Offers plus their columns. ``offers[i]`` is described by row ``i`` of every column.

    Numeric columns hold NaN where a figure is unknown; filters treat unknown as "does not pass" (an offer whose
    VRAM is unknown never satisfies a VRAM minimum), except ``available_only``, which keeps unknown availability.
    """

    def __init__(self, offers: Sequence[Offer]) -> None:
        self.offers = list(offers)
        rows = [_row(o) for o in self.offers]
        columns = list(zip(*rows, strict=True)) if rows else [()] * 19
        (provider, instance_type, gpu, gpu_count, vram, total_vram, vcpus, memory, price, currency, purchase,
         region, zone, country, continent, fractional, available, per_gpu, per_vram) = columns
        self.provider = _Categorical(list(provider))
        self.instance_type = _Categorical(list(instance_type))
        self.gpu = _Categorical(list(gpu))
        self.currency = _Categorical(list(currency))
        self.purchase = _Categorical(list(purchase))
        self.region = _Categorical(list(region))
        self.zone = _Categorical(list(zone))
        self.country = _Categorical(list(country))
        self.continent = _Categorical(list(continent))
        as_f = _floats
        self.gpu_count, self.vram, self.total_vram = as_f(gpu_count), as_f(vram), as_f(total_vram)
        self.vcpus, self.memory, self.price = as_f(vcpus), as_f(memory), as_f(price)
        self.price_per_gpu, self.price_per_vram = as_f(per_gpu), as_f(per_vram)
        self.fractional: BoolArray = np.asarray(fractional, dtype=np.bool_)
        self.available = np.asarray(available, dtype=np.int8)  # 1 yes, 0 no, -1 unknown

    def __len__(self) -> int:
        return len(self.offers)

    def filters(self, q: Query) -> list[tuple[str, Callable[[], BoolArray]]]:
        """The active filters in order, each named after the search argument that set it."""
        out: list[tuple[str, Callable[[], BoolArray]]] = []
        if q.providers:
            out.append(("provider", lambda: self.provider.mask(q.providers)))
        if q.purchase:
            out.append(("purchase", lambda: self.purchase.mask(q.purchase)))
        if q.currency:
            out.append(("currency", lambda: self.currency.mask([q.currency or ""])))
        if q.gpu:
            out.append(("gpu", lambda: self.gpu.mask(q.gpu)))
        if q.min_gpus is not None:
            out.append(("min_gpus", lambda: self.gpu_count >= (q.min_gpus or 0)))
        if q.max_gpus is not None:
            out.append(("max_gpus", lambda: self.gpu_count <= (q.max_gpus or 0)))
        if q.min_vram_gib is not None:
            out.append(("min_vram", lambda: self.vram >= (q.min_vram_gib or 0)))
        if q.min_total_vram_gib is not None:
            out.append(("min_total_vram", lambda: self.total_vram >= (q.min_total_vram_gib or 0)))
        if q.min_vcpus is not None:
            out.append(("min_vcpus", lambda: self.vcpus >= (q.min_vcpus or 0)))
        if q.min_memory_gib is not None:
            out.append(("min_memory", lambda: self.memory >= (q.min_memory_gib or 0)))
        if q.regions:
            wanted = [r.lower() for r in q.regions]
            out.append(("region", lambda: self.region.mask(wanted) | self.zone.mask(wanted)))
        if q.countries:
            out.append(("country", lambda: self.country.mask(q.countries)))
        if q.continents:
            out.append(("continent", lambda: self.continent.mask(q.continents)))
        if q.exclude_fractional:
            out.append(("exclude_fractional", lambda: ~self.fractional))
        if q.available_only:
            out.append(("available_only", lambda: self.available != 0))
        if q.max_price_per_hour is not None:
            # Compared as floats: a published price is at most 17 significant digits, so equality survives.
            limit = float(q.max_price_per_hour)
            out.append(("max_price", lambda: self.price <= limit))
        return out

    def select(self, q: Query) -> tuple[IntArray, dict[str, int]]:
        """Row numbers passing every filter, and how many rows each filter removed (in filter order)."""
        keep = np.ones(len(self.offers), dtype=np.bool_)
        removed: dict[str, int] = {}
        before = len(self.offers)
        for name, make_mask in self.filters(q):
            keep &= make_mask()
            after = int(np.count_nonzero(keep))
            removed[name] = before - after
            before = after
        return np.flatnonzero(keep).astype(np.int32), removed

    def rank(self, rows: IntArray, ranker: Ranker, limit: int | None = None) -> list[int]:
        """Sort ``rows`` by the ranker (lowest first, unknown keys last); see :func:`gpuhub.query.sort_offers`.

        Prices in different currencies are never compared: USD first, then each other currency as a group. Ties
        break on price, provider, instance type, region and zone.
        """
        if ranker.column is not None:
            key = getattr(self, ranker.column)[rows]
        else:
            key = np.fromiter((_float(ranker.key(self.offers[i])) for i in rows), dtype=np.float64, count=len(rows))
        unknown = np.isnan(key)
        usd = self.currency._lookup.get("USD", -2)
        currency = self.currency.codes[rows]
        # np.lexsort sorts by the last key first.
        order = np.lexsort((
            self.zone.codes[rows], self.region.codes[rows], self.instance_type.codes[rows],
            self.provider.codes[rows], self.price[rows], np.where(unknown, 0.0, key), unknown,
            currency, currency != usd,
        ))
        ranked = rows[order]
        return [int(i) for i in (ranked[:limit] if limit is not None else ranked)]


def _row(o: Offer) -> tuple[Any, ...]:
    inst, price, region = o.instance, o.price, o.region
    per_gpu = o.price_per_gpu_hour
    per_vram = o.price_per_vram_gib_hour
    return (
        inst.provider, inst.instance_type, inst.gpu.name if inst.gpu else None, inst.gpu_count,
        _float(inst.gpu_memory_gib), _float(inst.gpu_memory_total_gib), _float(inst.vcpus),
        _float(inst.memory_gib), float(price.amount), price.currency, price.purchase, region.code.lower(),
        region.zone.lower() if region.zone else None, region.country, region.continent, inst.fractional,
        -1 if o.available is None else int(o.available), _float(per_gpu), _float(per_vram),
    )
