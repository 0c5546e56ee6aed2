"""The catalog's columns: one numpy array per offer attribute (provider, GPU, VRAM, price per GPU-hour, carbon, ...),
gathered from the tables (:mod:`~gpuhub.answer.catalog_tables`) on first use and kept. Figures come from the stored
offers, the GPU table (throughput, bandwidth, power) and the regions' facts (place, grid carbon intensity).
"""

from __future__ import annotations

import datetime as dt
import math
from functools import cached_property

import numpy as np
import numpy.typing as npt

from gpuhub.answer.catalog_tables import (
    _NO_OBTAIN,
    BoolArray,
    CatalogTables,
    FloatArray,
    IntArray,
    _Categorical,
    _gather,
    _obtain_part,
    _start_part,
)
from gpuhub.facts.carbon import PUE
from gpuhub.facts.geo import EARTH_RADIUS_KM
from gpuhub.facts.location import FIBRE_KM_PER_MS, FIXED_MS, ROUTE_FACTOR, Place
from gpuhub.facts.perf import PRECISIONS
from gpuhub.store.columns import sorted_distinct

__all__ = ["CatalogColumns"]


class CatalogColumns(CatalogTables):
    """Every column of the catalog, row ``i`` describing offer ``i`` (NaN where a figure is unknown). One column per
    attribute, each a few lines; they stay in one class (about 250 lines) because the filters and the ranking views
    both read all of them."""

    @cached_property
    def provider(self) -> _Categorical:
        """Provider name of each offer (the API it came through)."""
        return self._cat(self._inst_rows, self._inst_codes, 0)

    def region_labels(self, rows: IntArray) -> list[str]:
        """The distinct ``provider:region`` labels of ``rows`` (provider: the API the offer came through; region:
        its code as that provider spells it), sorted; from the stored rows, no model built."""
        if len(rows) == 0:
            return []
        region = self._global_codes("region")[rows].astype(np.int64)
        width = max(len(self._region_spellings), 1)
        pairs = sorted_distinct(self.provider.codes[rows].astype(np.int64) * width + region)
        names = self.provider.values
        return sorted({f"{names[int(p) // width]}:{self._region_spellings[int(p) % width]}" for p in pairs})

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

    def model_vram(self, mode: str, nodes: int = 1) -> FloatArray:
        """The VRAM one copy of a model can use on ``nodes`` instances of each row, GiB: for ``inference`` the VRAM
        of the GPUs a tensor-parallel degree can take on each (:func:`gpuhub.facts.modelfit.tensor_parallel_gpus`:
        8 of 10 GPUs; nodes add pipeline stages), for ``fine-tuning`` and ``training`` every GPU's (sharded)."""
        if nodes > 1:
            scaled: FloatArray = self.model_vram(mode) * nodes
            return scaled
        if mode != "inference":
            return self.total_vram
        cached: dict[str, FloatArray] = vars(self).setdefault("_model_vram", {})
        if mode not in cached:
            count = self.gpu_count
            whole = np.maximum(count, 1.0)
            degree = np.where(count >= 1, np.exp2(np.floor(np.log2(whole))), count)
            cached[mode] = self._card * degree
        return cached[mode]

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
        """Emissions of the whole instance's GPUs, gCO2e per hour: board power (GPU table, kW) × PUE × the region's grid
        carbon intensity (gCO2e/kWh); NaN where either is unknown.
        """
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
        """True where the offer's accelerator is in the GPU table but is not a GPU (a TPU, Trainium, Gaudi, ...)."""
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
    def data_path(self) -> FloatArray:
        """The data path of each offer's instance (:func:`gpuhub.answer.network.data_path_facts`), one row per offer:
        baseline network Gbps, fabric Gbps, local disk GiB; NaN where unknown. Read once per distinct instance, then
        gathered by instance code."""
        from gpuhub.answer.network import DATA_PATH_FIELDS, data_path_facts

        width = len(DATA_PATH_FIELDS)
        stored = self._stored
        facts: FloatArray = _gather(
            [np.asarray([data_path_facts(instance) for instance in c.instance_views()]
                        + [(math.nan,) * width], dtype=np.float64).reshape(-1, width) for c in stored],
            [np.where(c.columns["instance"] < 0, len(c.tables["instances"]), c.columns["instance"]) for c in stored],
            width).reshape(len(self.price), width)
        return facts

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

    def rtt_ms(self, place: Place) -> FloatArray:
        """Estimated round trip from ``place`` to every row's region (model in :mod:`gpuhub.facts.location`)."""
        lat1, lon1 = math.radians(place.latitude), math.radians(place.longitude)
        lat2, lon2 = np.radians(self.latitude), np.radians(self.longitude)
        a = np.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
        km = 2 * EARTH_RADIUS_KM * np.arcsin(np.minimum(1.0, np.sqrt(a)))
        result: FloatArray = 2 * km * ROUTE_FACTOR / FIBRE_KM_PER_MS + FIXED_MS
        return result
