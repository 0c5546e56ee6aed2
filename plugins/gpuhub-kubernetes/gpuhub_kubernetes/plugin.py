"""gpuhub hook implementations of gpuhub-kubernetes (found through the ``gpuhub`` entry-point group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, hookimpl
from gpuhub_kubernetes.provider import KubernetesProvider


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Kubernetes provider (name ``kubernetes``)."""
    register(KubernetesProvider())
