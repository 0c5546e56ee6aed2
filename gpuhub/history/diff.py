"""Change reports between two states of the catalog: prices up and down (with the percentage), offers new and gone,
regions and GPU types that appeared or went away, and providers whose status changed.

The two states are snapshots of each provider (see :mod:`gpuhub.store`); the join runs on integer identities
(:mod:`gpuhub.history.keys`), so two snapshots of 100,000 offers compare in well under a second.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np

from gpuhub.history.keys import Interner, amount, describe_row

if TYPE_CHECKING:
    from gpuhub.store import Snapshot
    from gpuhub.store.columns import OfferColumns

__all__ = ["DiffReport", "OfferFilter", "PriceChange", "ProviderSide", "diff_columns", "diff_states"]


@dataclass(frozen=True)
class OfferFilter:
    """The search filters history, diff and watch share: exact instance types, canonical GPU names, providers,
    region or zone codes (case-insensitive), purchase models. Empty means any."""

    instance_types: tuple[str, ...] = ()
    gpus: tuple[str, ...] = ()
    providers: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()
    purchases: tuple[str, ...] = ()

    @property
    def narrows(self) -> bool:
        """True when the filter leaves out some offers of a provider it keeps (any filter but ``providers``)."""
        return bool(self.instance_types or self.gpus or self.regions or self.purchases)

    def matches(self, offer: Mapping[str, Any]) -> bool:
        """Whether an offer record (``provider``, ``instance_type``, ``region``, ``zone``, ``purchase``,
        ``gpu_name``) passes every filter."""
        if self.providers and offer.get("provider") not in self.providers:
            return False
        if self.instance_types and offer.get("instance_type") not in self.instance_types:
            return False
        if self.gpus and offer.get("gpu_name") not in self.gpus:
            return False
        if self.purchases and offer.get("purchase") not in self.purchases:
            return False
        if self.regions:
            wanted = {r.lower() for r in self.regions}
            if str(offer.get("region") or "").lower() not in wanted and \
                    str(offer.get("zone") or "").lower() not in wanted:
                return False
        return True

    def to_dict(self) -> dict[str, list[str]]:
        """The filters as JSON-ready lists, one per argument (empty: any)."""
        return {"instance_type": list(self.instance_types), "gpu": list(self.gpus),
                "provider": list(self.providers), "region": list(self.regions), "purchase": list(self.purchases)}


@dataclass(frozen=True)
class PriceChange:
    """One offer that changed: ``kind`` is ``up``, ``down``, ``new`` or ``gone``; prices are exact, per
    instance-hour, in ``offer["currency"]``; ``offer`` holds the identity and GPU fields."""

    kind: str
    offer: dict[str, Any]
    old_price: Decimal | None
    new_price: Decimal | None

    @property
    def change_pct(self) -> float | None:
        """(new - old) / old in percent, for ``up``/``down``; None for new and gone offers."""
        if self.old_price is None or self.new_price is None or not self.old_price:
            return None
        return float((self.new_price - self.old_price) / self.old_price * 100)

    def to_dict(self) -> dict[str, Any]:
        """The change as JSON-ready values: kind, the offer's identity, old and new price per hour (floats, the offer's
        currency) and the change in percent (4 decimals).
        """
        pct = self.change_pct
        return {"change": self.kind, **self.offer,
                "old_price_per_hour": float(self.old_price) if self.old_price is not None else None,
                "new_price_per_hour": float(self.new_price) if self.new_price is not None else None,
                "change_pct": round(pct, 4) if pct is not None else None}


@dataclass(frozen=True)
class ProviderSide:
    """The two snapshots compared for one provider (either may be missing) and the provider's status then."""

    provider: str
    old: Snapshot | None
    new: Snapshot | None
    old_state: str | None = None
    new_state: str | None = None
    new_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The provider's two snapshots (id, fetch time, data date, source kind; None where missing) as JSON-ready
        values.
        """
        def side(s: Snapshot | None) -> dict[str, Any] | None:
            if s is None:
                return None
            return {"snapshot": s.id, "fetched_at": s.fetched_at.isoformat(timespec="seconds"),
                    "data_date": s.data_date.isoformat() if s.data_date else None, "source_kind": s.source_kind,
                    "offers": s.offers, "content_hash": s.content_hash}

        return {"provider": self.provider, "old": side(self.old), "new": side(self.new),
                "old_state": self.old_state, "new_state": self.new_state, "new_reason": self.new_reason}


@dataclass
class DiffReport:
    """What changed between two states of the catalog (see the module docstring)."""

    changes: list[PriceChange] = field(default_factory=list)
    unchanged: int = 0
    regions_appeared: dict[str, list[str]] = field(default_factory=dict)
    regions_gone: dict[str, list[str]] = field(default_factory=dict)
    gpus_appeared: dict[str, list[str]] = field(default_factory=dict)
    gpus_gone: dict[str, list[str]] = field(default_factory=dict)
    sides: list[ProviderSide] = field(default_factory=list)
    duplicates: int = 0
    """Rows that repeated an earlier row's identity in one snapshot (the first one is compared)."""

    @property
    def status_changes(self) -> list[ProviderSide]:
        """Providers whose status (ok, failed, ...) differs between the two states."""
        return [s for s in self.sides if s.old_state != s.new_state]

    def counts(self) -> dict[str, int]:
        """Changes by kind: ``up``, ``down``, ``new``, ``gone`` and ``unchanged`` rows."""
        out = {"up": 0, "down": 0, "new": 0, "gone": 0}
        for change in self.changes:
            out[change.kind] += 1
        return {**out, "unchanged": self.unchanged}

    def filtered(self, offer_filter: OfferFilter) -> DiffReport:
        """The same report restricted to offers passing ``offer_filter`` (regions, GPUs and statuses kept)."""
        return DiffReport([c for c in self.changes if offer_filter.matches(c.offer)], self.unchanged,
                          self.regions_appeared, self.regions_gone, self.gpus_appeared, self.gpus_gone, self.sides,
                          self.duplicates)

    def to_dict(self) -> dict[str, Any]:
        """The diff as JSON-ready values (``gpuhub diff --format json``): counts, changes, regions and GPUs that
        appeared or went, status changes, the providers' snapshots, duplicate rows.
        """
        return {"counts": self.counts(), "changes": [c.to_dict() for c in self.changes],
                "regions_appeared": self.regions_appeared, "regions_gone": self.regions_gone,
                "gpus_appeared": self.gpus_appeared, "gpus_gone": self.gpus_gone,
                "status_changes": [s.to_dict() for s in self.status_changes],
                "providers": [s.to_dict() for s in self.sides], "duplicate_rows": self.duplicates}


def _used(columns: OfferColumns | None, table: str, column: str, name: str) -> set[str]:
    if columns is None or not len(columns):
        return set()
    used = np.unique(columns.columns[column])
    out = set()
    for code in used.tolist():
        item = columns.tables[table][code]
        value = (item.get("gpu") or {}).get("name") if name == "gpu" else item.get(name)
        if value:
            out.add(str(value))
    return out


def diff_columns(old: OfferColumns | None, new: OfferColumns | None, interner: Interner | None = None,
                 report: DiffReport | None = None, provider: str = "",
                 offer_filter: OfferFilter | None = None) -> DiffReport:
    """Add the changes from ``old`` to ``new`` (one provider's offers; either may be None: no offers) to
    ``report`` (a new one by default) and return it. With ``offer_filter``, only the unchanged offers that pass
    it are counted unchanged (the changes are all listed: :meth:`DiffReport.filtered` keeps the passing ones)."""
    report = report if report is not None else DiffReport()
    interner = interner or Interner()
    empty = np.zeros(0, dtype=np.int64)
    if old is not None and len(old):
        ko, fo, dup_o = interner.keys(old).unique()
    else:
        ko, fo, dup_o = empty, empty.astype(np.intp), 0
    if new is not None and len(new):
        kn, fn, dup_n = interner.keys(new).unique()
    else:
        kn, fn, dup_n = empty, empty.astype(np.intp), 0
    report.duplicates += dup_o + dup_n
    _, io, in_ = np.intersect1d(ko, kn, assume_unique=True, return_indices=True)
    if old is not None and new is not None and len(io):
        rows_o, rows_n = fo[io], fn[in_]
        po, pn = old.columns["price"][rows_o], new.columns["price"][rows_n]
        differ = po != pn
        if offer_filter is not None and offer_filter.narrows:
            report.unchanged += sum(1 for rn in rows_n[~differ].tolist()
                                    if offer_filter.matches(describe_row(new, rn)))
        else:
            report.unchanged += int(len(io) - np.count_nonzero(differ))
        for ro, rn in zip(rows_o[differ].tolist(), rows_n[differ].tolist(), strict=True):
            a, b = amount(old, ro), amount(new, rn)
            report.changes.append(PriceChange("up" if b > a else "down", describe_row(new, rn), a, b))
    if new is not None:
        gained = np.ones(len(kn), dtype=np.bool_)
        gained[in_] = False
        for rn in fn[gained].tolist():
            report.changes.append(PriceChange("new", describe_row(new, rn), None, amount(new, rn)))
    if old is not None:
        lost = np.ones(len(ko), dtype=np.bool_)
        lost[io] = False
        for ro in fo[lost].tolist():
            report.changes.append(PriceChange("gone", describe_row(old, ro), amount(old, ro), None))
    for attr_new, attr_gone, table, column, name in (
            (report.regions_appeared, report.regions_gone, "regions", "region", "code"),
            (report.gpus_appeared, report.gpus_gone, "instances", "instance", "gpu")):
        before, after = _used(old, table, column, name), _used(new, table, column, name)
        if after - before and old is not None and len(old):
            attr_new[provider] = sorted(after - before)
        if before - after and new is not None and len(new):
            attr_gone[provider] = sorted(before - after)
    return report


def _state(snapshot: Snapshot | None) -> str | None:
    if snapshot is None:
        return None
    state = snapshot.status.get("state") if isinstance(snapshot.status, dict) else None
    return str(state) if state else ("ok" if snapshot.complete else "failed")


def diff_states(pairs: Iterable[tuple[str, Snapshot | None, Snapshot | None]],
                read: Any, *, latest: Mapping[str, Sequence[Snapshot | None]] | None = None,
                offer_filter: OfferFilter | None = None) -> DiffReport:
    """Compare, per provider, an old and a new complete snapshot (``read(snapshot) -> OfferColumns``).

    ``latest`` maps a provider to its (older, newer) newest snapshots of any kind, for the status comparison; by
    default the compared snapshots' own statuses are used. A provider whose two snapshots share a content hash is
    counted unchanged without reading its offers, unless ``offer_filter`` narrows the offers (a region, a GPU, ...):
    then only the unchanged offers passing it count.
    """
    report = DiffReport()
    interner = Interner()
    for provider, old, new in pairs:
        statuses = (latest or {}).get(provider) or (old, new)
        report.sides.append(ProviderSide(provider, old, new, _state(statuses[0]), _state(statuses[1]),
                                         (statuses[1].status.get("reason") if statuses[1] is not None else None)))
        narrow = offer_filter is not None and offer_filter.narrows
        if old is not None and new is not None and old.content_hash and old.content_hash == new.content_hash \
                and not narrow:
            report.unchanged += new.offers
            continue
        diff_columns(read(old) if old is not None and old.content_hash else None,
                     read(new) if new is not None and new.content_hash else None, interner, report, provider,
                     offer_filter)
    report.changes.sort(key=lambda c: (c.offer.get("provider") or "", c.kind, c.offer.get("instance_type") or "",
                                       c.offer.get("region") or "", c.offer.get("zone") or "",
                                       c.offer.get("purchase") or ""))
    return report
