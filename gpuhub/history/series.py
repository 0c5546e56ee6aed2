"""Price history as values: :class:`PriceSeries` per offer (or group of offers), with min / median / max over a
window, and :class:`HistoryResult` with table, JSON, CSV and DataFrame forms."""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

__all__ = ["GROUPS", "HistoryResult", "PricePoint", "PriceSeries", "group_series", "parse_since"]

GROUPS = ("offer", "instance_type", "gpu", "provider", "region")
"""How ``history`` groups offers: one series per offer (default), or per instance type, GPU, provider or region."""


def parse_since(text: str, now: dt.datetime | None = None) -> dt.datetime:
    """``30d``, ``12h``, ``90m``, ``2w`` (before now) or an ISO date/time (UTC when no zone is given).

    Raises:
        ValueError: neither a duration nor a date; the message shows the accepted forms.
    """
    now = now or dt.datetime.now(dt.timezone.utc)
    value = text.strip().lower()
    units = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
    if value[-1:] in units and value[:-1].replace(".", "", 1).isdigit():
        return now - dt.timedelta(seconds=float(value[:-1]) * units[value[-1]])
    try:
        when = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is not a window: give a duration like 30d, 12h, 90m, 2w or a date like "
                         "2026-11-01") from None
    return when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)


@dataclass(frozen=True)
class PricePoint:
    """The price from ``at`` on (exact, per instance-hour); ``price`` None: the offer was gone from then."""

    at: dt.datetime
    price: Decimal | None
    snapshot: int | None = None


@dataclass
class PriceSeries:
    """One offer's (or one group's) price at each change, oldest first.

    ``offer`` holds the identity (provider, instance_type, region, zone, purchase, currency, term) and GPU fields;
    for a group, only the grouped field and ``offers`` (how many offers the group has).
    A group's price at a time is the lowest price of its offers then.
    """

    offer: dict[str, Any]
    points: list[PricePoint] = field(default_factory=list)

    def window(self, since: dt.datetime | None) -> list[PricePoint]:
        """The points from ``since`` on, led by the price in effect at ``since`` (re-dated to it)."""
        if since is None:
            return list(self.points)
        before = [p for p in self.points if p.at <= since]
        after = [p for p in self.points if p.at > since]
        lead = [PricePoint(since, before[-1].price, before[-1].snapshot)] if before else []
        return lead + after

    def stats(self, since: dt.datetime | None = None) -> dict[str, Decimal | None]:
        """``min``, ``median``, ``max`` of the prices in effect during the window, ``first`` and ``last``."""
        prices = [p.price for p in self.window(since) if p.price is not None]
        if not prices:
            return {"min": None, "median": None, "max": None, "first": None, "last": None}
        return {"min": min(prices), "median": Decimal(str(statistics.median(prices))), "max": max(prices),
                "first": prices[0], "last": prices[-1]}

    @property
    def label(self) -> str:
        """A one-line name of the series: the grouping values, or provider, instance type, zone (else region) and
        purchase model.
        """
        o = self.offer
        if "offers" in o:
            return " ".join(str(v) for k, v in o.items() if k != "offers")
        parts = [o.get("provider"), o.get("instance_type"), o.get("zone") or o.get("region"), o.get("purchase")]
        return " ".join(str(p) for p in parts if p)


@dataclass
class HistoryResult:
    """What ``gpuhub.history()`` returns: the series, the window, and the snapshots the log has folded.

    Iterating yields :class:`PriceSeries`; :meth:`points` is the flat list (one dict per change).
    """

    series: list[PriceSeries]
    since: dt.datetime | None
    group: str = "offer"
    snapshots: int = 0
    """How many snapshots the log has folded for the providers asked (unchanged ones included)."""

    def __iter__(self) -> Iterator[PriceSeries]:
        return iter(self.series)

    def __len__(self) -> int:
        return len(self.series)

    def points(self) -> list[dict[str, Any]]:
        """One JSON-ready dict per point in the window: the offer's fields, ``at`` (ISO 8601 UTC),
        ``price_per_hour`` (None: gone), ``snapshot``."""
        out = []
        for s in self.series:
            for p in s.window(self.since):
                out.append({**s.offer, "at": p.at.isoformat(timespec="seconds"),
                            "price_per_hour": float(p.price) if p.price is not None else None,
                            "snapshot": p.snapshot})
        return out

    def summary(self) -> list[dict[str, Any]]:
        """One dict per series: its fields, ``changes`` in the window, and min / median / max / first / last."""
        out = []
        for s in self.series:
            stats = s.stats(self.since)
            out.append({**s.offer, "changes": max(0, len(s.window(self.since)) - 1),
                        **{f"{k}_price_per_hour": float(v) if v is not None else None for k, v in stats.items()}})
        return out

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready values (``gpuhub history --format json``): window start, grouping, snapshots read,
        each series' statistics and the points.
        """
        return {"since": self.since.isoformat(timespec="seconds") if self.since else None, "group": self.group,
                "snapshots": self.snapshots, "series": self.summary(), "points": self.points()}

    def to_dataframe(self) -> Any:
        """The points as a pandas DataFrame (``at`` as UTC timestamps).

        Raises:
            ImportError: pandas is not installed (``pip install pandas``).
        """
        import pandas as pd

        frame = pd.DataFrame(self.points())
        if len(frame):
            frame["at"] = pd.to_datetime(frame["at"], utc=True)
        return frame


def _group_key(offer: dict[str, Any], group: str) -> tuple[str, Any]:
    field_name = {"gpu": "gpu_name"}.get(group, group)
    return field_name, offer.get(field_name)


def group_series(series: Sequence[PriceSeries], group: str) -> list[PriceSeries]:
    """Merge offer series into one series per ``group`` value (the lowest price of the group's offers at each
    change; currencies are kept apart).

    Raises:
        ValueError: ``group`` is not one of :data:`GROUPS`.
    """
    if group not in GROUPS:
        raise ValueError(f"group {group!r} is not allowed; allowed values: {', '.join(GROUPS)}")
    if group == "offer":
        return list(series)
    members: dict[tuple[Any, ...], list[PriceSeries]] = {}
    for s in series:
        name, value = _group_key(s.offer, group)
        members.setdefault((name, value, s.offer.get("currency")), []).append(s)
    out = []
    for (name, value, currency), group_members in sorted(members.items(), key=lambda kv: str(kv[0])):
        events = sorted((p.at, i, p) for i, s in enumerate(group_members) for p in s.points)
        current: dict[int, Decimal | None] = {}
        points: list[PricePoint] = []
        for at, i, p in events:
            current[i] = p.price
            live = [v for v in current.values() if v is not None]
            low = min(live) if live else None
            if points and points[-1].at == at:
                points[-1] = PricePoint(at, low, p.snapshot)
            elif not points or points[-1].price != low:
                points.append(PricePoint(at, low, p.snapshot))
        out.append(PriceSeries({name: value, "currency": currency, "offers": len(group_members)}, points))
    return out
