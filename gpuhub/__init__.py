"""gpuhub: which cloud GPU instance should I rent for this job, and what will it cost?

Public API (everything else is internal)::

    import gpuhub
    result = gpuhub.search(gpu="H100", min_gpus=8, purchase="on_demand", sort="price_per_gpu", limit=5)
    for offer in result:
        print(offer.provider, offer.instance_type, offer.region.code, offer.price_per_hour)
    print([s.line() for s in result.statuses])
"""

from __future__ import annotations

__version__ = "0.1.0"

from gpuhub.engine import Engine
from gpuhub.errors import (
    CredentialsError,
    GpuhubError,
    PluginError,
    ProviderError,
    QueryError,
    ReplayMissError,
)
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
from gpuhub.retry import RetryPolicy
from gpuhub.searching import SearchResult, search


def gpu_table() -> GpuTable:
    """The process-wide GPU table (built-in rows plus every plugin's)."""
    return get_registry().gpus


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
