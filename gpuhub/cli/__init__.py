"""The command line (``gpuhub``): :mod:`.commands` (search, gpus, providers, estimate, serve, plugin, ...),
:mod:`.history` (history, diff, watch, catalog), :mod:`.store` (store), :mod:`.record` (record),
:mod:`.obtain` (purchase-option tables). ``python -m gpuhub.cli`` runs it; the console script is
:func:`gpuhub._entry.main`.

May import every layer below the surfaces and the web surface (``gpuhub serve`` starts it); nothing imports the
command line except the kit. Importing this package imports nothing.

Until gpuhub 0.2, the names of the old ``gpuhub.cli`` module (``gpuhub.cli.app``, ``gpuhub.cli.main``, ...) still
resolve here, with a :class:`DeprecationWarning`: import them from :mod:`gpuhub.cli.commands`.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(f"module 'gpuhub.cli' has no attribute {name!r}")
    import importlib
    import importlib.util
    import warnings

    # ``from gpuhub.cli import helpcache`` asks the package for the name before importing the submodule: a
    # submodule is imported as itself (importing the commands here would load typer for a help read back)
    if importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    commands = importlib.import_module("gpuhub.cli.commands")
    if not hasattr(commands, name):
        raise AttributeError(f"module 'gpuhub.cli' has no attribute {name!r}")
    warnings.warn(f"gpuhub.cli.{name} moved to gpuhub.cli.commands.{name}: import it from there (the old path "
                  "goes away in gpuhub 0.2)", DeprecationWarning, stacklevel=2)
    return getattr(commands, name)
