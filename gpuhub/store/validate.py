"""The engine's check of every offer a provider hands over, however it was built.

``Offer.model_construct(...)`` (or ``object.__setattr__`` on a frozen model) skips pydantic's validation, so the
engine checks each offer again at the boundary (``Engine._collect_offers``): a positive finite ``Decimal`` price
in a known ISO 4217 currency, a known purchase model, a finite non-negative GPU count with a GPU when the count is
positive, finite positive VRAM, the provider's own name. A bad offer is skipped and counted in the provider's
status (``skipped_records``), so one provider's bad data never reaches the catalog, the table or the JSON.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from decimal import Decimal

from gpuhub.model import OWNED, Gpu, Instance, Offer, Price, Region, Source
from gpuhub.purchase import check_currency as _check_currency

__all__ = ["amount_problem", "availability_problem", "instance_facts_problem", "instance_identity_problem",
           "offer_problem", "region_problem", "source_problem", "terms_problem"]


def _number(value: object, *, positive: bool = False) -> bool:
    """A finite real number (``bool`` is not one), non-negative (or positive)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        return False
    if isinstance(value, Decimal):
        if not value.is_finite():
            return False
    elif not math.isfinite(value):
        return False
    return value > 0 if positive else value >= 0


def _currency_ok(code: object) -> bool:
    if not isinstance(code, str):
        return False
    try:
        return _check_currency(code) == code
    except ValueError:
        return False


def offer_problem(offer: object, provider: str, purchases: Collection[str]) -> str | None:
    """Why ``offer`` must not be served as ``provider``'s (a short skip reason), or None when it is sound.

    Args:
        offer: what the provider's ``fetch`` yielded.
        provider: the provider's name.
        purchases: the known purchase model names (:func:`gpuhub.model.known_purchase_models`).
    """
    if not isinstance(offer, Offer):
        return f"fetch yielded a {type(offer).__name__}, not an Offer"
    inst, region, price = offer.instance, offer.region, offer.price
    if not isinstance(inst, Instance) or not isinstance(region, Region) or not isinstance(price, Price):
        return "offer with a malformed instance, region or price"
    return (instance_identity_problem(inst, provider) or region_problem(region)
            or amount_problem(price.amount, owned=price.purchase == OWNED)
            or terms_problem(price, purchases) or instance_facts_problem(inst) or availability_problem(offer)
            or source_problem(offer.source))


# The checks of offer_problem, one per part of an offer, in the order it runs them: the column builder
# (gpuhub.store.columns.ColumnBuilder.add_checked) runs each once per distinct part, not once per offer.
def instance_identity_problem(inst: Instance, provider: str) -> str | None:
    """The instance belongs to ``provider`` and has an instance type."""
    if inst.provider != provider:
        return f"offer names provider {inst.provider!r}, not {provider!r}"
    if not isinstance(inst.instance_type, str) or not inst.instance_type:
        return "offer without an instance type"
    return None


def region_problem(region: Region) -> str | None:
    """The region has a code."""
    if not isinstance(region.code, str) or not region.code:
        return "offer without a region code"
    return None


def amount_problem(amount: object, *, owned: bool = False) -> str | None:
    """The price per instance-hour is a positive finite ``Decimal`` (zero allowed for ``owned`` capacity: the
    marginal cost of a prepaid reservation)."""
    if not isinstance(amount, Decimal) or not _number(amount, positive=not owned):
        return f"invalid price {str(amount)[:40]!r}: must be a positive finite number"
    return None


def terms_problem(price: Price, purchases: Collection[str]) -> str | None:
    """Currency, purchase model and upfront part of ``price`` (everything but the amount)."""
    if not _currency_ok(price.currency):
        return f"invalid currency {str(price.currency)[:20]!r}: not an ISO 4217 code"
    if price.purchase not in purchases:
        return f"unknown purchase model {str(price.purchase)[:40]!r}"
    if price.upfront is not None and not (isinstance(price.upfront, Decimal) and _number(price.upfront)):
        return f"invalid upfront price {str(price.upfront)[:40]!r}"
    return None


def instance_facts_problem(inst: Instance) -> str | None:
    """GPU count, GPU model and the instance's numbers (vCPUs, memory GiB, storage GiB, network Gbps)."""
    if not _number(inst.gpu_count):
        return f"invalid GPU count {str(inst.gpu_count)[:20]!r}"
    gpu = inst.gpu
    if gpu is not None:
        if not isinstance(gpu, Gpu) or not isinstance(gpu.name, str) or not gpu.name:
            return "offer with a malformed GPU"
        if gpu.memory_gib is not None and not _number(gpu.memory_gib, positive=True):
            return f"invalid GPU memory {str(gpu.memory_gib)[:20]!r} GiB"
    elif inst.gpu_count > 0:
        return f"{inst.gpu_count:g} GPUs but no GPU model"
    for name in ("vcpus", "memory_gib", "storage_gib", "network_gbps"):
        value = getattr(inst, name)
        if value is not None and not _number(value):
            return f"invalid {name} {str(value)[:20]!r}"
    return None


def availability_problem(offer: Offer) -> str | None:
    """``available`` is True, False or None."""
    if offer.available not in (True, False, None):
        return "invalid availability"
    return None


def source_problem(source: object) -> str | None:
    """The offer says where its data came from."""
    if not isinstance(source, Source):
        return "offer without a source"
    return None
