"""Old module paths of the flat layout (gpuhub 0.1), kept for one release as aliases that warn.

No file stays at an old path (so git follows each move as a rename, and edits made to a file before the move merge
into its new place): an import hook (:class:`_OldPaths`, installed by ``import gpuhub``) answers for every path
in :data:`MOVED`. Importing one emits a :class:`DeprecationWarning` naming the new path, and the old name then *is*
the new module (``sys.modules`` holds the same object, so ``gpuhub.engine.Engine is gpuhub.service.engine.Engine``
and patching one patches the other). ``tests/test_layers.py`` imports every path in :data:`MOVED`. The aliases go
away in gpuhub 0.2.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.abc import Loader, MetaPathFinder

    class _Base(MetaPathFinder, Loader):
        pass
else:  # importlib.abc would import importlib.resources (~20 ms at start-up): the protocols are duck-typed
    _Base = object

__all__ = ["MOVED", "install"]

MOVED: dict[str, str] = {
    # reference facts
    "gpuhub.gpus": "gpuhub.facts.gpus", "gpuhub.regions": "gpuhub.facts.regions",
    "gpuhub.location": "gpuhub.facts.location", "gpuhub.places": "gpuhub.facts.places",
    "gpuhub.carbon": "gpuhub.facts.carbon", "gpuhub.compat": "gpuhub.facts.compat",
    "gpuhub.perf": "gpuhub.facts.perf", "gpuhub.modelfit": "gpuhub.facts.modelfit",
    # the store
    "gpuhub.validate": "gpuhub.store.validate",
    # answering
    "gpuhub.catalog": "gpuhub.answer.catalog", "gpuhub.query": "gpuhub.answer.query",
    "gpuhub.ranking": "gpuhub.answer.ranking", "gpuhub.workloads": "gpuhub.answer.workloads",
    "gpuhub.explain": "gpuhub.answer.explain", "gpuhub.grouping": "gpuhub.answer.grouping",
    "gpuhub.estimate": "gpuhub.answer.estimate", "gpuhub.obtain.cost": "gpuhub.answer.cost",
    "gpuhub.obtain.compare": "gpuhub.answer.compare", "gpuhub.obtain.launch": "gpuhub.answer.launch",
    # fetching and plugins
    "gpuhub.provider": "gpuhub.fetch.provider", "gpuhub.transports": "gpuhub.fetch.transports",
    "gpuhub.recording": "gpuhub.fetch.recording", "gpuhub.retry": "gpuhub.fetch.retry",
    "gpuhub.safeio": "gpuhub.fetch.safeio", "gpuhub.hookspecs": "gpuhub.fetch.hookspecs",
    "gpuhub.plugins": "gpuhub.fetch.plugins", "gpuhub.builtin": "gpuhub.fetch.builtin",
    "gpuhub.plugin_index": "gpuhub.fetch.plugin_index", "gpuhub.diskcache": "gpuhub.fetch.diskcache",
    "gpuhub.store.keys": "gpuhub.fetch.keys", "gpuhub.rowchecks": "gpuhub.fetch.rowchecks",
    # running a search
    "gpuhub.engine": "gpuhub.service.engine", "gpuhub.searching": "gpuhub.service.searching",
    "gpuhub.reports": "gpuhub.service.reports",
    # the command line (gpuhub.cli itself is now the package; its old attributes warn, see gpuhub/cli/__init__.py)
    "gpuhub.cli_history": "gpuhub.cli.history", "gpuhub.cli_record": "gpuhub.cli.record",
    "gpuhub.cli_store": "gpuhub.cli.store", "gpuhub.obtain.cli": "gpuhub.cli.obtain",
    # the plugin author's kit
    "gpuhub.testing": "gpuhub.kit.testing", "gpuhub.scaffold": "gpuhub.kit.scaffold",
}
"""Old module path -> new module path."""


class _OldPaths(_Base):
    """Finds and loads an old module path as its new module, after a :class:`DeprecationWarning`."""

    def __init__(self) -> None:
        self._specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        """A spec for ``fullname`` when it is an old path (:data:`MOVED`), else None (not ours)."""
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        """The new module itself (imported if needed).

        Raises:
            DeprecationWarning: when warnings are errors (the test suite): the old path must not be used.
        """
        new = MOVED[spec.name]
        module = importlib.import_module(new)
        self._specs[new] = module.__spec__
        warnings.warn(f"{spec.name} moved to {new}: import it from there (the old path goes away in gpuhub 0.2)",
                      DeprecationWarning, stacklevel=2)
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run (the module is the new one, already imported); the import system gave it the old path's
        spec, and it gets its own back (``importlib.reload``, ``importlib.resources`` read it)."""
        module.__spec__ = self._specs.pop(module.__name__, module.__spec__)


_FINDER = _OldPaths()


def install() -> None:
    """Answer for the old paths from now on in this process (idempotent; ``import gpuhub`` calls it)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)  # before the path finders: an old path never finds a stale file
