"""The catalog's filters: one boolean mask per search argument of a :class:`~gpuhub.answer.query.Query`, built only
when asked for, and the selection of the rows every active filter keeps (with how many each removed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gpuhub.answer.catalog_columns import CatalogColumns
from gpuhub.answer.catalog_tables import BoolArray, IntArray
from gpuhub.answer.query import Query

__all__ = ["CatalogFilters"]


class CatalogFilters(CatalogColumns):
    """The masks per query argument and the row selection (:meth:`select`)."""

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
        picked = [np.asarray([test(instance) for instance in c.instance_views()] + [False],
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
            out.append(("model", lambda: self.model_vram(q.model_mode, q.nodes) >= (q.model_vram_gib or 0)))
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
