"""gpuhub hook implementations of gpuhub-kubernetes (found through the ``gpuhub`` entry-point group)."""

from __future__ import annotations

from collections.abc import Callable

import gpuhub
from gpuhub import Provider
from gpuhub_kubernetes.provider import KubernetesProvider


@gpuhub.hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Kubernetes provider (name ``kubernetes``)."""
    register(KubernetesProvider())
