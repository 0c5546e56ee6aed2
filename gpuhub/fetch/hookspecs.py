"""The hooks a gpuhub plugin may implement (pluggy, project name ``"gpuhub"``).

Hooks only register objects; the engine does all I/O itself, so it can isolate, cache, retry and time out each
provider. A plugin is a module (or object) with functions marked ``@gpuhub.hookimpl`` whose names and argument
names match these specs; it is found through the ``gpuhub`` entry-point group.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from gpuhub.answer.ranking import Ranker
    from gpuhub.facts.gpus import GpuSpec
    from gpuhub.facts.regions import RegionFacts
    from gpuhub.fetch.provider import Provider

__all__ = ["hookimpl", "hookspec"]

hookspec = pluggy.HookspecMarker("gpuhub")
hookimpl = pluggy.HookimplMarker("gpuhub")


@hookspec
def register_providers(register: Callable[[Provider], None]) -> None:
    """Hand over provider objects: call ``register(provider)`` once per :class:`~gpuhub.fetch.provider.Provider`.

    Provider names must be unique across all plugins; a duplicate is reported and skipped.
    """


@hookspec
def register_gpu_specs(register: Callable[[GpuSpec], None], alias: Callable[[str, str], None]) -> None:
    """Add GPU rows with ``register(GpuSpec(...))`` and provider spellings with ``alias(spelling, canonical)``.

    An alias applies to this plugin's own providers (and to names users type); ``alias(..., global_alias=True)``
    makes it apply to every provider's spelling. A memory size written in a spelling always wins over an alias.
    """


@hookspec
def register_rankers(register: Callable[[Ranker], None]) -> None:
    """Add named ranking strategies: ``register(Ranker(name=..., key=..., description=...))``."""


@hookspec
def register_commands(cli: Any) -> None:
    """Add CLI subcommands to ``cli``, a :class:`typer.Typer` application (``@cli.command()``)."""


@hookspec
def register_regions(register: Callable[[RegionFacts], None]) -> None:
    """Say where a provider's regions are: ``register(RegionFacts(provider=..., region=..., city=..., country=...,
    continent=..., lat=..., lon=..., carbon_gco2e_per_kwh=...))``, so ``near``, ``continent`` and carbon work."""
