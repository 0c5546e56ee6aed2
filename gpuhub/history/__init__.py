"""Price history, change reports and watches over the offer store (local SQLite or a team's PostgreSQL).

- :func:`history`: each offer's (or group's) price at every change, min / median / max over a window;
- :func:`diff`: what changed between two states of the catalog (default: the two newest snapshots of each
  provider);
- :func:`watch`: a diff plus thresholds, for cron and CI (``matched`` tells whether anything crossed one).

The data comes from the store's snapshots and its price-change log (:mod:`gpuhub.history.log`); nothing is
fetched from a provider here.

May import: :mod:`gpuhub.fetch` (the plugins' GPU table), :mod:`gpuhub.store`, :mod:`gpuhub.answer`,
:mod:`gpuhub.facts` and the bottom; never :mod:`gpuhub.publish`, :mod:`gpuhub.service` or a surface.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from gpuhub.errors import QueryError
from gpuhub.history.diff import DiffReport, OfferFilter, PriceChange, diff_states
from gpuhub.history.series import GROUPS, HistoryResult, PricePoint, PriceSeries, group_series, parse_since

if TYPE_CHECKING:
    from gpuhub.store import Snapshot, Store

__all__ = ["GROUPS", "DiffReport", "HistoryResult", "OfferFilter", "PriceChange", "PricePoint", "PriceSeries",
           "WatchReport", "WatchRules", "diff", "history", "make_filter", "watch"]


def _texts(name: str, value: str | Sequence[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else list(value)
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise QueryError(name, f"expected text or a list of text, got {item!r}")
        out.extend(p.strip() for p in item.split(",") if p.strip())
    if items and not out:
        raise QueryError(name, "is empty; leave it out to include every one")
    return tuple(dict.fromkeys(out))


def make_filter(*, instance_type: str | Sequence[str] | None = None, gpu: str | Sequence[str] | None = None,
                provider: str | Sequence[str] | None = None, region: str | Sequence[str] | None = None,
                purchase: str | Sequence[str] | None = None) -> OfferFilter:
    """Validate the shared filters (GPU names resolve through the GPU table: aliases and canonical names).

    Raises:
        QueryError: an unknown GPU name (with the closest names) or purchase model, or an empty value.
    """
    from gpuhub.purchase import known_purchase_models

    gpus = _texts("gpu", gpu)
    if gpus:
        from gpuhub.facts.gpus import UnknownGpuError
        from gpuhub.fetch.plugins import get_registry

        table = get_registry().gpus
        try:
            gpus = tuple(dict.fromkeys(table.lookup_form(g)[0] for g in gpus))
        except UnknownGpuError as exc:
            raise QueryError("gpu", str(exc)) from None
    purchases = tuple(p.lower().replace("-", "_") for p in _texts("purchase", purchase))
    allowed = known_purchase_models()
    for p in purchases:
        if p not in allowed:
            raise QueryError("purchase", f"{p!r} is not allowed; allowed values: {', '.join(allowed)}")
    return OfferFilter(_texts("instance_type", instance_type), gpus, _texts("provider", provider),
                       _texts("region", region), purchases)


def _open(store: Store | None) -> Store:
    from gpuhub.store import StoreError, open_store

    if store is not None:
        return store
    opened = open_store()
    if opened is None:
        raise StoreError("the offer store is off (GPUHUB_STORE=off): history needs a store")
    return opened


def history(*, instance_type: str | Sequence[str] | None = None, gpu: str | Sequence[str] | None = None,
            provider: str | Sequence[str] | None = None, region: str | Sequence[str] | None = None,
            purchase: str | Sequence[str] | None = None, since: str | dt.datetime | None = "30d",
            group: str = "offer", store: Store | None = None) -> HistoryResult:
    """Price history from the store: one :class:`PriceSeries` per offer (or per group) with the price at each
    change.

    Args:
        instance_type, gpu, provider, region, purchase: the search filters (exact instance types; GPU names or
            aliases; region or zone codes; purchase models such as ``on_demand``, ``spot``).
        since: the window: a duration (``30d``, ``12h``), an ISO date, a datetime, or None for everything kept.
            Series with no price in the window are left out.
        group: ``offer`` (default), ``instance_type``, ``gpu``, ``provider`` or ``region`` (a group's price is
            its cheapest offer's).
        store: a store (default: :func:`gpuhub.store.open_store`, i.e. ``GPUHUB_STORE``).

    Returns:
        A :class:`HistoryResult`; ``result.points()`` is a list of dicts, ``result.to_dataframe()`` a pandas
        DataFrame when pandas is installed.

    Raises:
        QueryError: a bad argument (named, with the allowed values).
        StoreError: the store is off or cannot be read.
    """
    from gpuhub.history.log import open_history, sync

    offer_filter = make_filter(instance_type=instance_type, gpu=gpu, provider=provider, region=region,
                               purchase=purchase)
    if group not in GROUPS:
        raise QueryError("group", f"{group!r} is not allowed; allowed values: {', '.join(GROUPS)}")
    try:
        start = parse_since(since) if isinstance(since, str) else since
    except ValueError as exc:
        raise QueryError("since", str(exc)) from None
    opened = _open(store)
    sync(opened)
    log = open_history(opened)
    series = []
    for offer, raw in log.query(offer_filter):
        points = [PricePoint(dt.datetime.fromtimestamp(at, dt.timezone.utc),
                             Decimal(amount) if amount is not None else None, snap) for at, snap, amount in raw]
        s = PriceSeries(offer, points)
        window = s.window(start)
        if any(p.price is not None for p in window):
            series.append(s)
    folds = log.folds()
    providers = set(offer_filter.providers)
    count = sum(1 for f in folds if not providers or f[0] in providers)
    return HistoryResult(group_series(series, group), start, group, count)


# --- diff ------------------------------------------------------------------------------------------------------
def _resolve(selector: str | int | None, snapshots: list[Snapshot], name: str) -> tuple[str, Any]:
    """``("latest", None)``, ``("id", Snapshot)`` or ``("time", datetime)``."""
    if selector is None:
        return "latest", None
    text = str(selector).strip()
    if text.isdigit():
        found = [s for s in snapshots if s.id == int(text)]
        if not found:
            raise QueryError(name, f"no snapshot {text} in the store (see 'gpuhub store show')")
        return "id", found[0]
    try:
        return "time", parse_since(text)
    except ValueError as exc:
        raise QueryError(name, f"expected a snapshot id, a duration like 1d or a date: {exc}") from None


def diff(old: str | int | None = None, new: str | int | None = None, *, store: Store | None = None,
         provider: str | Sequence[str] | None = None, offer_filter: OfferFilter | None = None) -> DiffReport:
    """What changed between two states of the catalog.

    Args:
        old, new: each a snapshot id (that snapshot, for its provider), a duration or date (``1d``,
            ``2026-11-30``: each provider's newest good snapshot at that time), or None. Defaults: ``new`` is each
            provider's newest good snapshot, ``old`` the good snapshot before it.
        provider: only these providers.
        store: a store (default: ``GPUHUB_STORE``).
        offer_filter: only the offers passing it (:func:`make_filter`): its changes, and its unchanged count.

    Raises:
        QueryError: a selector names no snapshot, or is neither an id nor a time.
        StoreError: the store is off or cannot be read.
    """
    opened = _open(store)
    snapshots = opened.snapshots()  # newest first
    kind_old, old_sel = _resolve(old, snapshots, "old")
    kind_new, new_sel = _resolve(new, snapshots, "new")
    wanted = set(_texts("provider", provider))
    if kind_new == "id" or kind_old == "id":
        names = {s.provider for s in (old_sel, new_sel) if (kind_old == "id" and s is old_sel) or
                 (kind_new == "id" and s is new_sel)}
        if len(names) > 1:
            raise QueryError("old", f"snapshots {getattr(old_sel, 'id', '')} and {getattr(new_sel, 'id', '')} are "
                                    "of different providers")
        wanted = wanted or names
    by_provider: dict[str, list[Snapshot]] = {}
    for s in snapshots:
        if not wanted or s.provider in wanted:
            by_provider.setdefault(s.provider, []).append(s)
    pairs: list[tuple[str, Snapshot | None, Snapshot | None]] = []
    latest: dict[str, tuple[Snapshot | None, Snapshot | None]] = {}
    for name in sorted(by_provider):
        every = by_provider[name]
        good = [s for s in every if s.complete]

        def at_or_before(when: dt.datetime, items: list[Snapshot]) -> Snapshot | None:
            return next((s for s in items if s.fetched_at <= when), None)

        if kind_new == "id":
            new_snap: Snapshot | None = new_sel
        elif kind_new == "time":
            new_snap = at_or_before(new_sel, good)
        else:
            new_snap = good[0] if good else None
        if kind_old == "id":
            old_snap: Snapshot | None = old_sel
        elif kind_old == "time":
            old_snap = at_or_before(old_sel, good)
        else:
            older = [s for s in good if new_snap is not None and (s.fetched_at, s.id) < (new_snap.fetched_at,
                                                                                         new_snap.id)]
            old_snap = older[0] if older else None
        pairs.append((name, old_snap, new_snap))
        if kind_new == "latest" and kind_old == "latest":
            latest[name] = (every[1] if len(every) > 1 else None, every[0])
    report = diff_states(pairs, opened.read_columns, latest=latest, offer_filter=offer_filter)
    return report.filtered(offer_filter) if offer_filter is not None else report


# --- watch -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class WatchRules:
    """Thresholds of a watch; any rule that matches makes the watch match.

    Attributes:
        drop_pct: a price fell by at least this many percent. rise_pct: a price rose by at least this many percent.
        below: an offer's price went below this amount per instance-hour (it was not below before, or is new).
        new_gpu: these GPU types appeared (canonical names; ``*`` for any new GPU type).
        new_offers: any offer appeared. gone_offers: any offer went away.
        provider_failed: a provider's status changed to failed or stale.
    """

    drop_pct: float | None = None
    rise_pct: float | None = None
    below: Decimal | None = None
    new_gpu: tuple[str, ...] = ()
    new_offers: bool = False
    gone_offers: bool = False
    provider_failed: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The rules as JSON-ready values (``below`` as a float in the offer's currency per hour)."""
        return {"drop_pct": self.drop_pct, "rise_pct": self.rise_pct,
                "below": float(self.below) if self.below is not None else None, "new_gpu": list(self.new_gpu),
                "new_offers": self.new_offers, "gone_offers": self.gone_offers,
                "provider_failed": self.provider_failed}


def parse_percent(name: str, text: str | float | None) -> float | None:
    """``10%``, ``10`` or ``0.1`` never mean the same silently: ``10%`` and ``10`` are ten percent.

    Raises:
        QueryError: not a positive number.
    """
    if text is None:
        return None
    raw = str(text).strip().rstrip("%")
    try:
        value = float(raw)
    except ValueError:
        raise QueryError(name, f"expected a percentage like 10%, got {text!r}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise QueryError(name, f"must be a positive percentage, got {text!r}")
    return value


def parse_amount(name: str, text: str | float | Decimal | None) -> Decimal | None:
    """A positive price per instance-hour.

    Raises:
        QueryError: not a positive finite number.
    """
    if text is None:
        return None
    try:
        value = Decimal(str(text).strip())
    except InvalidOperation:
        raise QueryError(name, f"expected a price per instance-hour like 2.00, got {text!r}") from None
    if not value.is_finite() or value <= 0:
        raise QueryError(name, f"must be a positive price per instance-hour, got {text!r}")
    return value


@dataclass
class WatchReport:
    """A diff checked against :class:`WatchRules`: ``matches`` lists each rule that matched with its evidence."""

    rules: WatchRules
    offer_filter: OfferFilter
    report: DiffReport
    matches: list[dict[str, Any]] = field(default_factory=list)

    @property
    def matched(self) -> bool:
        """True when any rule matched (``gpuhub watch`` then exits 1)."""
        return bool(self.matches)

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready values: whether it matched, the rules and filters, the matches, the diff's counts
        and each provider's snapshots.
        """
        return {"matched": self.matched, "rules": self.rules.to_dict(), "filters": self.offer_filter.to_dict(),
                "matches": self.matches, "counts": self.report.counts(),
                "providers": [s.to_dict() for s in self.report.sides]}


def check(report: DiffReport, rules: WatchRules, offer_filter: OfferFilter) -> WatchReport:
    """Apply ``rules`` to the changes of ``report`` that pass ``offer_filter``."""
    out = WatchReport(rules, offer_filter, report)
    # A provider's first snapshot has nothing to compare with: its offers are not "new" (as no GPU "appeared").
    baseline = {s.provider for s in report.sides if s.old is not None and s.old.offers}
    for change in report.changes:
        if not offer_filter.matches(change.offer):
            continue
        pct = change.change_pct
        if rules.drop_pct is not None and pct is not None and pct <= -rules.drop_pct:
            out.matches.append({"rule": "drop", **change.to_dict()})
        if rules.rise_pct is not None and pct is not None and pct >= rules.rise_pct:
            out.matches.append({"rule": "rise", **change.to_dict()})
        if rules.below is not None and change.new_price is not None and change.new_price < rules.below and (
                change.old_price is None or change.old_price >= rules.below):
            out.matches.append({"rule": "below", **change.to_dict()})
        if rules.new_offers and change.kind == "new" and change.offer.get("provider") in baseline:
            out.matches.append({"rule": "new_offer", **change.to_dict()})
        if rules.gone_offers and change.kind == "gone":
            out.matches.append({"rule": "gone_offer", **change.to_dict()})
    if rules.new_gpu:
        wanted = {g.lower() for g in rules.new_gpu}
        for prov, names in report.gpus_appeared.items():
            if offer_filter.providers and prov not in offer_filter.providers:
                continue
            for name in names:
                if "*" in wanted or name.lower() in wanted:
                    out.matches.append({"rule": "new_gpu", "provider": prov, "gpu_name": name})
    if rules.provider_failed:
        for side in report.status_changes:
            if side.new_state in ("failed", "stale") and (not offer_filter.providers or
                                                          side.provider in offer_filter.providers):
                out.matches.append({"rule": "provider_failed", **side.to_dict()})
    return out


def watch(rules: WatchRules, *, old: str | int | None = None, new: str | int | None = None,
          instance_type: str | Sequence[str] | None = None, gpu: str | Sequence[str] | None = None,
          provider: str | Sequence[str] | None = None, region: str | Sequence[str] | None = None,
          purchase: str | Sequence[str] | None = None, store: Store | None = None) -> WatchReport:
    """:func:`diff` of ``old`` and ``new`` (default: the two newest snapshots), checked against ``rules`` for the
    offers passing the filters. ``report.matched`` is what a cron job or CI step exits on.

    Raises:
        QueryError: a bad filter or selector. StoreError: the store is off or cannot be read.
    """
    offer_filter = make_filter(instance_type=instance_type, gpu=gpu, provider=provider, region=region,
                               purchase=purchase)
    report = diff(old, new, store=store, provider=offer_filter.providers or None, offer_filter=offer_filter)
    return check(report, rules, offer_filter)
