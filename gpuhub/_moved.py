"""Old module paths of the flat layout (gpuhub 0.1), kept for one release as thin aliases that warn.

Each old path (``gpuhub/engine.py``, ...) is a two-line module that calls :func:`moved`: the import emits a
:class:`DeprecationWarning` naming the new path and then *is* the new module (``sys.modules`` holds the same object,
so ``gpuhub.engine.Engine is gpuhub.service.engine.Engine`` and patching one patches the other).
``tests/test_layers.py`` imports every path in :data:`MOVED`. The aliases go away in gpuhub 0.2.
"""

from __future__ import annotations

import importlib
import sys
import warnings

__all__ = ["MOVED", "moved"]

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
    "gpuhub.store.keys": "gpuhub.fetch.keys",
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


def moved(old: str) -> None:
    """Make the module being imported as ``old`` an alias of its new module, after a :class:`DeprecationWarning`.

    Raises:
        KeyError: ``old`` is not in :data:`MOVED`.
        DeprecationWarning: when warnings are errors (the test suite).
    """
    new = MOVED[old]
    module = importlib.import_module(new)
    warnings.warn(f"{old} moved to {new}: import it from there (the old path goes away in gpuhub 0.2)",
                  DeprecationWarning, stacklevel=3)
    sys.modules[old] = module
