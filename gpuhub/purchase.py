"""The terms a price is validated with: purchase models (the standard names and the ones plugins register) and
ISO 4217 currency codes.

Kept apart from :mod:`gpuhub.model` (which re-exports all of it) so that what only names them (a query, a search
served from the store) does not import pydantic.
"""

from __future__ import annotations

from enum import Enum
from functools import lru_cache

__all__ = ["CAPACITY_PURCHASES", "OWNED", "PurchaseModel", "check_currency", "check_purchase", "known_purchase_models",
           "register_purchase_model"]


class PurchaseModel(str, Enum):
    """The standard purchase models. Plugins may add more with :func:`register_purchase_model`."""

    on_demand = "on_demand"
    spot = "spot"
    low_priority = "low_priority"
    reserved_1y = "reserved_1y"
    reserved_3y = "reserved_3y"
    savings_plan_1y = "savings_plan_1y"
    savings_plan_3y = "savings_plan_3y"

    def __str__(self) -> str:
        return self.value


CAPACITY_PURCHASES = ("capacity_block", "flex_start", "calendar")
"""Purchase models of reservable capacity (:mod:`gpuhub.obtain`): AWS Capacity Blocks for ML, GCP DWS flex-start and
calendar mode."""

OWNED = "owned"
"""The purchase model of capacity the user already has (a reservation, a commitment, an idle instance: see
:mod:`gpuhub.fetch.owned`), priced at its marginal cost: the one purchase model whose price may be zero."""

_EXTRA_PURCHASE_MODELS: set[str] = set()

# Accepted names mapped to one shared (interned) string each: validation is a dict lookup, and a million offers
# parsed from JSON do not each keep their own copy of "on_demand".
_ACCEPTED: dict[str, str] = {p.value: p.value for p in PurchaseModel}


def register_purchase_model(name: str) -> None:
    """Allow an extra purchase model name (lower-case snake case, e.g. ``"flex_start"``).

    Raises:
        ValueError: the name is not lower-case snake case.
    """
    if not name.replace("_", "").isalnum() or name.lower() != name or not name[:1].isalpha():
        raise ValueError(f"purchase model {name!r} must be lower-case snake case, like 'flex_start'")
    _EXTRA_PURCHASE_MODELS.add(name)
    _ACCEPTED[name] = name


def known_purchase_models() -> list[str]:
    """All purchase model names accepted now: the standard ones, then those plugins registered."""
    return [p.value for p in PurchaseModel] + sorted(_EXTRA_PURCHASE_MODELS)


def check_purchase(value: object) -> str:
    """The accepted (shared) name of a purchase model given as text or :class:`PurchaseModel`.

    Raises:
        ValueError: the name is neither standard nor registered (the message lists the allowed names).
    """
    text = value.value if isinstance(value, PurchaseModel) else str(value)
    canonical = _ACCEPTED.get(text)
    if canonical is None:
        raise ValueError(f"unknown purchase model {text!r}; allowed: {', '.join(known_purchase_models())}")
    return canonical


for _name in (*CAPACITY_PURCHASES, OWNED):
    register_purchase_model(_name)


@lru_cache(maxsize=1)
def _iso_currencies() -> frozenset[str]:
    import pycountry  # imported lazily: it is only needed when a new currency code is first seen

    return frozenset(c.alpha_3 for c in pycountry.currencies)


_PUBLISHED_CURRENCIES = frozenset({"USD", "EUR", "GBP", "JPY", "CNY", "INR", "AUD", "CAD", "CHF", "KRW", "BRL",
                                   "SEK", "NOK", "DKK", "SGD", "HKD", "TWD", "NZD", "ZAR", "IDR", "MXN"})
"""ISO 4217 codes the clouds publish prices in, checked without importing pycountry (a CLI run served from the
store validates its price terms again; pycountry's table costs 25 ms to load)."""


@lru_cache(maxsize=64)
def check_currency(code: str) -> str:
    """The upper-case ISO 4217 code of ``code`` (``" usd"`` -> ``"USD"``).

    Raises:
        ValueError: not an ISO 4217 currency code (pycountry's list).
    """
    upper = code.strip().upper()
    if upper in _PUBLISHED_CURRENCIES:
        return upper
    if len(upper) != 3 or upper not in _iso_currencies():
        raise ValueError(f"{code!r} is not an ISO 4217 currency code (like 'USD', 'EUR', 'CNY')")
    return upper
