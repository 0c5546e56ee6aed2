"""What an offer says about getting and keeping the machine (pydantic v2, immutable).

``Offer.obtain`` is None when no source said anything; each part is None when its source was silent. Unknown is
never zero: an interruption bucket that could not be had is ``None``, never ``0 %``.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field

from gpuhub.derived import ObtainDerived
from gpuhub.purchase import CAPACITY_PURCHASES as CAPACITY_PURCHASES

__all__ = ["CAPACITY_PURCHASES", "Obtainability", "Reservation", "SpotRisk"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SpotRisk(_Frozen):
    """The chance an interruptible offer is reclaimed, as its source publishes it.

    AWS's Spot Instance Advisor gives a bucket per region, OS and instance type (``<5%``, ``5-10%``, ..., ``>20%``)
    whose bounds come from the feed's own ``ranges`` table (upper bounds 5, 11, 16, 22, 100 %); the rate is the
    share of spot capacity reclaimed over the trailing month. Azure gives an eviction-rate band per size and region
    (Resource Graph). GCP publishes none: ``label`` says so and both bounds are None.
    """

    label: str = Field(description="the source's own wording: '<5%', '5-10%', '>20%', 'not published', 'unknown'")
    min_pct: float | None = Field(default=None, ge=0, le=100, description="lower bound of the bucket, percent")
    max_pct: float | None = Field(default=None, ge=0, le=100,
                                  description="upper bound of the bucket, percent (None: unknown)")
    savings_pct: float | None = Field(default=None, description="the source's savings over on-demand, percent")
    source: str = Field(description="where the figure comes from, e.g. 'aws spot instance advisor'")
    as_of: dt.date | None = Field(default=None, description="the date of the source's data")
    period: str | None = Field(default=None, description="what the rate counts over, e.g. 'trailing month'")
    note: str | None = None

    @property
    def known(self) -> bool:
        """True when the source gave an upper bound."""
        return self.max_pct is not None


class Reservation(_Frozen):
    """Capacity bought ahead for a fixed window: a capacity block, a flex-start or calendar-mode request."""

    start: dt.datetime | None = Field(default=None, description="when the capacity starts (UTC); None: on grant")
    duration_hours: float = Field(gt=0, description="length of the window in hours")
    instance_count: int = Field(default=1, ge=1, description="instances in the block")
    total: Decimal = Field(ge=0, description="price of the whole window (all instances), in the price's currency")
    offering_id: str | None = Field(default=None, description="the provider's offering id, when it has one")
    note: str | None = None


class Obtainability(ObtainDerived, _Frozen):
    """Risk, reservation and launchability facts of one offer (each part None when unknown)."""

    risk: SpotRisk | None = Field(default=None, description="interruption risk of a spot/low-priority offer")
    placement_score: int | None = Field(default=None, ge=1, le=10,
                                        description="AWS spot placement score, 1-10 (10: very likely to launch)")
    placement_as_of: dt.datetime | None = None
    reservation: Reservation | None = None
    quota_instances: int | None = Field(default=None, ge=0,
                                        description="how many of these the account's quota allows here")
    capacity: bool | None = Field(default=None, description="the provider says it has capacity now")
    checks: tuple[str, ...] = Field(default=(), description="launchability checks that could not be made, and why")
    # record(): gpuhub.derived.ObtainDerived
