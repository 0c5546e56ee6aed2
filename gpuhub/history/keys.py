"""Offer identity across snapshots: what makes two rows of two snapshots "the same offer".

An offer is identified by provider, instance type, region, zone, purchase model, currency, term length and payment
option. Its price (amount, upfront) is what may change; everything else about the instance is carried along for
filters (GPU name and count).

Rows of a snapshot (:class:`~gpuhub.store.columns.OfferColumns`) point at small tables (instances, regions, price
terms). Identity is computed once per table row, then combined per row as one int64, so joining two snapshots of
100,000 offers is a few numpy operations.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from gpuhub.store.columns import OfferColumns

__all__ = ["KEY_FIELDS", "Interner", "RowKeys", "amount", "describe_row", "row_keys"]

KEY_FIELDS = ("provider", "instance_type", "region", "zone", "purchase", "currency", "term")
"""The identity of an offer (``term``: ``"<term_hours>|<payment_option>"``, empty for on-demand and spot)."""


def _instance_key(item: dict[str, Any]) -> tuple[str, str]:
    return str(item.get("provider") or ""), str(item.get("instance_type") or "")


def _region_key(item: dict[str, Any]) -> tuple[str, str]:
    return str(item.get("code") or ""), str(item.get("zone") or "")


def _terms_key(item: dict[str, Any]) -> tuple[str, str, str]:
    hours, option = item.get("term_hours"), item.get("payment_option")
    term = "" if hours is None and option is None else f"{hours if hours is not None else ''}|{option or ''}"
    return str(item.get("purchase") or ""), str(item.get("currency") or ""), term


class Interner:
    """Gives each distinct instance, region and terms identity one small id, shared by every snapshot keyed with
    the same interner (so keys of two snapshots compare as integers)."""

    def __init__(self) -> None:
        self.instances: dict[tuple[str, str], int] = {}
        self.regions: dict[tuple[str, str], int] = {}
        self.terms: dict[tuple[str, str, str], int] = {}

    @staticmethod
    def _ids(table: list[dict[str, Any]], ids: dict[Any, int], key: Any) -> npt.NDArray[np.int64]:
        out = np.empty(len(table), dtype=np.int64)
        for i, item in enumerate(table):
            out[i] = ids.setdefault(key(item), len(ids))
        return out

    def keys(self, columns: OfferColumns) -> RowKeys:
        """The int64 identity of every row of ``columns`` (and the per-table ids it was made of)."""
        t = columns.tables
        inst = self._ids(t["instances"], self.instances, _instance_key)
        reg = self._ids(t["regions"], self.regions, _region_key)
        terms = self._ids(t["terms"], self.terms, _terms_key)
        c = columns.columns
        return RowKeys(columns, inst[c["instance"]], reg[c["region"]], terms[c["terms"]], self)


@dataclass
class RowKeys:
    """Identity parts of each row: interned instance, region and terms ids, and their combination ``key``."""

    columns: OfferColumns
    instance: npt.NDArray[np.int64]
    region: npt.NDArray[np.int64]
    terms: npt.NDArray[np.int64]
    interner: Interner

    @property
    def key(self) -> npt.NDArray[np.int64]:
        # 2^20 regions and 2^16 terms per interner are far beyond any catalog; instance ids take the top 27 bits.
        """Each row's int64 identity: instance id (top bits), region id (20 bits), price-terms id (16 bits)."""
        key: npt.NDArray[np.int64] = (self.instance << np.int64(36)) | (self.region << np.int64(16)) | self.terms
        return key

    def unique(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.intp], int]:
        """Sorted distinct keys, the first row of each, and how many rows repeated an earlier row's identity."""
        keys, first = np.unique(self.key, return_index=True)
        return keys, first, len(self.key) - len(keys)


def row_keys(columns: OfferColumns, interner: Interner | None = None) -> RowKeys:
    """Identity of every row of ``columns`` (a fresh interner unless one is shared)."""
    return (interner or Interner()).keys(columns)


def describe_row(columns: OfferColumns, row: int) -> dict[str, Any]:
    """The identity and filter fields of one row, JSON-ready (gpu_count as a number, term as text)."""
    t, c = columns.tables, columns.columns
    inst = t["instances"][int(c["instance"][row])]
    region = t["regions"][int(c["region"][row])]
    terms = t["terms"][int(c["terms"][row])]
    purchase, currency, term = _terms_key(terms)
    gpu = inst.get("gpu") or {}
    return {"provider": inst.get("provider"), "instance_type": inst.get("instance_type"),
            "region": region.get("code"), "zone": region.get("zone"), "purchase": purchase, "currency": currency,
            "term": term, "gpu_name": gpu.get("name"), "gpu_count": inst.get("gpu_count")}


def amount(columns: OfferColumns, row: int) -> Decimal:
    """The exact published price per instance-hour of ``row``."""
    return Decimal(columns.tables["amounts"][int(columns.columns["amount"][row])])
