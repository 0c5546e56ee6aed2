"""gpuhub hook implementations of gpuhub-vast (found through the ``gpuhub`` entry-point group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, hookimpl
from gpuhub_vast.provider import VastProvider


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Vast.ai provider (name ``vast``)."""
    register(VastProvider())
