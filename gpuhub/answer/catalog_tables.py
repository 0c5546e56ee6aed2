"""The catalog's tables: each provider's stored columns (:class:`~gpuhub.store.columns.OfferColumns`) read once per
distinct instance, region and price-terms row, and the codes that map every offer row to them. The columns
(:mod:`~gpuhub.answer.catalog_columns`) gather from these tables.
"""

from __future__ import annotations

import bisect
import datetime as dt
import itertools
import math
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gpuhub.answer.ranking import Ranker
from gpuhub.facts.gpus import GpuTable
from gpuhub.facts.perf import PRECISIONS, gpu_figures
from gpuhub.store.columns import OfferSequence

if TYPE_CHECKING:
    from gpuhub.model import Offer
    from gpuhub.store.columns import OfferColumns

__all__ = ["CatalogTables"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int32]
BoolArray = npt.NDArray[np.bool_]
_FAST_LINKS = ("nvlink", "nvswitch", "infiniband", "sxm", "efa")


class _Categorical:
    """String column stored as integer codes; codes follow sorted order, so sorting codes sorts the strings."""

    def __init__(self, values: Sequence[str | None]) -> None:
        uniques = sorted({v for v in values if v is not None})
        lookup = {v: i for i, v in enumerate(uniques)}
        self.values = uniques
        self.codes: IntArray = np.fromiter((lookup.get(v, -1) if v is not None else -1 for v in values),
                                           dtype=np.int32, count=len(values))
        self.lookup = lookup

    @classmethod
    def from_codes(cls, parts: Sequence[tuple[Sequence[str | None], IntArray]]) -> _Categorical:
        """One column from parts that each have their own values and codes into them (codes re-mapped to the
        sorted values of all parts)."""
        column = cls.__new__(cls)
        column.values = sorted({v for values, _ in parts for v in values if v is not None})
        column.lookup = {v: i for i, v in enumerate(column.values)}
        remapped = [np.asarray([column.lookup[v] if v is not None else -1 for v in values] + [-1],
                               dtype=np.int32)[codes] for values, codes in parts]
        column.codes = np.concatenate(remapped).astype(np.int32) if remapped else np.zeros(0, dtype=np.int32)
        return column

    def mask(self, wanted: Sequence[str]) -> BoolArray:
        # A boolean table indexed by code (the last slot stands for "missing", code -1) beats np.isin.
        table = np.zeros(len(self.values) + 1, dtype=np.bool_)
        for w in wanted:
            if w in self.lookup:
                table[self.lookup[w]] = True
        result: BoolArray = table[self.codes]
        return result


def _floats(column: Sequence[Any]) -> FloatArray:
    return np.asarray(column, dtype=np.float64)


def _float(value: Any) -> float:
    return math.nan if value is None else float(value)



class CatalogTables:
    """The tables and codes every column of a :class:`~gpuhub.answer.catalog.Catalog` is gathered from (built by
    :meth:`_build`; the catalog's constructors call it)."""

    def _build(self, parts: Sequence[Sequence[Offer]], gpus: GpuTable | None,
               kinds: Mapping[str, str] | None, views: bool = False) -> None:
        from gpuhub.store.columns import ColumnBuilder, OfferColumns

        stored = [p if isinstance(p, OfferColumns) else ColumnBuilder().extend(p).build() for p in parts]
        self._stored = stored
        self.offers: Sequence[Offer] = _Offers(stored, [None if isinstance(p, OfferColumns) else p for p in parts],
                                               views)
        self._kinds = kinds or {}
        self._gpus = gpus
        # Each distinct instance, region and price-terms row is looked at once; rows gather through the codes.
        # Only price and availability (every ranking reads them) are gathered here; every other column is
        # gathered on first use (a query reads a few of them), then kept.
        # The parts are read from the stored rows (dumps of validated models): no model is built for them.
        self._inst_rows = [[_instance_part(row) for row in c.tables["instances"]] for c in stored]
        self._region_rows = [[_region_part(row) for row in c.tables["regions"]] for c in stored]
        self._term_rows = [[(t.get("currency"), t.get("purchase")) for t in c.tables["terms"]] for c in stored]
        self._inst_codes = [c.columns["instance"] for c in stored]
        self._region_codes = [c.columns["region"] for c in stored]
        self._term_codes = [c.columns["terms"] for c in stored]
        self.price = np.concatenate([c.columns["price"] for c in stored]) if stored else np.zeros(0)
        self.available = (np.concatenate([c.columns["available"] for c in stored]) if stored
                          else np.zeros(0, dtype=np.int8))  # 1 yes, 0 no, -1 unknown
        self._orders: dict[str, tuple[IntArray, FloatArray, Ranker]] = {}

    # --- columns, gathered on first use -------------------------------------------------------------------
    def _cat(self, rows: list[list[tuple[Any, ...]]], codes: list[IntArray], field: int) -> _Categorical:
        return _Categorical.from_codes([([r[field] for r in part], c) for part, c in zip(rows, codes, strict=True)])

    def _num(self, rows: list[list[tuple[Any, ...]]], codes: list[IntArray], field: int) -> FloatArray:
        return _gather([np.asarray([r[field] for r in part], dtype=np.float64) for part in rows], codes)

    def __len__(self) -> int:
        return len(self.offers)

    def _global_codes(self, kind: str) -> IntArray:
        """Each row's code into the parts' tables laid end to end (``inst``, ``region``; ``extra``: -1 mapped to
        one "none" row after each part's table)."""
        cached: dict[str, IntArray] = vars(self).setdefault("_global", {})
        if kind not in cached:
            stored = self._stored
            if kind == "inst":
                sizes, codes = [len(c.tables["instances"]) for c in stored], self._inst_codes
            elif kind == "region":
                sizes, codes = [len(c.tables["regions"]) for c in stored], self._region_codes
            else:
                sizes = [len(c.tables["extras"]) + 1 for c in stored]
                codes = [np.where(c.columns["extra"] < 0, len(c.tables["extras"]), c.columns["extra"])
                         for c in stored]
            offsets: list[int] = np.cumsum([0, *sizes[:-1]]).tolist() if sizes else []
            cached[kind] = (np.concatenate([c.astype(np.int64) + int(o) for c, o in zip(codes, offsets, strict=True)])
                            if stored else np.zeros(0, dtype=np.int64)).astype(np.int32)
        return cached[kind]

    @cached_property
    def _region_spellings(self) -> list[str]:
        """Every region-table row's code as its provider spells it (the parts' tables end to end; the region column
        is lower-cased for matching)."""
        return [str(r["code"]) for c in self._stored for r in c.tables["regions"]]

    def _table_values(self, kind: str, field: int) -> FloatArray:
        """Field ``field`` of every instance (``inst``) or region table row, the parts' tables end to end."""
        cached: dict[tuple[str, int], FloatArray] = vars(self).setdefault("_table_value", {})
        values = cached.get((kind, field))
        if values is None:
            rows = self._inst_rows if kind == "inst" else self._region_rows
            values = cached[(kind, field)] = np.asarray([r[field] for part in rows for r in part], dtype=np.float64)
        return values

    @cached_property
    def _per_gpu_values(self) -> FloatArray:
        """Per-GPU TFLOPS per precision, bandwidth and power of every instance-table row (parts end to end)."""
        # The figures depend only on the GPU (name, form factor, known) and whether there is one: looked up once
        # per distinct GPU (thousands of rows share a few dozen; each lookup scans the GPU table), from the stored
        # rows themselves (no Instance model is built).
        seen: dict[tuple[Any, ...], tuple[float, ...]] = {}
        out: list[tuple[float, ...]] = []
        for c in self._stored:
            for row in c.tables["instances"]:
                gpu = row.get("gpu")
                key = (None if gpu is None else (gpu.get("name"), gpu.get("form_factor"), gpu.get("known", True)),
                       float(row.get("gpu_count") or 0) > 0)
                figures = seen.get(key)
                if figures is None:
                    figures = seen[key] = _per_gpu_figures(key[0], key[1], self._gpus)
                out.append(figures)
        values: FloatArray = np.asarray(out, dtype=np.float64).reshape(-1, len(PRECISIONS) + 2)
        return values

    @cached_property
    def _obtain_values(self) -> FloatArray:
        values: FloatArray = np.asarray([_obtain_part(e.get("obtain") if e is not None else None) for c in self._stored
                                         for e in [*c.tables["extras"], None]], dtype=np.float64).reshape(-1, 3)
        return values


def _per_gpu_figures(gpu: tuple[Any, Any, Any] | None, some: bool, gpus: GpuTable | None) -> tuple[float, ...]:
    """:func:`_per_gpu` of a GPU given as (name, form factor, known), ``some``: the instance has GPUs."""
    if gpus is None or gpu is None or not gpu[2] or not some:
        return (math.nan,) * (len(PRECISIONS) + 2)
    return tuple(v if v else math.nan for v in gpu_figures(gpus, gpu[0], gpu[1]))


def _instance_part(row: Mapping[str, Any]) -> tuple[Any, ...]:
    """The catalog's figures of one stored instance row (an :class:`Instance` dump): provider, instance type, GPU
    name, form factor, count, VRAM per GPU, vCPUs, RAM, fractional, fast link, seller."""
    gpu = row.get("gpu")
    count = float(row.get("gpu_count") or 0)
    form = gpu.get("form_factor") if gpu else None
    link = (row.get("interconnect") or "").lower()
    fast = count <= 1 or any(word in link for word in _FAST_LINKS) or form in ("SXM", "Superchip", "OAM")
    return (row["provider"], row["instance_type"], gpu["name"] if gpu else None, form, count,
            _float(gpu.get("memory_gib") if gpu else None), _float(row.get("vcpus")), _float(row.get("memory_gib")),
            float(bool(row.get("fractional"))), float(fast), row.get("seller") or row["provider"])


def _region_part(row: Mapping[str, Any]) -> tuple[Any, ...]:
    """The catalog's figures of one stored region row (a :class:`Region` dump)."""
    zone = row.get("zone")
    return (str(row["code"]).lower(), zone.lower() if zone else None, row.get("country"), row.get("continent"),
            _float(row.get("latitude")), _float(row.get("longitude")), _float(row.get("carbon_gco2e_per_kwh")))


def _gather(tables: list[npt.NDArray[np.float64]], codes: list[IntArray], width: int = 0) -> FloatArray:
    """Rows of each part's per-code table picked by that part's codes, parts one after another."""
    picked = [table[c] if len(c) else np.zeros((0, width) if width else 0) for table, c in zip(tables, codes,
                                                                                              strict=True)]
    if not picked:
        return np.zeros((0, width) if width else 0)
    out: FloatArray = np.concatenate(picked)
    return out


class _Offers(OfferSequence):
    """The catalog's offers, row by row: the original objects when the catalog was given Offer objects, else
    built from the stored columns on first access (and kept)."""

    def __init__(self, parts: list[OfferColumns], originals: list[Sequence[Offer] | None],
                 views: bool = False) -> None:
        self._parts = parts
        self._originals = originals
        self._views = views
        self._starts = list(itertools.accumulate((len(p) for p in parts), initial=0))
        self._built: dict[int, Offer] = {}

    def __len__(self) -> int:
        return self._starts[-1]

    def offer(self, row: int) -> Offer:
        offer = self._built.get(row)
        if offer is None:
            part = bisect.bisect_right(self._starts, row) - 1
            at = row - self._starts[part]
            original = self._originals[part]
            stored = self._parts[part]
            offer = original[at] if original is not None else stored.view(at) if self._views else stored.offer(at)
            self._built[row] = offer
        return offer


_NO_OBTAIN = (math.nan, math.nan, -1)


def _start_part(data: Any) -> float:
    """The reservation start (POSIX seconds) of one stored ``obtain`` value, NaN when it has none."""
    start = ((data or {}).get("reservation") or {}).get("start") if isinstance(data, dict) else None
    if not start:
        return math.nan
    try:
        when = dt.datetime.fromisoformat(str(start).replace("Z", "+00:00"))
    except ValueError:
        return math.nan
    return (when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)).timestamp()


def _obtain_part(data: Any) -> tuple[float, float, int]:
    """Interruption upper bound (percent), placement score and launchability (-1 unknown, 0 no, 1 yes) of one
    stored ``obtain`` value (see :mod:`gpuhub.obtain`)."""
    if not isinstance(data, dict):
        return _NO_OBTAIN
    # a stored dump of a validated Obtainability (gpuhub.obtain.model): read, not validated again
    risk = data.get("risk")
    quota, capacity = data.get("quota_instances"), data.get("capacity")
    try:
        ok = -1 if quota is None and capacity is None else int((quota is None or quota > 0) and capacity is not False)
        return (_float(risk.get("max_pct") if isinstance(risk, dict) else None), _float(data.get("placement_score")),
                ok)
    except (TypeError, ValueError):  # not what a dump of Obtainability holds: nothing known
        return _NO_OBTAIN
