"""What a job adds beside its instance hours (data moved out, a disk kept): the shared record of
:mod:`gpuhub.facts.egress` and :mod:`gpuhub.facts.disk`."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class AddedCost:
    """``quantity`` (GB moved out, GiB kept attached), its ``cost`` (exact, in ``currency``) and the arithmetic as
    text, with the price's source."""

    quantity: Decimal
    cost: Decimal
    currency: str
    note: str
