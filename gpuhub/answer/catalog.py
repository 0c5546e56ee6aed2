"""A columnar index over offers, built once per set of provider results, for fast filtering and ranking.

Every filter of a :class:`~gpuhub.answer.query.Query` is a numpy mask over these columns, so a search over 100,000
offers costs a few milliseconds; only the offers that survive are touched as Python objects.
"""

from __future__ import annotations

import bisect
import datetime as dt
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gpuhub.answer.query import Query
from gpuhub.answer.ranking import Ranker, ScoreView
from gpuhub.facts.carbon import PUE
from gpuhub.facts.geo import EARTH_RADIUS_KM
from gpuhub.facts.gpus import GpuTable
from gpuhub.facts.location import FIBRE_KM_PER_MS, FIXED_MS, ROUTE_FACTOR, Place
from gpuhub.facts.perf import PRECISIONS, instance_throughput
from gpuhub.model import OWNED, Instance, Offer, Region
from gpuhub.store.columns import OfferSequence

if TYPE_CHECKING:
    from gpuhub.store.columns import OfferColumns

__all__ = ["Catalog", "ScoreView"]

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


class Catalog:
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
                   kinds: Mapping[str, str] | None = None) -> Catalog:
        """The catalog over several providers' offers, each part either stored columns
        (:class:`~gpuhub.store.columns.OfferColumns`: read as columns, Offer objects built only for rows asked for)
        or any sequence of :class:`Offer` objects.

        Args:
            parts: one sequence of offers per provider.
            gpus: the GPU table (throughput, bandwidth, power, MIG, accelerator columns).
            kinds: provider name -> provider kind.
        """
        catalog = cls.__new__(cls)
        catalog._build(parts, gpus, kinds)
        return catalog

    def _build(self, parts: Sequence[Sequence[Offer]], gpus: GpuTable | None,
               kinds: Mapping[str, str] | None) -> None:
        from gpuhub.store.columns import ColumnBuilder, OfferColumns

        stored = [p if isinstance(p, OfferColumns) else ColumnBuilder().extend(p).build() for p in parts]
        self._stored = stored
        self.offers: Sequence[Offer] = _Offers(stored, [None if isinstance(p, OfferColumns) else p for p in parts])
        self._kinds = kinds or {}
        self._gpus = gpus
        # Each distinct instance, region and price-terms row is looked at once; rows gather through the codes.
        # Only price and availability (every ranking reads them) are gathered here; every other column is
        # gathered on first use (a query reads a few of them), then kept.
        self._inst_rows = [[_instance_part(c.instance(i)) for i in range(len(c.tables["instances"]))]
                           for c in stored]
        self._region_rows = [[_region_part(c.region(i)) for i in range(len(c.tables["regions"]))] for c in stored]
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

    @cached_property
    def provider(self) -> _Categorical:
        """Provider name of each offer (the API it came through)."""
        return self._cat(self._inst_rows, self._inst_codes, 0)

    @cached_property
    def seller(self) -> _Categorical:
        """Who runs the machine (:attr:`Instance.seller_name`): the provider itself unless an aggregator resells."""
        return self._cat(self._inst_rows, self._inst_codes, 10)

    @cached_property
    def kind(self) -> _Categorical:
        """Provider kind per row, through the provider column's codes (one lookup per provider, not per offer)."""
        kind_of = np.asarray([self._kinds.get(p) for p in self.provider.values] + [None], dtype=object)
        return _Categorical.from_codes([(list(kind_of), np.where(self.provider.codes >= 0, self.provider.codes,
                                                                 len(kind_of) - 1).astype(np.int32))])

    @cached_property
    def instance_type(self) -> _Categorical:
        """The provider's instance type name of each offer."""
        return self._cat(self._inst_rows, self._inst_codes, 1)

    @cached_property
    def gpu(self) -> _Categorical:
        """Canonical GPU name of each offer (GPU table), or None for a CPU-only offer."""
        return self._cat(self._inst_rows, self._inst_codes, 2)

    @cached_property
    def form(self) -> _Categorical:
        """GPU form factor of each offer (``SXM``, ``PCIe``, ...), where known."""
        return self._cat(self._inst_rows, self._inst_codes, 3)

    @cached_property
    def currency(self) -> _Categorical:
        """ISO 4217 currency of each offer's price."""
        return self._cat(self._term_rows, self._term_codes, 0)

    @cached_property
    def purchase(self) -> _Categorical:
        """Purchase model of each offer (``on_demand``, ``spot``, ...)."""
        return self._cat(self._term_rows, self._term_codes, 1)

    @cached_property
    def region(self) -> _Categorical:
        """Region code of each offer."""
        return self._cat(self._region_rows, self._region_codes, 0)

    @cached_property
    def zone(self) -> _Categorical:
        """Zone code of each offer, where the provider prices per zone."""
        return self._cat(self._region_rows, self._region_codes, 1)

    @cached_property
    def country(self) -> _Categorical:
        """ISO 3166 alpha-2 country of each offer's region, where known."""
        return self._cat(self._region_rows, self._region_codes, 2)

    @cached_property
    def continent(self) -> _Categorical:
        """Continent of each offer's region, where known."""
        return self._cat(self._region_rows, self._region_codes, 3)

    @cached_property
    def gpu_count(self) -> FloatArray:
        """GPUs per instance (fractions for a share of one GPU)."""
        return self._num(self._inst_rows, self._inst_codes, 4)

    @cached_property
    def _card(self) -> FloatArray:
        return self._num(self._inst_rows, self._inst_codes, 5)

    @cached_property
    def vram(self) -> FloatArray:
        """Usable VRAM per GPU: the card's, or the slice's for a fractional GPU (half an A10: 12 GiB)."""
        vram: FloatArray = np.where((self.gpu_count > 0) & (self.gpu_count < 1), self._card * self.gpu_count,
                                    self._card)
        return vram

    @cached_property
    def total_vram(self) -> FloatArray:
        """Usable VRAM of the whole instance, GiB (VRAM per GPU × GPUs)."""
        total: FloatArray = self._card * self.gpu_count
        return total

    @cached_property
    def vcpus(self) -> FloatArray:
        """vCPUs per instance."""
        return self._num(self._inst_rows, self._inst_codes, 6)

    @cached_property
    def memory(self) -> FloatArray:
        """Host RAM per instance, GiB."""
        return self._num(self._inst_rows, self._inst_codes, 7)

    @cached_property
    def price_per_gpu(self) -> FloatArray:
        """Price per GPU-hour (instance price / GPUs), in the offer's currency; NaN without GPUs."""
        with np.errstate(divide="ignore", invalid="ignore"):
            out: FloatArray = np.where(self.gpu_count > 0, self.price / self.gpu_count, np.nan)
        return out

    @cached_property
    def price_per_vram(self) -> FloatArray:
        """Price per GiB of usable VRAM per hour, in the offer's currency; NaN without VRAM."""
        with np.errstate(divide="ignore", invalid="ignore"):
            out: FloatArray = np.where(self.total_vram > 0, self.price / self.total_vram, np.nan)
        return out

    @cached_property
    def latitude(self) -> FloatArray:
        """Latitude of each offer's region (city centre), degrees; NaN where unknown."""
        return self._num(self._region_rows, self._region_codes, 4)

    @cached_property
    def longitude(self) -> FloatArray:
        """Longitude of each offer's region (city centre), degrees; NaN where unknown."""
        return self._num(self._region_rows, self._region_codes, 5)

    @cached_property
    def carbon_intensity(self) -> FloatArray:
        """Grid carbon intensity of each offer's region, gCO2e/kWh; NaN where unknown."""
        return self._num(self._region_rows, self._region_codes, 6)

    @cached_property
    def fractional(self) -> BoolArray:
        """True where an offer gets part of one GPU."""
        return self._num(self._inst_rows, self._inst_codes, 8).astype(np.bool_)

    @cached_property
    def fast_interconnect(self) -> BoolArray:
        """True where the instance's interconnect or form names NVLink, NVSwitch, InfiniBand, SXM or EFA."""
        return self._num(self._inst_rows, self._inst_codes, 9).astype(np.bool_)

    @cached_property
    def _per_gpu_table(self) -> FloatArray:
        """Per-GPU figures looked up once per instance, then scaled by the GPU count of each row."""
        width = len(PRECISIONS) + 2
        table = self._per_gpu_values[self._global_codes("inst")]
        scale = np.where(self.gpu_count > 0, self.gpu_count, np.nan)[:, None]
        scaled: FloatArray = table.reshape(len(self.price), width) * scale
        return scaled

    @cached_property
    def tflops(self) -> dict[str, FloatArray]:
        """Dense throughput of the whole instance per precision (GPU table), TFLOPS; NaN where unknown."""
        return {p: self._per_gpu_table[:, i] for i, p in enumerate(PRECISIONS)}

    @cached_property
    def bandwidth_tb_s(self) -> FloatArray:
        """GPU memory bandwidth of the whole instance (GPU table), TB/s; NaN where unknown."""
        return self._per_gpu_table[:, len(PRECISIONS)]

    @cached_property
    def power_kw(self) -> FloatArray:
        """GPU board power of the whole instance (GPU table), kW; NaN where unknown."""
        return self._per_gpu_table[:, len(PRECISIONS) + 1]

    @cached_property
    def carbon_g_per_h(self) -> FloatArray:
        out: FloatArray = self.power_kw * PUE * self.carbon_intensity
        return out

    @cached_property
    def data_day(self) -> FloatArray:
        """Each offer's price date as days since 1970-01-01 (NaN: undated; see :attr:`gpuhub.model.Offer.data_date`)."""
        return np.concatenate([c.data_days() for c in self._stored]) if self._stored else np.zeros(0)

    def younger_than(self, max_age_s: float, today: dt.date | None = None) -> BoolArray:
        """Offers whose own price date is at most ``max_age_s`` seconds (whole days) before ``today`` (default: today,
        UTC); an undated offer does not pass (its age is unknown)."""
        today = today or dt.datetime.now(dt.timezone.utc).date()
        newest_allowed_age = math.floor(max_age_s / 86400)
        age = float((today - dt.date(1970, 1, 1)).days) - self.data_day
        with np.errstate(invalid="ignore"):
            kept: BoolArray = age <= newest_allowed_age
        return kept

    @cached_property
    def interruptible(self) -> BoolArray:
        """True for spot and low-priority offers (the provider may reclaim them)."""
        return self.purchase.mask(["spot", "low_priority"])

    @cached_property
    def mig(self) -> BoolArray:
        """True where the GPU supports MIG partitioning (GPU table)."""
        return self.gpu.mask([s.name for s in self._gpus.specs if s.mig_support] if self._gpus is not None else [])

    @cached_property
    def non_gpu(self) -> BoolArray:
        gpus = self._gpus
        return self.gpu.mask([n for n in self.gpu.values if gpus is not None and not gpus.is_gpu(n)])

    @cached_property
    def _obtain(self) -> FloatArray:
        """Obtainability (gpuhub.obtain): NaN where unknown; launchable -1 unknown, 0 no, 1 yes. Read once per
        distinct stored ``obtain`` value, then gathered by each row's extra-fields code."""
        stored = self._stored
        obtain: FloatArray = _gather(
            [np.asarray([_obtain_part(e.get("obtain")) for e in c.tables["extras"]] + [_NO_OBTAIN],
                        dtype=np.float64).reshape(-1, 3) for c in stored],
            [np.where(c.columns["extra"] < 0, len(c.tables["extras"]), c.columns["extra"]) for c in stored],
            3).reshape(len(self.price), 3)
        return obtain

    @cached_property
    def reservation_start(self) -> FloatArray:
        """When each offer's reservation window starts (a capacity block, a calendar slot), POSIX seconds; NaN when
        the offer has none or it starts on grant (gpuhub.obtain). Read once per distinct stored ``obtain``."""
        stored = self._stored
        return _gather([np.asarray([_start_part(e.get("obtain")) for e in c.tables["extras"]] + [math.nan],
                                   dtype=np.float64) for c in stored],
                       [np.where(c.columns["extra"] < 0, len(c.tables["extras"]), c.columns["extra"]) for c in stored])

    def starts_before(self, when: dt.datetime) -> BoolArray:
        """Offers whose reservation window starts before ``when`` (a block in the past for a search at ``when``)."""
        with np.errstate(invalid="ignore"):
            past: BoolArray = self.reservation_start < when.timestamp()
        return past

    @cached_property
    def interruption_max_pct(self) -> FloatArray:
        """Upper bound of each offer's interruption bucket, percent per month (NaN: unknown)."""
        return self._obtain[:, 0]

    @cached_property
    def placement_score(self) -> FloatArray:
        """AWS spot placement score of each offer, 1-10 (NaN: unknown)."""
        return self._obtain[:, 1]

    @cached_property
    def launchable(self) -> npt.NDArray[np.int8]:
        """Quota and capacity verdict of each offer: 1 launchable, 0 not, -1 unknown."""
        return self._obtain[:, 2].astype(np.int8)

    def __len__(self) -> int:
        return len(self.offers)

    def rtt_ms(self, place: Place) -> FloatArray:
        """Estimated round trip from ``place`` to every row's region (model in :mod:`gpuhub.facts.location`)."""
        lat1, lon1 = math.radians(place.latitude), math.radians(place.longitude)
        lat2, lon2 = np.radians(self.latitude), np.radians(self.longitude)
        a = np.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
        km = 2 * EARTH_RADIUS_KM * np.arcsin(np.minimum(1.0, np.sqrt(a)))
        result: FloatArray = 2 * km * ROUTE_FACTOR / FIBRE_KM_PER_MS + FIXED_MS
        return result

    def _compat_filters(self, q: Query) -> list[tuple[str, Callable[[], BoolArray]]]:
        """Masks from the GPU's compatibility facts (:mod:`gpuhub.facts.compat`), one lookup per GPU name."""
        from gpuhub.facts.compat import compat, cuda_supports

        mig = {s.name for s in self._gpus.specs if s.mig_support} if self._gpus is not None else set()
        # FP8 as the GPU table's throughput says it (AMD's MI300X: 2614.9 TFLOPS), where the CUDA facts are silent
        fp8 = {s.name for s in self._gpus.specs if s.fp8_tflops} if self._gpus is not None else set()
        out: list[tuple[str, Callable[[], BoolArray]]] = []
        if q.min_compute_capability:
            floor = q.min_compute_capability
            names = [n for n in self.gpu.values if (cc := compat(n).compute_capability) and cc >= floor]
            out.append(("min_compute_capability", lambda: self.gpu.mask(names)))
        if q.features:
            have = [n for n in self.gpu.values if all(compat(n).has(f, n in mig) or (f == "fp8" and n in fp8 and
                                                                                    compat(n).fp8 is None)
                                                      for f in q.features)]
            out.append(("feature", lambda: self.gpu.mask(have)))
        if q.cuda:
            release = q.cuda
            supported = [n for n in self.gpu.values if cuda_supports(n, release)]
            out.append(("cuda", lambda: self.gpu.mask(supported)))
        return out

    def _instance_flag(self, test: Callable[[Any], bool]) -> BoolArray:
        """A per-offer mask from an instance fact (built only when a filter asks for it): the test runs once per
        distinct instance, rows gather through their instance codes."""
        picked = [np.asarray([test(c.instance(i)) for i in range(len(c.tables["instances"]))] + [False],
                             dtype=np.bool_)[c.columns["instance"]] for c in self._stored]
        return np.concatenate(picked) if picked else np.zeros(0, dtype=np.bool_)

    def _network_filters(self, q: Query) -> list[tuple[str, Callable[[], BoolArray]]]:
        """Network bandwidth, fabric, local disk and multi-node filters (:mod:`gpuhub.answer.network`)."""
        from gpuhub.answer.network import fabric_matches

        out: list[tuple[str, Callable[[], BoolArray]]] = []
        if q.min_network_gbps is not None:
            low = q.min_network_gbps
            out.append(("min_network_gbps", lambda: self._instance_flag(
                lambda i: i.network_gbps is not None and i.network_gbps >= low)))
        if q.fabrics:
            out.append(("fabric", lambda: self._instance_flag(lambda i: fabric_matches(i, q.fabrics))))
        if q.min_local_disk_gib is not None:
            disk = q.min_local_disk_gib
            out.append(("min_local_disk", lambda: self._instance_flag(
                lambda i: i.storage_gib is not None and i.storage_gib >= disk)))
        if q.local_nvme:
            out.append(("local_nvme", lambda: self._instance_flag(lambda i: i.storage_kind == "NVMe")))
        if q.nodes > 1:
            out.append(("nodes", lambda: self._instance_flag(lambda i: fabric_matches(i, ("any",)))))
        return out

    def filters(self, q: Query) -> list[tuple[str, Callable[[], BoolArray]]]:
        """The active filters in order, each named after the search argument that set it."""
        out: list[tuple[str, Callable[[], BoolArray]]] = []
        if q.providers:
            out.append(("provider", lambda: self.provider.mask(q.providers) | self.seller.mask(q.providers)))
        if q.purchase:
            out.append(("purchase", lambda: self.purchase.mask(q.purchase)))
        if q.currency:
            out.append(("currency", lambda: self.currency.mask([q.currency or ""])))
        if q.instance_types:
            out.append(("instance_type", lambda: self.instance_type.mask(q.instance_types)))
        if q.gpu or q.gpu_forms:
            out.append(("gpu", lambda: self._gpu_mask(q)))
        if q.provider_kinds:
            out.append(("provider_kind", lambda: self.kind.mask(q.provider_kinds)))
        if q.mig_capable:
            out.append(("mig_capable", lambda: self.mig))
        if q.nvlink:
            out.append(("nvlink", lambda: self.fast_interconnect & (self.gpu_count > 1)))
        if q.min_compute_capability or q.features or q.cuda:
            out.extend(self._compat_filters(q))
        if q.bare_metal:
            out.append(("bare_metal", lambda: self._instance_flag(lambda i: i.bare_metal is True)))
        if q.dedicated:
            out.append(("dedicated", lambda: self._instance_flag(
                lambda i: i.tenancy == "dedicated" or i.bare_metal is True)))
        out.extend(self._network_filters(q))
        if not q.include_accelerators and self.non_gpu.any():
            out.append(("include_accelerators", lambda: ~self.non_gpu))
        if q.min_gpus is not None:
            out.append(("min_gpus", lambda: self.gpu_count >= (q.min_gpus or 0)))
        if q.max_gpus is not None:
            out.append(("max_gpus", lambda: self.gpu_count <= (q.max_gpus or 0)))
        if q.min_vram_gib is not None:
            out.append(("min_vram", lambda: self.vram >= (q.min_vram_gib or 0)))
        if q.min_total_vram_gib is not None:
            out.append(("min_total_vram", lambda: self.total_vram >= (q.min_total_vram_gib or 0)))
        if q.model_vram_gib is not None:
            out.append(("model", lambda: self.total_vram >= (q.model_vram_gib or 0)))
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
        if q.available_only:  # known available only; unknown and sold out are counted apart (explain)
            out.append(("available_only", lambda: self.available == 1))
        place = q.place()
        if q.max_rtt_ms is not None and place is not None:
            out.append(("max_rtt", lambda: self.rtt_ms(place) <= (q.max_rtt_ms or 0)))
        if q.max_carbon_g_per_kwh is not None:
            out.append(("max_carbon", lambda: self.carbon_intensity <= (q.max_carbon_g_per_kwh or 0)))
        if q.max_interruption_pct is not None:
            out.append(("max_interruption",
                        lambda: ~self.interruptible | (self.interruption_max_pct <= (q.max_interruption_pct or 0))))
        if q.min_placement_score is not None:
            out.append(("min_placement_score",
                        lambda: ~self.interruptible | (self.placement_score >= (q.min_placement_score or 0))))
        if q.launchable:
            out.append(("launchable", lambda: (self.launchable != 0) & (self.available != 0)))
        if q.max_price_per_hour is not None:
            # Compared as floats: a published price has at most 17 significant digits, so equality survives.
            limit = float(q.max_price_per_hour)
            out.append(("max_price", lambda: self.price <= limit))
        if q.max_price_per_gpu_hour is not None:
            per_gpu = float(q.max_price_per_gpu_hour)
            out.append(("max_price_per_gpu", lambda: self.price_per_gpu <= per_gpu))
        return out

    def _gpu_mask(self, q: Query) -> BoolArray:
        mask = self.gpu.mask(q.gpu)
        for name, form in q.gpu_forms:
            mask |= self.gpu.mask([name]) & self.form.mask([form])
        return mask

    def select(self, q: Query) -> tuple[IntArray, dict[str, int]]:
        """Row numbers passing every filter, and how many rows each filter removed (in filter order)."""
        rows, removed, _ = self.select_with_masks(q)
        return rows, removed

    def select_with_masks(self, q: Query) -> tuple[IntArray, dict[str, int], list[tuple[str, BoolArray]]]:
        """Like :meth:`select`, plus each filter's own pass mask (for explaining what it removed)."""
        keep = np.ones(len(self.offers), dtype=np.bool_)
        removed: dict[str, int] = {}
        masks: list[tuple[str, BoolArray]] = []
        before = len(self.offers)
        for name, make_mask in self.filters(q):
            mask = make_mask()
            masks.append((name, mask))
            keep &= mask
            after = int(np.count_nonzero(keep))
            removed[name] = before - after
            before = after
        return np.flatnonzero(keep).astype(np.int32), removed, masks

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
                self._global_codes("extra")[rows], 0]))

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

    def _inst_at(self, field: int, rows: IntArray) -> FloatArray:
        picked: FloatArray = self._table_values("inst", field)[self._global_codes("inst")[rows]]
        return picked

    def _region_at(self, field: int, rows: IntArray) -> FloatArray:
        picked: FloatArray = self._table_values("region", field)[self._global_codes("region")[rows]]
        return picked

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
        width = len(PRECISIONS) + 2
        # The figures depend only on the GPU (name, form factor, known) and the count: computed once per distinct
        # pair, not per instance row (thousands of rows share a few dozen GPUs; each lookup scans the GPU table).
        seen: dict[tuple[Any, ...], tuple[float, ...]] = {}
        out: list[tuple[float, ...]] = []
        for c in self._stored:
            for i in range(len(c.tables["instances"])):
                instance = c.instance(i)
                gpu = instance.gpu
                key = (None if gpu is None else (gpu.name, gpu.form_factor, gpu.known), instance.gpu_count)
                figures = seen.get(key)
                if figures is None:
                    figures = seen[key] = _per_gpu(instance, self._gpus)
                out.append(figures)
        values: FloatArray = np.asarray(out, dtype=np.float64).reshape(-1, width)
        return values

    @cached_property
    def _obtain_values(self) -> FloatArray:
        values: FloatArray = np.asarray([_obtain_part(e.get("obtain") if e is not None else None) for c in self._stored
                                         for e in [*c.tables["extras"], None]], dtype=np.float64).reshape(-1, 3)
        return values

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


def _per_gpu(instance: Instance, gpus: GpuTable | None) -> tuple[float, ...]:
    """Per-GPU dense TFLOPS per precision, bandwidth TB/s and power kW (NaN where unknown)."""
    if gpus is None:
        return (math.nan,) * (len(PRECISIONS) + 2)
    figures = instance_throughput(instance, gpus)
    n = instance.gpu_count or 1
    values = [figures.tflops[p] for p in PRECISIONS] + [figures.bandwidth_tb_s, figures.power_kw]
    return tuple(v / n if v else math.nan for v in values)


def _instance_part(inst: Instance) -> tuple[Any, ...]:
    gpu = inst.gpu
    link = (inst.interconnect or "").lower()
    fast = inst.gpu_count <= 1 or any(word in link for word in _FAST_LINKS) or (
        gpu is not None and gpu.form_factor in ("SXM", "Superchip", "OAM"))
    return (inst.provider, inst.instance_type, gpu.name if gpu else None, gpu.form_factor if gpu else None,
            inst.gpu_count, _float(gpu.memory_gib if gpu else None), _float(inst.vcpus), _float(inst.memory_gib),
            float(inst.fractional), float(fast), inst.seller_name)


def _region_part(region: Region) -> tuple[Any, ...]:
    return (region.code.lower(), region.zone.lower() if region.zone else None, region.country, region.continent,
            _float(region.latitude), _float(region.longitude), _float(region.carbon_gco2e_per_kwh))


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

    def __init__(self, parts: list[OfferColumns], originals: list[Sequence[Offer] | None]) -> None:
        self._parts = parts
        self._originals = originals
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
            offer = original[at] if original is not None else self._parts[part].offer(at)
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
    if data is None:
        return _NO_OBTAIN
    from gpuhub.obtain.model import Obtainability

    obtain = Obtainability.model_validate(data)
    risk = obtain.risk
    high = risk.max_pct if risk is not None and risk.max_pct is not None else math.nan
    score = math.nan if obtain.placement_score is None else float(obtain.placement_score)
    quota, capacity = obtain.quota_instances, obtain.capacity
    ok = -1 if quota is None and capacity is None else int((quota is None or quota > 0) and capacity is not False)
    return (float(high), score, ok)
