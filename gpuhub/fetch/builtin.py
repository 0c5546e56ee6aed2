"""gpuhub's own built-in plugin: the default GPU table, the default rankers, the workload presets and the
capacity the user owns (when its settings file exists).

It loads through the same plugin manager path as pip-installed plugins.
"""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.answer.ranking import BUILTIN_RANKERS, Ranker
from gpuhub.facts.gpus import GpuSpec, load_builtin_specs
from gpuhub.fetch.hookspecs import hookimpl
from gpuhub.fetch.provider import Provider


@hookimpl
def register_gpu_specs(register: Callable[[GpuSpec], None], alias: Callable[[str, str], None]) -> None:
    """Register every row of the packaged GPU table (``gpuhub/data/gpus.csv``)."""
    for spec in load_builtin_specs():
        register(spec)


@hookimpl
def register_rankers(register: Callable[[Ranker], None]) -> None:
    """Register the price rankers (:data:`gpuhub.answer.ranking.BUILTIN_RANKERS`) and the workload presets."""
    from gpuhub.answer.workloads import WORKLOAD_RANKERS

    for ranker in (*BUILTIN_RANKERS, *WORKLOAD_RANKERS):
        register(ranker)


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the capacity the user owns (:mod:`gpuhub.fetch.owned`) when its settings file exists."""
    from gpuhub.fetch.owned_path import settings_path

    path = settings_path()
    if path.is_file():
        from gpuhub.fetch.owned import OwnedCapacity  # its reader (pydantic) only when there is something to read

        register(OwnedCapacity(path))
