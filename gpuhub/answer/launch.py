"""Can I launch it here? What ``launchable=True`` kept, and which checks could not be made, per provider.

An offer passes ``launchable`` unless a source rules it out: its quota allows 0 of it (``obtain.quota_instances``),
or the provider says it has no capacity now (``Offer.available`` False, ``obtain.capacity`` False). Unknown passes,
and these notes say which checks were missing and why (the offers' ``obtain.checks``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from gpuhub.model import Offer

__all__ = ["launch_notes"]


def launch_notes(offers: Iterable[Offer], limit: int = 3) -> list[str]:
    """One line per provider: how many kept offers had their quota and capacity checked, and why the others not."""
    quota: Counter[str] = Counter()
    capacity: Counter[str] = Counter()
    total: Counter[str] = Counter()
    reasons: dict[str, Counter[str]] = defaultdict(Counter)
    for offer in offers:
        name = offer.provider
        total[name] += 1
        obtain = offer.obtain
        if obtain is not None and obtain.quota_instances is not None:
            quota[name] += 1
        if offer.available is not None or (obtain is not None and obtain.capacity is not None):
            capacity[name] += 1
        for check in (obtain.checks if obtain is not None else ()):
            reasons[name][check] += 1
    lines = []
    for name in sorted(total):
        n = total[name]
        text = (f"launchable: {name}: quota checked for {quota[name]} of {n} offers, capacity for {capacity[name]}")
        why = reasons[name].most_common(limit)
        if why:
            text += "; not checked: " + "; ".join(f"{reason} ({count})" for reason, count in why)
            if len(reasons[name]) > limit:
                text += f"; and {len(reasons[name]) - limit} more reasons"
        elif quota[name] < n or capacity[name] < n:
            text += "; the provider gives no quota or capacity source for the others"
        lines.append(text)
    return lines
