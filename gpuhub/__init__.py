"""gpuhub: which cloud GPU instance should I rent for this job, and what will it cost?

Public API (everything else is internal)::

    import gpuhub
    result = gpuhub.search(gpu="H100", min_gpus=8, purchase="on_demand", sort="price_per_gpu", limit=5)
    for offer in result:
        print(offer.provider, offer.instance_type, offer.region.code, offer.price_per_hour)
    print([s.line() for s in result.statuses])

Names are imported on first use (PEP 562), so ``import gpuhub`` stays cheap for the command line.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# Public name -> module that defines it.
_EXPORTS = {
    "Engine": "gpuhub.engine",
    "CredentialsError": "gpuhub.errors", "GpuhubError": "gpuhub.errors", "PluginError": "gpuhub.errors",
    "ProviderError": "gpuhub.errors", "QueryError": "gpuhub.errors", "ReplayMissError": "gpuhub.errors",
    "GpuSpec": "gpuhub.gpus", "GpuTable": "gpuhub.gpus", "UnknownGpuError": "gpuhub.gpus",
    "hookimpl": "gpuhub.hookspecs", "hookspec": "gpuhub.hookspecs",
    "Gpu": "gpuhub.model", "Instance": "gpuhub.model", "Offer": "gpuhub.model", "Price": "gpuhub.model",
    "PurchaseModel": "gpuhub.model", "Region": "gpuhub.model", "Source": "gpuhub.model",
    "known_purchase_models": "gpuhub.model", "register_purchase_model": "gpuhub.model",
    "PluginReport": "gpuhub.plugins", "Registry": "gpuhub.plugins", "get_registry": "gpuhub.plugins",
    "Credential": "gpuhub.provider", "Provider": "gpuhub.provider", "ProviderContext": "gpuhub.provider",
    "ProviderKind": "gpuhub.provider", "ProviderStatus": "gpuhub.provider",
    "Ranker": "gpuhub.ranking",
    "RegionFacts": "gpuhub.regions",
    "RetryPolicy": "gpuhub.retry",
    "SearchResult": "gpuhub.searching", "search": "gpuhub.searching",
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
    "register_purchase_model",
    "search",
]


def gpu_table() -> GpuTable:
    """The process-wide GPU table (built-in rows plus every plugin's)."""
    from gpuhub.plugins import get_registry

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
    from gpuhub.engine import Engine
    from gpuhub.errors import CredentialsError, GpuhubError, PluginError, ProviderError, QueryError, ReplayMissError
    from gpuhub.gpus import GpuSpec, GpuTable, UnknownGpuError
    from gpuhub.hookspecs import hookimpl, hookspec
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
    from gpuhub.plugins import PluginReport, Registry, get_registry
    from gpuhub.provider import Credential, Provider, ProviderContext, ProviderKind, ProviderStatus
    from gpuhub.ranking import Ranker
    from gpuhub.regions import RegionFacts
    from gpuhub.retry import RetryPolicy
    from gpuhub.searching import SearchResult, search
