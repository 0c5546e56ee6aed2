"""A prototype of the changes proposed for gpuhub/answer/catalog.py, measured against the real ``Catalog`` on the same
offers.

Not used by gpuhub: it shows, with numbers, what three changes to ``gpuhub.answer.catalog.Catalog`` (core a73d30c API:
``Catalog(offers, gpus)``, ``rank(rows, ranker, q, limit) -> (rows, scores)``) would buy, and checks that they give
the same rows, in the same order, with the same scores.

1. Build: read each shared ``Instance`` / ``Region`` object once (offers share them: a provider builds one Instance
   per instance type and ``make_region`` is cached), so the per-offer work is four attribute reads instead of
   ``_row()``'s 24 fields, two pydantic computed properties and two ``Decimal`` divisions; the per-GPU and per-GiB
   prices become one numpy division each (they only order offers; ``Offer`` still computes the exact ``Decimal``
   figures of the offers shown).
2. Rank: for rankers whose score depends on the catalog only (price, price_per_gpu, price_per_vram), sort every
   row once per catalog (lazily, the first time) with the same ``np.lexsort`` keys; ranking a selection is then
   ``order[keep[order]]``, a linear gather without any sort, and ``limit`` is a slice.
3. Select: a categorical filter is a lookup table indexed by the codes (``table[codes]``) instead of ``np.isin``.

    python bench/proto_catalog.py --data /tmp/gpuhub-bench-data/100k --core /tmp/gpuhub-core-a73d30c
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
STATIC_RANKERS = ("price", "price_per_gpu", "price_per_vram")


def define(catalog_module: Any) -> type:
    """The prototype class, built on the imported core's ``Catalog`` (imported late: see bench/core.py)."""
    Catalog = catalog_module.Catalog
    Categorical = catalog_module._Categorical
    per_gpu_figures = catalog_module._per_gpu
    fast_links = catalog_module._FAST_LINKS
    PRECISIONS = catalog_module.PRECISIONS
    PUE = catalog_module.PUE

    class TableCategorical(Categorical):  # type: ignore[misc, valid-type]
        def mask(self, wanted: Sequence[str]) -> Any:
            table = np.zeros(len(self.values) + 1, dtype=np.bool_)  # last slot: code -1 (missing), never wanted
            for w in wanted:
                code = self.lookup.get(w)
                if code is not None:
                    table[code] = True
            return table[self.codes]

    def categorical(per_object: list[str | None], index: Any) -> Any:
        cat = TableCategorical.__new__(TableCategorical)
        uniques = sorted({v for v in per_object if v is not None})
        lookup = {v: i for i, v in enumerate(uniques)}
        codes = np.array([lookup[v] if v is not None else -1 for v in per_object], dtype=np.int32)
        cat.values, cat.lookup = uniques, lookup
        cat.codes = codes[index] if len(codes) else np.zeros(0, dtype=np.int32)
        return cat

    def flt(v: Any) -> float:
        return float("nan") if v is None else float(v)

    class FastCatalog(Catalog):  # type: ignore[misc, valid-type]
        def __init__(self, offers: Sequence[Any], gpus: Any = None) -> None:
            self.offers = list(offers)
            n = len(self.offers)
            inst_ids: dict[int, int] = {}
            insts: list[Any] = []
            reg_ids: dict[int, int] = {}
            regs: list[Any] = []
            first_offer: list[Any] = []
            inst_idx = np.empty(n, dtype=np.int32)
            reg_idx = np.empty(n, dtype=np.int32)
            price = np.empty(n, dtype=np.float64)
            available = np.empty(n, dtype=np.int8)
            currency: list[str] = []
            purchase: list[str] = []
            for row, o in enumerate(self.offers):
                inst, region, p = o.instance, o.region, o.price
                i = inst_ids.get(id(inst))
                if i is None:
                    i = inst_ids[id(inst)] = len(insts)
                    insts.append(inst)
                    first_offer.append(o)
                r = reg_ids.get(id(region))
                if r is None:
                    r = reg_ids[id(region)] = len(regs)
                    regs.append(region)
                inst_idx[row], reg_idx[row] = i, r
                price[row] = float(p.amount)
                currency.append(p.currency)
                purchase.append(p.purchase)
                a = o.available
                available[row] = -1 if a is None else int(a)

            def col(values: list[Any], index: Any, dtype: Any = np.float64) -> Any:
                return np.asarray(values, dtype=dtype)[index] if values else np.zeros(n, dtype=dtype)

            self.provider = categorical([x.provider for x in insts], inst_idx)
            self.instance_type = categorical([x.instance_type for x in insts], inst_idx)
            self.gpu = categorical([x.gpu.name if x.gpu else None for x in insts], inst_idx)
            self.region = categorical([x.code.lower() for x in regs], reg_idx)
            self.zone = categorical([x.zone.lower() if x.zone else None for x in regs], reg_idx)
            self.country = categorical([x.country for x in regs], reg_idx)
            self.continent = categorical([x.continent for x in regs], reg_idx)
            self.currency = TableCategorical(currency)
            self.purchase = TableCategorical(purchase)
            self.gpu_count = col([float(x.gpu_count) for x in insts], inst_idx)
            self.vram = col([flt(x.gpu_memory_gib) for x in insts], inst_idx)
            self.total_vram = col([flt(x.gpu_memory_total_gib) for x in insts], inst_idx)
            self.vcpus = col([flt(x.vcpus) for x in insts], inst_idx)
            self.memory = col([flt(x.memory_gib) for x in insts], inst_idx)
            self.price = price
            with np.errstate(divide="ignore", invalid="ignore"):
                self.price_per_gpu = np.where(self.gpu_count > 0, price / self.gpu_count, np.nan)
                self.price_per_vram = np.where(self.total_vram > 0, price / self.total_vram, np.nan)
            self.latitude = col([flt(x.latitude) for x in regs], reg_idx)
            self.longitude = col([flt(x.longitude) for x in regs], reg_idx)
            self.carbon_intensity = col([flt(x.carbon_gco2e_per_kwh) for x in regs], reg_idx)
            self.fractional = col([x.fractional for x in insts], inst_idx, np.bool_)

            def fast(inst: Any) -> bool:
                link = (inst.interconnect or "").lower()
                return bool(inst.gpu_count <= 1 or any(w in link for w in fast_links) or (
                    inst.gpu is not None and inst.gpu.form_factor in ("SXM", "Superchip", "OAM")))

            self.fast_interconnect = col([fast(x) for x in insts], inst_idx, np.bool_)
            self.available = available
            figures = np.asarray([per_gpu_figures(o, gpus) for o in first_offer], dtype=np.float64).reshape(
                len(insts), len(PRECISIONS) + 2)
            table = figures[inst_idx] * np.where(self.gpu_count > 0, self.gpu_count, np.nan)[:, None]
            self.tflops = {p: table[:, i] for i, p in enumerate(PRECISIONS)}
            self.bandwidth_tb_s = table[:, len(PRECISIONS)]
            self.power_kw = table[:, len(PRECISIONS) + 1]
            self.carbon_g_per_h = self.power_kw * PUE * self.carbon_intensity
            self.interruptible = self.purchase.mask(["spot", "low_priority"])
            non_gpu = [v for v in self.gpu.values if gpus is not None and not gpus.is_gpu(v)]
            self.non_gpu = self.gpu.mask(non_gpu)
            self._orders: dict[str, tuple[Any, Any]] = {}

        def order(self, ranker: Any, q: Any) -> tuple[Any, Any]:
            """All rows in ranked order and every row's score, for a catalog-only ranker (computed once)."""
            cached = self._orders.get(ranker.name)
            if cached is None:
                rows = np.arange(len(self.offers), dtype=np.int32)
                ranked, scores = Catalog.rank(self, rows, ranker, q, None)
                by_row = np.empty(len(rows), dtype=np.float64)
                by_row[ranked] = scores
                cached = self._orders[ranker.name] = (ranked, by_row)
            return cached

        def rank(self, rows: Any, ranker: Any, q: Any, limit: int | None = None) -> tuple[Any, Any]:
            if ranker.name not in STATIC_RANKERS:
                return Catalog.rank(self, rows, ranker, q, limit)
            order, by_row = self.order(ranker, q)
            keep = np.zeros(len(self.offers), dtype=np.bool_)
            keep[rows] = True
            ranked = order[keep[order]]
            if limit is not None:
                ranked = ranked[:limit]
            return ranked, by_row[ranked]

    return FastCatalog


def _median_ms(fn: Any, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=Path("/tmp/gpuhub-bench-data/100k"))
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--core", help="core snapshot directory (bench/core.py snapshot)")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from core import use_core

    use_core(args.core)
    import synthcloud

    import gpuhub
    import gpuhub.answer.catalog as catalog_module
    from gpuhub.answer.query import build_query
    from gpuhub.kit.testing import make_engine

    FastCatalog = define(catalog_module)
    registry = gpuhub.Registry(entry_points=[], extra_plugins=[("bench_synth", synthcloud)])
    names = sorted(registry.providers)
    engine = make_engine(registry, timeout_s=3600)
    collected = engine.collect(names, mode="replay", fixtures_dir=args.data / "gpuhub")
    offers = [o for part, _ in collected for o in part]
    engine.shutdown()
    del collected
    gc.collect()
    t0 = time.perf_counter()
    old = catalog_module.Catalog(offers, registry.gpus)
    old_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    new = FastCatalog(offers, registry.gpus)
    new_build = time.perf_counter() - t0
    for column in ("gpu_count", "vram", "total_vram", "vcpus", "memory", "price", "latitude", "carbon_intensity",
                   "bandwidth_tb_s", "power_kw", "fractional", "fast_interconnect", "available", "non_gpu"):
        assert np.array_equal(getattr(old, column), getattr(new, column), equal_nan=column not in (
            "fractional", "fast_interconnect", "available", "non_gpu")), column
    for column in ("price_per_gpu", "price_per_vram"):
        assert np.allclose(getattr(old, column), getattr(new, column), rtol=1e-12, equal_nan=True), column
    print(f"{len(offers)} offers; Catalog build: current {old_build:.2f} s, prototype {new_build:.2f} s "
          f"({old_build / new_build:.1f}x); all columns equal")
    queries: dict[str, dict[str, Any]] = {
        "all": {}, "h100_on_demand_max30": {"gpu": "H100", "purchase": "on_demand", "max_price": 30},
        "total_vram_320": {"min_total_vram": 320}, "all_per_gpu": {"sort": "price_per_gpu"},
    }
    print(f"ms, medians of {args.runs}: {'query':20} {'matched':>8} {'sel now':>8} {'sel new':>8} {'rank now':>9} "
          f"{'rank new':>9} {'top20 now':>9} {'top20 new':>9} {'1st order':>9}")
    for name, kwargs in queries.items():
        q = build_query(gpus=registry.gpus, providers=names, rankers=list(registry.rankers), **kwargs)
        ranker = registry.rankers[q.sort]
        rows_old, removed_old = old.select(q)
        rows_new, removed_new = new.select(q)
        assert np.array_equal(rows_old, rows_new) and removed_old == removed_new, name
        t0 = time.perf_counter()
        new.order(ranker, q)
        first = (time.perf_counter() - t0) * 1e3
        (r_old, s_old), (r_new, s_new) = old.rank(rows_old, ranker, q, None), new.rank(rows_new, ranker, q, None)
        assert np.allclose(s_old, s_new, rtol=1e-12, equal_nan=True), name
        moved = int(np.count_nonzero(r_old != r_new))
        note = f"  ({moved} rows swapped among equal scores)" if moved else ""
        print(f"{'':16}{name:20} {len(rows_old):8d} "
              f"{_median_ms(lambda q=q: old.select(q), args.runs):8.2f} "
              f"{_median_ms(lambda q=q: new.select(q), args.runs):8.2f} "
              f"{_median_ms(lambda r=rows_old, k=ranker, q=q: old.rank(r, k, q, None), args.runs):9.2f} "
              f"{_median_ms(lambda r=rows_new, k=ranker, q=q: new.rank(r, k, q, None), args.runs):9.2f} "
              f"{_median_ms(lambda r=rows_old, k=ranker, q=q: old.rank(r, k, q, 20), args.runs):9.2f} "
              f"{_median_ms(lambda r=rows_new, k=ranker, q=q: new.rank(r, k, q, 20), args.runs):9.2f} "
              f"{first:9.1f}{note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
