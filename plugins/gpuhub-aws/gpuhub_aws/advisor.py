"""Spot interruption risk from AWS's public Spot Instance Advisor feed (no credentials).

``GET https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json`` (``GPUHUB_AWS_ADVISOR_URL`` overrides)
answers ``{"ranges": [...], "spot_advisor": {region: {os: {instance type: {"r": bucket, "s": savings %}}}},
"instance_types": ..., "global_rate": ...}``. A bucket's bounds come from the feed's own ``ranges`` table (``max``
5, 11, 16, 22, 100 in the 2025 feed, labels ``<5%`` ... ``>20%``), never from a table of our own; the lower bound
of bucket ``i`` is the upper bound of bucket ``i - 1``. The data's date is the answer's ``Last-Modified`` header
(the feed carries none itself), else the fetch date. Linux buckets are attached to the Linux spot offers.
"""

from __future__ import annotations

import datetime as dt
import email.utils
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gpuhub.plugin import SpotRisk

__all__ = ["ADVISOR_URL", "SOURCE", "Advisor", "parse_advisor"]

ADVISOR_URL = "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json"
SOURCE = "aws spot instance advisor"
PERIOD = "share of spot capacity reclaimed over the trailing month"


@dataclass(frozen=True)
class Advisor:
    """The parsed feed: one :class:`SpotRisk` per (region, OS, instance type), shared between offers."""

    risks: Mapping[tuple[str, str, str], SpotRisk]
    as_of: dt.date | None

    def risk(self, region: str, instance_type: str, os: str = "Linux") -> SpotRisk | None:
        """The bucket of ``instance_type`` in ``region`` for ``os`` (``Linux`` or ``Windows``), or None."""
        return self.risks.get((region, os, instance_type))


def _date(last_modified: str | None) -> dt.date | None:
    if not last_modified:
        return None
    try:
        return email.utils.parsedate_to_datetime(last_modified).date()
    except (TypeError, ValueError):
        return None


def parse_advisor(data: Any, last_modified: str | None, skip: Callable[[str], None],
                  today: dt.date | None = None) -> Advisor:
    """Turn the feed into an :class:`Advisor`.

    Args:
        data: the decoded JSON answer.
        last_modified: the answer's ``Last-Modified`` header (the data's date), or None.
        skip: called with a reason for each malformed row (counted, never raised).
        today: the date used when there is no ``Last-Modified`` header.

    Raises:
        ValueError: the answer has no usable ``ranges`` table or no ``spot_advisor`` object (the feed changed
            shape: no bucket can be trusted).
    """
    if not isinstance(data, dict) or not isinstance(data.get("spot_advisor"), dict):
        raise ValueError("the Spot Instance Advisor answer has no 'spot_advisor' object")
    ranges = data.get("ranges")
    if not isinstance(ranges, list) or not ranges:
        raise ValueError("the Spot Instance Advisor answer has no 'ranges' table")
    table: dict[int, tuple[str, float]] = {}
    for item in ranges:
        if not (isinstance(item, dict) and isinstance(item.get("index"), int)
                and isinstance(item.get("max"), (int, float)) and isinstance(item.get("label"), str)):
            raise ValueError(f"the Spot Instance Advisor 'ranges' table has a malformed row: {item!r}"[:200])
        table[item["index"]] = (item["label"], float(item["max"]))
    as_of = _date(last_modified) or today
    buckets: dict[tuple[int, float | None], SpotRisk] = {}
    risks: dict[tuple[str, str, str], SpotRisk] = {}
    for region, by_os in data["spot_advisor"].items():
        if not isinstance(by_os, dict):
            skip("spot advisor: region entry is not an object")
            continue
        for os_name, by_type in by_os.items():
            if not isinstance(by_type, dict):
                skip("spot advisor: OS entry is not an object")
                continue
            for itype, row in by_type.items():
                bucket = row.get("r") if isinstance(row, dict) else None
                if not isinstance(bucket, int) or isinstance(bucket, bool) or bucket not in table:
                    skip("spot advisor: bucket not in the ranges table")
                    continue
                savings = row.get("s")
                saving = float(savings) if isinstance(savings, (int, float)) and not isinstance(savings, bool) \
                    else None
                key = (bucket, saving)
                risk = buckets.get(key)
                if risk is None:
                    label, high = table[bucket]
                    lower = [m for i, (_, m) in table.items() if i < bucket]
                    risk = buckets[key] = SpotRisk(label=label, min_pct=max(lower) if lower else 0.0,
                                                   max_pct=high, savings_pct=saving, source=SOURCE, as_of=as_of,
                                                   period=PERIOD)
                risks[(str(region), str(os_name), str(itype))] = risk
    return Advisor(risks, as_of)
