"""Explanations: why an offer ranks where it does, and what each filter took away.

Every sentence is built from the figures the ranking used (price, throughput, distance, grid intensity, model
fit), so it can be checked by hand.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gpuhub.answer.catalog import Catalog
from gpuhub.answer.query import Query
from gpuhub.answer.ranking import Ranker
from gpuhub.answer.spec import cli_option
from gpuhub.display import money
from gpuhub.facts.carbon import carbon_note
from gpuhub.facts.gpus import GpuTable
from gpuhub.facts.perf import price_performance
from gpuhub.purchase import OWNED

if TYPE_CHECKING:
    from gpuhub.model import Offer

__all__ = ["cli_flag", "offer_details", "removed_notes"]


def _label(offer: Offer) -> str:
    zone = f"/{offer.region.zone}" if offer.region.zone else ""
    return f"{offer.instance.channel} {offer.instance_type} in {offer.region.code}{zone} ({offer.price.purchase})"


def _gpus(offer: Offer) -> str:
    gpu = offer.instance.gpu
    return f"{offer.instance.gpu_count:g} × {gpu.name if gpu else 'no GPU'}"


def _amount(value: Decimal) -> str:
    """A price in an explanation, by the one printing rule of tables and pages (:func:`gpuhub.display.money`: at
    most 4 decimals, at least 2): 0.80806 → 0.8081, 55.0400000000 → 55.04."""
    return money(value)


def _num(value: float) -> str:
    return f"{value:.4g}" if abs(value) < 0.01 else (f"{value:.4f}".rstrip("0").rstrip(".") if value < 100
                                                      else f"{value:,.0f}")


def offer_details(catalog: Catalog, row: int, score: float, next_score: float | None, next_row: int | None,
                  ranker: Ranker, query: Query, gpus: GpuTable, cheapest: int | None = None) -> dict[str, Any]:
    """Score, explanation and figures for one ranked offer (``row`` in ``catalog``); ``cheapest`` is the cheapest
    matching row, for saying what distance-adjusted ranking traded away."""
    offer = catalog.offers[row]
    figures = price_performance(offer, gpus)
    parts: list[str] = []
    money = offer.price.currency
    if ranker.name in ("price", "price_per_gpu", "price_per_vram") or math.isnan(score):
        per_gpu = offer.price_per_gpu_hour
        text = f"{_gpus(offer)} at {_amount(offer.price.amount)} {money}/h"
        if per_gpu is not None and offer.instance.gpu_count != 1:
            text += f" ({_amount(per_gpu)} per GPU-hour)"
        parts.append(text)
    else:
        unit = ranker.unit.replace("USD", money)
        if "BF16" in unit:  # training counts FP16 throughput where the GPU has no BF16 (V100, T4)
            unit = unit.replace("BF16", _half_precision(offer, gpus))
        parts.append(f"{_gpus(offer)} at {_num(score)} {unit}")
    inst = offer.instance
    owned = offer.price.purchase == OWNED
    if owned and inst.note:  # gpuhub.fetch.owned: whose it is and until when, first
        parts.insert(0, inst.note)
    if inst.via and not owned:
        own = f" {inst.seller_instance_type}" if inst.seller_instance_type else ""
        parts.append(f"{inst.channel}: {inst.seller}'s machine{own} offered through {inst.via} at {inst.via}'s price")
    stat = offer.price.listing_label()
    if stat:
        parts.append(f"the price is the {stat} on the marketplace, not one listing's")
    place = query.place()
    rtt = None
    if place is not None:
        rtt = float(catalog.rtt_ms(place)[row])
        if not math.isnan(rtt):
            parts.append(f"{rtt:.0f} ms from {place.label}")
            parts.extend(_distance_trade(catalog, row, cheapest, rtt, ranker, query))
    parts.append(carbon_note(offer.provider, offer.region.code))
    risk = offer.obtain.risk if offer.obtain is not None else None
    if offer.price.purchase in ("spot", "low_priority"):  # gpuhub.obtain; unknown risk said too (ranked with it)
        from gpuhub.answer.cost import risk_note

        parts.append(risk_note(risk, query.checkpoint_every_h, ranker.name == "training"))
    precision_note = _precision_note(offer, query, ranker, gpus)
    if precision_note:
        parts.append(precision_note)
    fit = query.fit()
    split = None
    if fit is not None and offer.instance.gpu_memory_gib:
        needed = fit.gpus_needed(offer.instance.gpu_memory_gib)
        split = needed > 1
        if split:
            parts.append(f"the model ({fit.total_gib:.1f} GiB) must be split across {needed} GPUs")
        else:
            parts.append(f"the model ({fit.total_gib:.1f} GiB) fits on one GPU")
    nodes_needed = query.nodes
    if query.nodes > 1:
        from gpuhub.answer.network import fabric_label

        parts.append(f"{query.nodes} nodes: {query.nodes * offer.instance.gpu_count:g} GPUs at "
                     f"{_amount(offer.price.amount * query.nodes)} {money}/h, {fabric_label(offer.instance)} "
                     f"between them")
    elif fit is not None and offer.instance.gpu_memory_total_gib:
        nodes_needed = math.ceil(fit.total_gib / offer.instance.gpu_memory_total_gib - 1e-9)
    from gpuhub.answer.network import starvation_note

    starved = starvation_note(offer, nodes_needed)
    if starved:
        parts.append(starved)
    parts.extend(_data_path_notes(catalog, row, offer, ranker, query))
    parts.append(_date_note(offer))
    if next_row is not None and next_score is not None and not math.isnan(score) and not math.isnan(next_score):
        if next_score > score > 0:
            parts.append(f"the next, {_label(catalog.offers[next_row])}, scores "
                         f"{(next_score - score) / score * 100:.1f} % higher")
        elif next_score == score:
            parts.append(f"ties with the next, {_label(catalog.offers[next_row])}")
    carbon = float(catalog.carbon_g_per_h_at(np.asarray([row], dtype=np.int32))[0])
    return {
        "score": None if math.isnan(score) else score,
        "score_unit": ranker.unit,
        "explanation": "; ".join(parts),
        "rtt_ms": None if rtt is None or math.isnan(rtt) else round(rtt, 1),
        "carbon_g_per_hour": None if math.isnan(carbon) else round(carbon, 1),
        "model_split": split,
        **{k: (round(v, 8) if v is not None else None) for k, v in figures.items()},
        **(_cluster(offer, query.nodes) if query.nodes > 1 else {}),
    }


def _data_path_notes(catalog: Catalog, row: int, offer: Offer, ranker: Ranker, query: Query) -> list[str]:
    """For the training and data-science presets: the CPU share that would starve the GPUs, and each data-path term
    under 1 that the score carries, with the figure and the need behind it
    (:func:`gpuhub.answer.workloads.data_path_terms`), e.g. ``data path × 0.805: network × 0.85 (2.5 Gbps per GPU
    of 10 needed), local disk × 0.947 (233 GiB per GPU of 500 needed)``."""
    from gpuhub.answer.workloads import DATA_PATH_NEEDS, DATA_PATH_PRESETS, data_path_terms

    if ranker.name not in DATA_PATH_PRESETS:
        return []
    from gpuhub.answer.network import cpu_starvation_note

    notes = [n for n in (cpu_starvation_note(offer),) if n]
    terms = data_path_terms(catalog.view(np.asarray([row], dtype=np.int32), query),
                            fabric=DATA_PATH_PRESETS[ranker.name])
    weak = {name: float(value[0]) for name, value in terms.items() if float(value[0]) < 1}
    if weak:
        inst = offer.instance
        gpus = inst.gpu_count or 1
        parts = []
        for name, value in weak.items():
            field, need, unit = DATA_PATH_NEEDS[name]
            have = float(getattr(inst, field)) / gpus
            parts.append(f"{name} × {value:.3g} ({have:,.3g} {unit} per GPU of {need:g} needed)")
        parts_text = ", ".join(parts)
        notes.append(f"data path × {math.prod(weak.values()):.3g}: {parts_text}")
    return notes


def _cluster(offer: Offer, nodes: int) -> dict[str, Any]:
    from gpuhub.answer.network import cluster_record

    return cluster_record(offer, nodes)


def _date_note(offer: Offer) -> str:
    """The date of the offer's price, which data set it came from and what it replaced, e.g. ``price of
    2025-06-01 (SkyPilot GCP catalog v8; replaced GPU 4.1 USD of 2024-09-16)``."""
    when = offer.data_date
    text = f"price of {when.isoformat()}" if when else "price undated"
    extra = [x for x in (offer.price.data_origin, f"replaced {offer.price.replaced}" if offer.price.replaced
                         else None) if x]
    return text + (f" ({'; '.join(extra)})" if extra else "")


def _half_precision(offer: Offer, gpus: GpuTable) -> str:
    """The 16-bit precision the offer's GPU trains at, as the training score counts it: ``BF16`` where the GPU table
    gives a BF16 figure (Ampere and newer), ``FP16`` where it gives only FP16 (V100, T4: no BF16 support)."""
    gpu = offer.instance.gpu
    spec = gpus.spec(gpu.name, gpu.form_factor) if gpu is not None else None
    return "FP16" if spec is not None and spec.bf16_tflops is None and spec.fp16_tflops else "BF16"


def _precision_note(offer: Offer, query: Query, ranker: Ranker, gpus: GpuTable) -> str | None:
    """A warning when the model's precision needs a GPU feature this offer's GPU lacks (FP8 before Ada/Hopper); what
    it runs at instead is the GPU's 16-bit precision (:func:`_half_precision`)."""
    if query.precision != "fp8" or offer.instance.gpu is None:
        return None
    from gpuhub.facts.compat import compat

    facts = compat(offer.instance.gpu.name)
    if facts.fp8:
        return None
    cc = facts.compute_capability
    why = f"compute capability {cc[0]}.{cc[1]}; FP8 needs 8.9 or newer" if cc else "no FP8 support known"
    half = _half_precision(offer, gpus)
    effect = f"training runs at {half} speed and memory" if ranker.name == "training" else f"runs at {half} or slower"
    return f"warning: {offer.instance.gpu.name} has no FP8 ({why}): {effect}"


_NOTES = {"include_accelerators": " (non-GPU accelerators are left out unless asked for)"}


def cli_flag(name: str) -> str:
    """The CLI option that sets the search argument ``name`` (``available_only`` → ``--available``,
    :func:`gpuhub.answer.spec.cli_option`), with a note where the option alone would not say enough."""
    return cli_option(name) + _NOTES.get(name, "")


def removed_notes(catalog: Catalog, masks: list[tuple[str, npt.NDArray[np.bool_]]], ranker: Ranker,
                  query: Query) -> list[str]:
    """For each filter that removed offers, the nearest miss among the offers it alone removed (the one closest to
    passing on that filter's own figure: most VRAM for ``model``, lowest price for ``max_price``, shortest round
    trip for ``max_rtt`` ...; the best-ranked one for filters without a figure) and by how much it missed. For a
    model larger than any single instance: how many nodes of the cheapest such set it needs."""
    notes: list[str] = []
    if not masks:
        return notes
    stacked = np.vstack([m for _, m in masks])
    for i, (name, mask) in enumerate(masks):
        others = np.delete(stacked, i, axis=0).all(axis=0) if len(masks) > 1 else np.ones(len(mask), dtype=bool)
        only_this = np.flatnonzero(others & ~mask).astype(np.int32)
        if len(only_this) == 0:
            continue
        gap = _gap(catalog, name, query)
        if gap is not None:
            distance = gap[only_this]
            known = only_this[~np.isnan(distance)]
            pool = known[distance[~np.isnan(distance)] == np.nanmin(distance)] if len(known) else only_this
            best_rows, _ = catalog.rank(pool, ranker, query, limit=1)
            which = "the nearest miss"
        else:
            best_rows, _ = catalog.rank(only_this, ranker, query, limit=1)
            which = "the best of them"
        row = int(best_rows[0])
        notes.append(f"{cli_flag(name)} alone removed {len(only_this)}; {which}: "
                     f"{_label(catalog.offers[row])}{_miss(catalog, row, name, query)}")
        if name == "model" and query.model_vram_gib is not None and not (others & mask).any():
            notes.append(_nodes(catalog, row, only_this, query.model_vram_gib))
    return notes


def _gap(catalog: Catalog, name: str, query: Query) -> npt.NDArray[np.float64] | None:
    """How far each row is from passing filter ``name`` (0 = passes; larger = further), None: no such figure."""
    place = query.place()
    figures: dict[str, tuple[npt.NDArray[np.float64], float | None, int]] = {
        # filter: (column, bound, +1 for a minimum / -1 for a maximum)
        "min_gpus": (catalog.gpu_count, query.min_gpus, 1), "max_gpus": (catalog.gpu_count, query.max_gpus, -1),
        "min_vram": (catalog.vram, query.min_vram_gib, 1),
        "min_total_vram": (catalog.total_vram, query.min_total_vram_gib, 1),
        "model": (catalog.model_vram(query.model_mode, query.nodes), query.model_vram_gib, 1),
        "min_vcpus": (catalog.vcpus, query.min_vcpus, 1),
        "min_memory": (catalog.memory, query.min_memory_gib, 1),
        "max_price": (catalog.price, float(query.max_price_per_hour) if query.max_price_per_hour else None, -1),
        "max_carbon": (catalog.carbon_intensity, query.max_carbon_g_per_kwh, -1),
    }
    if name == "max_rtt" and place is not None and query.max_rtt_ms is not None:
        figures["max_rtt"] = (catalog.rtt_ms(place), query.max_rtt_ms, -1)
    if name not in figures or figures[name][1] is None:
        return None
    column, bound, sign = figures[name]
    result: npt.NDArray[np.float64] = np.maximum(0.0, (float(bound or 0) - column) * sign)
    return result


def _nodes(catalog: Catalog, row: int, rows: npt.NDArray[np.int32], need_gib: float) -> str:
    """No single instance holds the model: how many nodes of the nearest miss (the largest instance) it takes."""
    offer = catalog.offers[row]
    total = float(catalog.total_vram[row])
    if not total > 0:
        return f"no single instance holds the model ({need_gib:.1f} GiB)"
    n = math.ceil(need_gib / total - 1e-9)
    from gpuhub.answer.network import fabric_label

    link = (f"{fabric_label(offer.instance)} between them" if offer.instance.fabric is not None
            else "no RDMA fabric known between them: training across nodes would starve the GPUs")
    return (f"no single instance holds the model ({need_gib:.1f} GiB): it needs {n} nodes of "
            f"{_label(offer)} ({total:g} GiB each, {_amount(offer.price.amount * n)} {offer.price.currency}/h for "
            f"the {n}), {link}")


def _distance_trade(catalog: Catalog, row: int, cheapest: int | None, rtt: float, ranker: Ranker,
                    query: Query) -> list[str]:
    """For distance-weighted rankers: the weight applied, and the cheaper far offer this one beat, by how much."""
    if ranker.name not in ("near", "inference"):
        return []
    from gpuhub.answer.workloads import RTT_WEIGHT_MS

    out = [f"distance adds {rtt / RTT_WEIGHT_MS * 100:.0f} % to the price (× (1 + {rtt:.0f}/{RTT_WEIGHT_MS:.0f}))"]
    if ranker.name == "inference":
        within = rtt <= query.rtt_budget_ms
        out.append(f"{'within' if within else 'beyond'} the {query.rtt_budget_ms:g} ms real-time budget"
                   + ("" if within else ": ranked after every offer within it"))
    place = query.place()
    if cheapest is not None and place is not None and cheapest != row:
        price, low = float(catalog.price[row]), float(catalog.price[cheapest])
        far = float(catalog.rtt_ms(place)[cheapest])
        if low < price and not math.isnan(far) and far > rtt:
            out.append(f"the cheapest match, {_label(catalog.offers[cheapest])} at "
                       f"{_amount(catalog.offers[cheapest].price.amount)}, is {(price - low) / price * 100:.0f} % "
                       f"cheaper but {far:.0f} ms away")
    return out


def _miss(catalog: Catalog, row: int, name: str, query: Query) -> str:
    offer = catalog.offers[row]
    if name == "max_price" and query.max_price_per_hour is not None:
        over = offer.price.amount - query.max_price_per_hour
        return f" at {_amount(offer.price.amount)} {offer.price.currency}/h, {_amount(over)} over your --max-price"
    if name == "max_rtt" and query.max_rtt_ms is not None and query.place() is not None:
        rtt = float(catalog.rtt_ms(query.place())[row])  # type: ignore[arg-type]
        return f", {rtt:.0f} ms away: {rtt - query.max_rtt_ms:.0f} ms over your --max-rtt"
    if name == "model" and query.model_vram_gib is not None:
        total = (offer.instance.gpu_memory_total_gib or 0) * query.nodes
        usable = float(catalog.model_vram(query.model_mode, query.nodes)[row])
        nodes, each = (f" on {query.nodes} nodes", " on each") if query.nodes > 1 else ("", "")
        if usable < total:  # inference: one copy on a tensor-parallel degree of the GPUs (facts.modelfit)
            from gpuhub.facts.modelfit import tensor_parallel_gpus

            used = tensor_parallel_gpus(offer.instance.gpu_count)
            return (f" with {total:g} GiB of VRAM{nodes}, of which one served copy can use {usable:g} GiB ({used:g} "
                    f"of its {offer.instance.gpu_count:g} GPUs{each}: tensor-parallel degrees are powers of two), "
                    f"{query.model_vram_gib - usable:.1f} GiB short of the model's need")
        return f" with {total:g} GiB of VRAM{nodes}, {query.model_vram_gib - total:.1f} GiB short of the model's need"
    if name == "max_carbon" and query.max_carbon_g_per_kwh is not None:
        return f" on a {catalog.carbon_intensity[row]:.0f} gCO2e/kWh grid"
    if name == "nodes":
        from gpuhub.answer.network import starvation_note

        return f": {starvation_note(offer, query.nodes)}"
    return ""
