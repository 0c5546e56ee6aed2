"""gpuhub hook implementations of gpuhub-shadeform (found through the ``gpuhub`` entry-point group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, hookimpl
from gpuhub_shadeform.provider import ShadeformProvider


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Shadeform provider (name ``shadeform``)."""
    register(ShadeformProvider())
