"""Grouping ranked offers: distinct choices (one row per instance type and purchase model) and ``group_by``.

A group's figures come from **its own offers only**: its price range, its offer count and the regions that have
it (known fault C30: a group listing every region of its provider instead of the regions of the grouped offers).

- :func:`distinct` keeps the best-ranked offer of each (provider, instance type, purchase model, currency) and
  counts the other regions that sell the same choice: what the default CLI table shows ("+5 regions").
- :func:`group` makes one :class:`Group` per combination of ``group_by`` keys (``instance-type``, ``gpu``,
  ``provider``, ``region``; combinable, like dstack's ``offer --group-by``), in the order of each group's
  best-ranked offer.

Both read the catalog's integer-coded columns (:class:`~gpuhub.answer.catalog.Catalog`), so grouping 100,000 ranked rows
is a few numpy passes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gpuhub.answer.catalog import Catalog
from gpuhub.store.columns import sorted_distinct

if TYPE_CHECKING:
    from gpuhub.model import Offer

__all__ = ["Group", "channel_notes", "distinct", "group", "grouped"]

IntArray = npt.NDArray[np.int32]


def _codes(catalog: Catalog, key: str) -> list[npt.NDArray[np.int32]]:
    """The catalog columns that identify a group key (a region or instance type is one provider's)."""
    columns = {"provider": [catalog.seller.codes, catalog.provider.codes], "gpu": [catalog.gpu.codes],
               "instance-type": [catalog.seller.codes, catalog.provider.codes, catalog.instance_type.codes],
               "region": [catalog.seller.codes, catalog.provider.codes, catalog.region.codes],
               "purchase": [catalog.purchase.codes], "currency": [catalog.currency.codes]}
    return columns[key]


def _group_ids(catalog: Catalog, rows: IntArray, keys: tuple[str, ...]) -> npt.NDArray[np.intp]:
    """A group number per row (rows with equal keys share one); numbers follow first appearance in ``rows``."""
    columns = [c[rows] for k in keys for c in _codes(catalog, k)]
    widths = [int(c.max()) + 2 if len(c) else 1 for c in columns]  # codes are -1 (none) or more
    if math.prod(widths) < 2 ** 62:
        # one int64 per row, the codes as digits of a mixed radix: a 1-D unique sorts plain integers (unique with
        # axis=0 sorts structured rows, several times slower: most of a broad 100k-offer web search)
        key = np.zeros(len(rows), dtype=np.int64)
        for column, width in zip(columns, widths, strict=True):
            key = key * width + (column.astype(np.int64) + 1)
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    else:
        _, first, inverse = np.unique(np.vstack(columns).T, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    # Renumber so group 0 is the one whose first row ranks first.
    order = np.argsort(first, kind="stable")
    renumber = np.empty_like(order)
    renumber[order] = np.arange(len(order))
    result: npt.NDArray[np.intp] = renumber[inverse]
    return result


def distinct(catalog: Catalog, ranked: IntArray) -> tuple[npt.NDArray[np.intp], list[int]]:
    """Positions (into ``ranked``) of the best-ranked offer of each (provider, instance type, purchase model,
    currency), in rank order, and for each how many *other* regions of its own offers sell the same choice."""
    if len(ranked) == 0:
        return np.zeros(0, dtype=np.intp), []
    ids = _group_ids(catalog, ranked, ("instance-type", "purchase", "currency"))
    n = int(ids.max()) + 1
    positions = np.full(n, len(ranked), dtype=np.intp)
    np.minimum.at(positions, ids, np.arange(len(ranked), dtype=np.intp))
    # Each distinct (choice, region) pair once: one int64 key per row, sorted (np.unique over a 2-row array with
    # axis=1 sorted structured rows, three quarters of a 100k-offer web search).
    region = catalog.region.codes[ranked].astype(np.int64) + 1  # -1 (no region) becomes 0
    width = int(region.max()) + 1
    firsts = sorted_distinct(ids.astype(np.int64) * width + region)
    regions = np.bincount(firsts // width, minlength=n)
    return positions, [int(r) - 1 for r in regions]


@dataclass
class Group:
    """One group of offers: its keys, the offers' count, price range and regions, and its best-ranked offer.

    ``price_min``/``price_max`` are per instance-hour in ``currency`` (a group never mixes currencies);
    ``regions`` are ``provider:region`` codes of the group's own offers, sorted; ``best`` is the group's
    best-ranked offer (its position in the ranking is ``rank``, 0-based).
    """

    keys: dict[str, str]
    offers: int
    price_min: Decimal
    price_max: Decimal
    currency: str
    regions: list[str]
    best: Offer
    rank: int
    available: int
    sold_out: int

    def to_record(self) -> dict[str, Any]:
        """JSON-ready: keys, ``offers``, ``price_min``, ``price_max``, ``currency``, ``regions``, ``region_count``,
        ``available``/``sold_out`` counts and the best offer's ``provider``/``instance_type``/``region``/``purchase``/
        ``price_per_hour``."""
        best = self.best
        return {**{k.replace("-", "_"): v for k, v in self.keys.items()}, "offers": self.offers,
                "price_min": float(self.price_min), "price_max": float(self.price_max), "currency": self.currency,
                "region_count": len(self.regions), "regions": self.regions, "available": self.available,
                "sold_out": self.sold_out, "best_provider": best.provider, "best_instance_type": best.instance_type,
                "best_region": best.region.code, "best_purchase": best.price.purchase,
                "best_price_per_hour": float(best.price.amount)}


def group(catalog: Catalog, ranked: IntArray, keys: tuple[str, ...]) -> list[Group]:
    """One :class:`Group` per combination of ``keys`` among ``ranked`` rows (best-ranked first), in the order of
    each group's best-ranked offer. Offers in different currencies never share a group."""
    return grouped(catalog, ranked, keys)[0]


def grouped(catalog: Catalog, ranked: IntArray, keys: tuple[str, ...],
            limit: int | None = None) -> tuple[list[Group], npt.NDArray[np.intp]]:
    """The first ``limit`` groups of :func:`group` (every group with None), and the position in ``ranked`` of every
    group's best-ranked offer, in group order (a search counts and ranks all groups, and shows ``limit``)."""
    if len(ranked) == 0:
        return [], np.zeros(0, dtype=np.intp)
    ids = _group_ids(catalog, ranked, (*keys, "currency"))
    members: dict[int, list[int]] = {}
    for position, gid in enumerate(ids.tolist()):
        members.setdefault(gid, []).append(position)
    starts = np.asarray([members[gid][0] for gid in range(len(members))], dtype=np.intp)
    out = []
    available = catalog.available
    for gid in range(len(members) if limit is None else min(limit, len(members))):
        positions = members[gid]
        rows = ranked[np.asarray(positions, dtype=np.intp)]
        # Models only for the best offer and the two that hold the price range (the price column orders them
        # as their exact amounts do); counts and regions come from the columns.
        best = catalog.offers[int(rows[0])]
        prices = catalog.price[rows]
        label: dict[str, str] = {}
        for k in keys:  # an instance type or a region is one provider's: name the provider too
            if k in ("provider", "instance-type", "region"):
                label["provider"] = best.instance.channel
            if k == "instance-type":
                label["instance-type"] = best.instance_type
            elif k == "region":
                label["region"] = best.region.code
            elif k == "gpu":
                label["gpu"] = best.instance.gpu.name if best.instance.gpu else "-"
        out.append(Group(
            keys=label, offers=len(rows),
            price_min=catalog.offers[int(rows[int(np.argmin(prices))])].price.amount,
            price_max=catalog.offers[int(rows[int(np.argmax(prices))])].price.amount, currency=best.price.currency,
            regions=catalog.region_labels(rows), best=best, rank=positions[0],
            available=int(np.count_nonzero(available[rows] == 1)),
            sold_out=int(np.count_nonzero(available[rows] == 0))))
    return out, starts


def channel_notes(offers: Sequence[Offer]) -> list[str]:
    """One line per machine that ``offers`` show through more than one channel (the same seller's instance type
    directly and through an aggregator, :attr:`~gpuhub.model.Instance.machine`), naming each channel's lowest
    price per purchase model: ``lambda gpu_8x_a100_80gb_sxm4 (on_demand) is one machine through 2 channels:
    lambda 14.32 USD/h, lambda via primeintellect 14.32 USD/h``."""
    seen: dict[tuple[str, str, str], dict[str, Offer]] = {}
    for offer in offers:
        inst = offer.instance
        key = (inst.machine, offer.price.purchase, offer.price.currency)
        channels = seen.setdefault(key, {})
        best = channels.get(inst.channel)
        if best is None or offer.price.amount < best.price.amount:
            channels[inst.channel] = offer
    lines = []
    for (machine, purchase, currency), channels in seen.items():
        if len(channels) < 2:
            continue
        seller, instance_type = machine.split(":", 1)
        prices = ", ".join(f"{name} {_cents(o.price.amount)} {currency}/h" for name, o in channels.items())
        lines.append(f"{seller} {instance_type} ({purchase}) is one machine through {len(channels)} channels: "
                     f"{prices}")
    return lines


def _cents(amount: Decimal) -> str:
    """An amount with at least two decimals, as the table prints prices (``1.9`` -> ``1.90``)."""
    return f"{amount:.2f}" if amount == amount.quantize(Decimal("0.01")) else str(amount)
