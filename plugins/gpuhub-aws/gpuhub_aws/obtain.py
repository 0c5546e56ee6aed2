"""Obtainability for AWS offers: the advisor's interruption bucket on every spot offer (capacity blocks are in
:mod:`gpuhub_aws.capacity_blocks`).

A failed advisor fetch never fails the provider: the spot offers then carry an ``unknown`` risk saying why, and
the status has a warning.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator

from gpuhub.plugin import Obtainability, Offer, ProviderContext, ProviderError, SpotRisk
from gpuhub_aws.advisor import ADVISOR_URL, SOURCE, Advisor, parse_advisor

__all__ = ["advisor_missing", "attach_risk", "load_advisor"]

RISK_MAX_AGE_DAYS = 31
"""Spot risk is monthly data: older than this, the status says so."""


def advisor_missing(ctx: ProviderContext, why: str) -> str:
    """The reason spot risk is unknown when the feed ``why`` (e.g. ``failed (HTTP 500 ...)``); also a warning."""
    reason = f"spot interruption risk unknown: the Spot Instance Advisor feed {why}"
    ctx.warn(reason)
    return reason


def load_advisor(ctx: ProviderContext, deadline: float | None = None) -> Advisor | str:
    """Fetch and parse the Spot Instance Advisor feed (ending by ``deadline``, a :func:`time.monotonic` time, when
    given); on failure, the reason (also added as a warning)."""
    url = ctx.setting("ADVISOR_URL") or ADVISOR_URL
    try:
        response = ctx.request("GET", url, deadline=deadline)
        advisor = parse_advisor(response.json(), response.headers.get("last-modified"), ctx.skip,
                                today=dt.datetime.now(dt.timezone.utc).date())
    except (ProviderError, ValueError) as exc:
        return advisor_missing(ctx, f"failed ({str(exc)[:160]})")
    if advisor.as_of is not None:
        age = (dt.datetime.now(dt.timezone.utc).date() - advisor.as_of).days
        if age > RISK_MAX_AGE_DAYS:
            ctx.warn(f"spot interruption risk is from {advisor.as_of.isoformat()} ({age} days old; the advisor "
                     "is monthly data)")
    return advisor


def attach_risk(offers: Iterable[Offer], advisor: Advisor | str | None) -> Iterator[Offer]:
    """Each spot offer with its bucket (``unknown`` with the reason when there is none); others unchanged."""
    unknown: dict[str, Obtainability] = {}
    known: dict[int, Obtainability] = {}
    for offer in offers:
        if offer.price.purchase != "spot" or advisor is None:
            yield offer
            continue
        risk = advisor.risk(offer.region.code, offer.instance_type) if isinstance(advisor, Advisor) else None
        if risk is None:
            reason = advisor if isinstance(advisor, str) else \
                f"the advisor has no Linux row for {offer.instance_type} in {offer.region.code}"
            obtain = unknown.get(reason)
            if obtain is None:
                obtain = unknown[reason] = Obtainability(risk=SpotRisk(label="unknown", source=SOURCE, note=reason))
        else:
            obtain = known.get(id(risk))
            if obtain is None:
                obtain = known[id(risk)] = Obtainability(risk=risk)
        yield offer.model_copy(update={"obtain": obtain})
