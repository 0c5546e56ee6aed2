"""Explanations: why an offer ranks where it does, and what each filter took away.

Every sentence is built from the figures the ranking used (price, throughput, distance, grid intensity, model
fit), so it can be checked by hand.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import numpy as np
import numpy.typing as npt

from gpuhub.carbon import carbon_note
from gpuhub.catalog import Catalog
from gpuhub.gpus import GpuTable
from gpuhub.model import Offer
from gpuhub.perf import price_performance
from gpuhub.query import Query
from gpuhub.ranking import Ranker

__all__ = ["offer_details", "removed_notes"]


def _label(offer: Offer) -> str:
    zone = f"/{offer.region.zone}" if offer.region.zone else ""
    return f"{offer.provider} {offer.instance_type} in {offer.region.code}{zone} ({offer.price.purchase})"


def _gpus(offer: Offer) -> str:
    gpu = offer.instance.gpu
    return f"{offer.instance.gpu_count:g} × {gpu.name if gpu else 'no GPU'}"


def _amount(value: Decimal) -> str:
    """A published price without trailing zeros (55.0400000000 → 55.04), never in exponent form."""
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _num(value: float) -> str:
    return f"{value:.4g}" if abs(value) < 0.01 else (f"{value:.4f}".rstrip("0").rstrip(".") if value < 100
                                                      else f"{value:,.0f}")


def offer_details(catalog: Catalog, row: int, score: float, next_score: float | None, next_row: int | None,
                  ranker: Ranker, query: Query, gpus: GpuTable) -> dict[str, Any]:
    """Score, explanation and figures for one ranked offer (``row`` in ``catalog``)."""
    offer = catalog.offers[row]
    figures = price_performance(offer, gpus)
    parts: list[str] = []
    money = offer.price.currency
    if ranker.name in ("price", "price_per_gpu", "price_per_vram") or math.isnan(score):
        per_gpu = offer.price_per_gpu_hour
        text = f"{_gpus(offer)} at {_amount(offer.price.amount)} {money}/h"
        if per_gpu is not None and offer.instance.gpu_count != 1:
            text += f" ({_num(float(per_gpu))} per GPU-hour)"
        parts.append(text)
    else:
        unit = ranker.unit.replace("USD", money)
        parts.append(f"{_gpus(offer)} at {_num(score)} {unit}")
    place = query.place()
    rtt = None
    if place is not None:
        rtt = float(catalog.rtt_ms(place)[row])
        if not math.isnan(rtt):
            parts.append(f"{rtt:.0f} ms from {place.label}")
    parts.append(carbon_note(offer.provider, offer.region.code))
    risk = offer.obtain.risk if offer.obtain is not None else None
    if risk is not None and offer.price.purchase in ("spot", "low_priority"):  # gpuhub.obtain
        from gpuhub.obtain.cost import risk_note

        parts.append(risk_note(risk, query.checkpoint_every_h, ranker.name == "training"))
    fit = query.fit()
    split = None
    if fit is not None and offer.instance.gpu_memory_gib:
        needed = fit.gpus_needed(offer.instance.gpu_memory_gib)
        split = needed > 1
        if split:
            parts.append(f"the model ({fit.total_gib:.1f} GiB) must be split across {needed} GPUs")
        else:
            parts.append(f"the model ({fit.total_gib:.1f} GiB) fits on one GPU")
    if next_row is not None and next_score is not None and not math.isnan(score) and not math.isnan(next_score):
        if next_score > score > 0:
            parts.append(f"the next, {_label(catalog.offers[next_row])}, scores "
                         f"{(next_score - score) / score * 100:.1f} % higher")
        elif next_score == score:
            parts.append(f"ties with the next, {_label(catalog.offers[next_row])}")
    carbon = float(catalog.carbon_g_per_h[row])
    return {
        "score": None if math.isnan(score) else score,
        "score_unit": ranker.unit,
        "explanation": "; ".join(parts),
        "rtt_ms": None if rtt is None or math.isnan(rtt) else round(rtt, 1),
        "carbon_g_per_hour": None if math.isnan(carbon) else round(carbon, 1),
        "model_split": split,
        **{k: (round(v, 8) if v is not None else None) for k, v in figures.items()},
    }


def removed_notes(catalog: Catalog, masks: list[tuple[str, npt.NDArray[np.bool_]]], ranker: Ranker,
                  query: Query) -> list[str]:
    """For each filter that removed offers, the best offer it alone removed and by how much it missed."""
    notes: list[str] = []
    if not masks:
        return notes
    stacked = np.vstack([m for _, m in masks])
    for i, (name, mask) in enumerate(masks):
        others = np.delete(stacked, i, axis=0).all(axis=0) if len(masks) > 1 else np.ones(len(mask), dtype=bool)
        only_this = np.flatnonzero(others & ~mask).astype(np.int32)
        if len(only_this) == 0:
            continue
        best_rows, _ = catalog.rank(only_this, ranker, query, limit=1)
        row = int(best_rows[0])
        notes.append(f"--{name.replace('_', '-')} alone removed {len(only_this)}; the best of them: "
                     f"{_label(catalog.offers[row])}{_miss(catalog, row, name, query)}")
    return notes


def _miss(catalog: Catalog, row: int, name: str, query: Query) -> str:
    offer = catalog.offers[row]
    if name == "max_price" and query.max_price_per_hour is not None:
        over = offer.price.amount - query.max_price_per_hour
        return f" at {_amount(offer.price.amount)} {offer.price.currency}/h, {_amount(over)} over your --max-price"
    if name == "max_rtt" and query.max_rtt_ms is not None and query.place() is not None:
        rtt = float(catalog.rtt_ms(query.place())[row])  # type: ignore[arg-type]
        return f", {rtt:.0f} ms away: {rtt - query.max_rtt_ms:.0f} ms over your --max-rtt"
    if name == "model" and query.model_vram_gib is not None:
        total = offer.instance.gpu_memory_total_gib or 0
        return f" with {total:g} GiB of VRAM, {query.model_vram_gib - total:.1f} GiB short of the model's need"
    if name == "max_carbon" and query.max_carbon_g_per_kwh is not None:
        return f" on a {catalog.carbon_intensity[row]:.0f} gCO2e/kWh grid"
    return ""
