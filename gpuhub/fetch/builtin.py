"""gpuhub's own built-in plugin: the default GPU table, the default rankers and the workload presets.

It loads through the same plugin manager path as pip-installed plugins.
"""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.answer.ranking import BUILTIN_RANKERS, Ranker
from gpuhub.facts.gpus import GpuSpec, load_builtin_specs
from gpuhub.fetch.hookspecs import hookimpl


@hookimpl
def register_gpu_specs(register: Callable[[GpuSpec], None], alias: Callable[[str, str], None]) -> None:
    for spec in load_builtin_specs():
        register(spec)


@hookimpl
def register_rankers(register: Callable[[Ranker], None]) -> None:
    from gpuhub.answer.workloads import WORKLOAD_RANKERS

    for ranker in (*BUILTIN_RANKERS, *WORKLOAD_RANKERS):
        register(ranker)
