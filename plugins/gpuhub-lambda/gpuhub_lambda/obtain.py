"""Launchability of Lambda offers: ``regions_with_capacity_available`` is live capacity (``Offer.available``); a
reconstructed recording has none, and each offer's ``obtain.checks`` says so."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from gpuhub.plugin import Obtainability, Offer

__all__ = ["NOT_A_SNAPSHOT", "mark_unknown_capacity"]

NOT_A_SNAPSHOT = Obtainability(checks=(
    "capacity: the recording is reconstructed, not a capacity snapshot (live: set LAMBDA_API_KEY)",
    "quota: Lambda publishes no per-account quota API (launch errors say global/quota-exceeded)"))


def mark_unknown_capacity(offers: Iterable[Offer]) -> Iterator[Offer]:
    """Offers whose capacity is unknown (``available`` None) with :data:`NOT_A_SNAPSHOT`; others unchanged."""
    for offer in offers:
        yield offer.model_copy(update={"obtain": NOT_A_SNAPSHOT}) if offer.available is None else offer
