"""gpuhub hook implementations of gpuhub-primeintellect (found through the ``gpuhub`` entry-point group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, hookimpl
from gpuhub_primeintellect.provider import PrimeIntellectProvider


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the Prime Intellect provider (name ``primeintellect``)."""
    register(PrimeIntellectProvider())
