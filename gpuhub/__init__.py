"""gpuhub: which cloud GPU instance should I rent for this job, and what will it cost?

Public API (everything else is internal)::

    import gpuhub
    result = gpuhub.search(gpu="H100", min_gpus=8, purchase="on_demand", sort="price_per_gpu", limit=5)
    for offer in result:
        print(offer.provider, offer.instance_type, offer.region.code, offer.price_per_hour)
    print([s.line() for s in result.statuses])
    plan = gpuhub.plan.commitments("H100", gpus=16, hours_per_day=10, days_per_week=5, months=6)
    print(plan.total, [(p.purchase, p.instances, p.cost) for p in plan.parts])

Names are imported on first use (PEP 562), so ``import gpuhub`` stays cheap for the command line.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from gpuhub import _moved
from gpuhub._version import __version__

_moved.install()  # the flat module paths of 0.1 still import, with a DeprecationWarning

# Public name -> module that defines it.
_EXPORTS = {
    "Engine": "gpuhub.service.engine",
    "CredentialsError": "gpuhub.errors", "GpuhubError": "gpuhub.errors", "PluginError": "gpuhub.errors",
    "ProviderError": "gpuhub.errors", "QueryError": "gpuhub.errors", "ReplayMissError": "gpuhub.errors",
    "GpuSpec": "gpuhub.facts.gpus", "GpuTable": "gpuhub.facts.gpus", "UnknownGpuError": "gpuhub.facts.gpus",
    "hookimpl": "gpuhub.fetch.hookspecs", "hookspec": "gpuhub.fetch.hookspecs",
    "Gpu": "gpuhub.model", "Instance": "gpuhub.model", "Offer": "gpuhub.model", "Price": "gpuhub.model",
    "PurchaseModel": "gpuhub.model", "Region": "gpuhub.model", "Source": "gpuhub.model",
    "known_purchase_models": "gpuhub.model", "register_purchase_model": "gpuhub.model",
    "PluginReport": "gpuhub.fetch.plugins", "Registry": "gpuhub.fetch.plugins", "get_registry": "gpuhub.fetch.plugins",
    "Credential": "gpuhub.fetch.provider", "Provider": "gpuhub.fetch.provider",
    "ProviderContext": "gpuhub.fetch.provider",
    "ProviderKind": "gpuhub.fetch.provider", "ProviderStatus": "gpuhub.fetch.provider",
    "Ranker": "gpuhub.answer.ranking",
    "RegionFacts": "gpuhub.facts.regions",
    "RetryPolicy": "gpuhub.fetch.retry",
    "SearchResult": "gpuhub.service.searching", "search": "gpuhub.service.searching",
    "plan": "gpuhub.service.planning",
}

__all__ = [
    "Credential",
    "CredentialsError",
    "Engine",
    "Gpu",
    "GpuSpec",
    "GpuTable",
    "GpuhubError",
    "Instance",
    "Offer",
    "PluginError",
    "PluginReport",
    "Price",
    "Provider",
    "ProviderContext",
    "ProviderError",
    "ProviderKind",
    "ProviderStatus",
    "PurchaseModel",
    "QueryError",
    "Ranker",
    "Region",
    "RegionFacts",
    "Registry",
    "ReplayMissError",
    "RetryPolicy",
    "SearchResult",
    "Source",
    "UnknownGpuError",
    "__version__",
    "get_registry",
    "gpu_table",
    "hookimpl",
    "hookspec",
    "known_purchase_models",
    "plan",
    "register_purchase_model",
    "search",
]


def gpu_table() -> GpuTable:
    """The process-wide GPU table (built-in rows plus every plugin's)."""
    from gpuhub.fetch.plugins import get_registry

    return get_registry().gpus


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gpuhub' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:
    from gpuhub.answer.ranking import Ranker
    from gpuhub.errors import CredentialsError, GpuhubError, PluginError, ProviderError, QueryError, ReplayMissError
    from gpuhub.facts.gpus import GpuSpec, GpuTable, UnknownGpuError
    from gpuhub.facts.regions import RegionFacts
    from gpuhub.fetch.hookspecs import hookimpl, hookspec
    from gpuhub.fetch.plugins import PluginReport, Registry, get_registry
    from gpuhub.fetch.provider import Credential, Provider, ProviderContext, ProviderKind, ProviderStatus
    from gpuhub.fetch.retry import RetryPolicy
    from gpuhub.model import (
        Gpu,
        Instance,
        Offer,
        Price,
        PurchaseModel,
        Region,
        Source,
        known_purchase_models,
        register_purchase_model,
    )
    from gpuhub.service.engine import Engine
    from gpuhub.service.planning import plan
    from gpuhub.service.searching import SearchResult, search
