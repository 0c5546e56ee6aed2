"""gpuhub hook implementations of gpuhub-hyperbolic (entry point ``hyperbolic`` in the ``gpuhub`` group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, hookimpl
from gpuhub_hyperbolic.provider import Hyperbolic


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Hyperbolic provider (name ``hyperbolic``). No region facts: Hyperbolic names no location."""
    register(Hyperbolic())
