"""What a job adds beside its instance hours (data moved out, a disk kept): the shared record of
:mod:`gpuhub.facts.egress` and :mod:`gpuhub.facts.disk`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class AddedCost:
    """``quantity`` (GB moved out, GiB kept attached), its ``cost`` (exact, in ``currency``) and the arithmetic as
    text, with the price's source."""

    quantity: Decimal
    cost: Decimal
    currency: str
    note: str


def regional(table: Mapping[tuple[str, str], T], provider: str, region: str) -> T | None:
    """The row of ``(provider, region)`` in a price table, else the provider-wide row ``(provider, "*")``, else
    None."""
    return table.get((provider, region)) or table.get((provider, "*"))
