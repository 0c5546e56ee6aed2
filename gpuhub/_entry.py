"""The ``gpuhub`` console script: settles what needs nothing else before the command line module loads.

``gpuhub --version`` prints without importing typer or anything else; a ``gpuhub search`` whose arguments are all
well-formed options runs through :func:`gpuhub.cli.search.fast_main` (no typer); every other command runs
:func:`gpuhub.cli.commands.main`. The collector's first generation threshold is raised for the process: a CLI run is
short and allocates its long-lived objects (modules, classes, the GPU table, offers) up front, which the default
threshold of 700 would traverse again and again (about a tenth of a search served from the store).
"""

from __future__ import annotations

import gc
import os
import sys

GC_THRESHOLD = (50_000, 50, 100)
"""The console script's collector thresholds (generation 0, 1, 2); cyclic garbage is still collected."""


def main() -> None:
    """Run the ``gpuhub`` command (the arguments are ``sys.argv``); exits with its code."""
    if sys.argv[1:] == ["--version"]:
        from gpuhub._version import __version__

        sys.stdout.write(f"gpuhub {__version__}\n")
        return
    gc.set_threshold(*GC_THRESHOLD)
    # numpy's OpenBLAS starts a thread per core when numpy is imported; a command never does linear algebra
    # (filters, sorts and gathers only), so one thread is enough and the import is cheaper (a user's own setting
    # is kept).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if sys.argv[1:2] == ["search"]:
        from gpuhub.cli.search import fast_main

        if fast_main(sys.argv[2:]):  # a well-formed search runs without building the typer app
            return
    if sys.argv[1:] == ["--help"]:  # the help this code printed before in this terminal, read back
        from gpuhub.cli import helpcache

        if helpcache.replay():
            return
        from gpuhub.cli.commands import main as run

        with helpcache.recording():
            run(own_process=True)
    from gpuhub.cli.commands import main as run

    run(own_process=True)
