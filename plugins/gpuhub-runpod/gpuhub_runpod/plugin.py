"""gpuhub hook implementations of gpuhub-runpod (found through the ``gpuhub`` entry-point group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, RegionFacts, hookimpl
from gpuhub_runpod.provider import RunPodProvider, region_facts


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the RunPod provider (name ``runpod``)."""
    register(RunPodProvider())


@hookimpl
def register_regions(register: Callable[[RegionFacts], None]) -> None:
    """RunPod's data centres and Community Cloud countries, with their country and continent."""
    for facts in region_facts():
        register(facts)
