"""What every ``gpuhub`` command process does around its command, without typer: the stderr console, the
``--timeout`` deadline counted from the process start, Ctrl-C, the plugin registry, and how the process ends
(abandoned fetch threads never keep it alive). :mod:`gpuhub.cli.commands` (the typer app) and the search fast
path (:mod:`gpuhub.cli.search`) share it.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from gpuhub.cli._lazy import lazy

if TYPE_CHECKING:
    from gpuhub.cli.table import TextConsole

__all__ = ["DEADLINE", "err", "leave", "load_registry", "run", "start"]

err: TextConsole = lazy("gpuhub.cli.table", "TextConsole", stderr=True, soft_wrap=True)
"""stderr: every string printed as text (markup off, control characters escaped)."""

DEADLINE: list[float] = []
"""``search --timeout T``: T seconds from the start of the process (plugin loading included), as a
``time.monotonic()`` value; empty without ``--timeout``."""
OWN_PROCESS: list[bool] = [False]
"""True once :func:`start` ran for a command that has the process to itself (the console script): what the command
builds is never handed to other code in the process (stored rows may be shown as read-only views, not models)."""


def fail_usage(message: str) -> None:
    """Print ``error: message`` on stderr and exit with code 2 (a bad argument).

    Raises:
        SystemExit: always, code 2.
    """
    # A 5,000-character value is echoed as its first 60 characters: the message stays one readable line.
    shown = re.sub(r"(?<!\S)(['\"]?)([^\s'\"]{100,})", lambda m: f"{m.group(1)}{m.group(2)[:60]}… "
                   f"({len(m.group(2))} characters)", message)
    err.print(f"error: {shown}", style="red")  # "gpuhub-core[web]" is text, not markup
    raise SystemExit(2)


def argv_timeout(args: list[str]) -> float | None:
    """The value of ``--timeout`` in the command line, read before the plugins load (None when absent or bad)."""
    for i, arg in enumerate(args):
        text = arg.split("=", 1)[1] if arg.startswith("--timeout=") else (
            args[i + 1] if arg == "--timeout" and i + 1 < len(args) else None)
        if text is not None:
            try:
                value = float(text)
            except ValueError:
                return None
            return value if 0 < value < float("inf") else None
    return None


def process_age_s() -> float:
    """Seconds since this process started (interpreter start-up and imports before ``main``), from
    ``/proc/self/stat``; 0 where that is not available."""
    try:
        with open("/proc/self/stat", "rb") as fh:
            start_ticks = int(fh.read().rsplit(b")", 1)[1].split()[19])
        with open("/proc/uptime", "rb") as fh:
            uptime = float(fh.read().split()[0])
        return max(0.0, min(60.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK")))
    except (OSError, ValueError, IndexError):
        return 0.0


def exit_on_ctrl_c() -> None:
    """Make a real Ctrl-C end this process at once with exit code 130, wherever its main thread waits (an import,
    a plugin load, a fetch past its deadline): the handler runs in the main thread at its first chance and ends
    the process there, instead of unwinding through code that could wait again (an import lock a plugin thread
    holds). What was written stays consistent: store writes are SQLite transactions, files are renamed in whole."""
    import signal

    def interrupted(signum: int, frame: object) -> None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # the main thread may be inside a write to it
                stream.flush()
        with contextlib.suppress(OSError):
            os.write(2, b"interrupted\n")
        os._exit(130)

    signal.signal(signal.SIGINT, interrupted)


def start(own_process: bool) -> frozenset[int]:
    """Set up a command's process: pydantic's plugin scan off, Ctrl-C, the ``--timeout`` deadline and the plugin
    load limit; returns the idents of the threads alive before the command (a host's, never ended by it).

    ``own_process``: this process runs only this command (the console script, ``python -m gpuhub.cli``), so
    Ctrl-C ends it at once (:func:`exit_on_ctrl_c`); a host calling ``main`` in-process keeps its own SIGINT
    handling."""
    import threading
    import time

    if own_process:
        # pydantic looks for its own plugins (observability hooks) by listing every installed distribution's entry
        # points when the first model is built: a tenth of a warm search. The command's own process skips that
        # unless the user set PYDANTIC_DISABLE_PLUGINS (an empty value keeps pydantic plugins on).
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    OWN_PROCESS[0] = own_process
    if own_process and threading.current_thread() is threading.main_thread():
        exit_on_ctrl_c()
    inherited = frozenset(t.ident for t in threading.enumerate() if t.ident is not None)
    started = time.monotonic() - process_age_s()
    timeout = argv_timeout(sys.argv[1:])
    if timeout is not None:
        from gpuhub.fetch.plugins import limit_load_time

        DEADLINE[:] = [started + timeout]
        limit_load_time(max(0.2, timeout / 2))  # a hanging plugin leaves the other half to the providers
    return inherited


def quiet_engine_log() -> None:
    """A provider's failure is already on its status line; the engine's log line would repeat it."""
    import logging

    logging.getLogger("gpuhub.service.engine").addHandler(logging.NullHandler())
    logging.getLogger("gpuhub.service.engine").propagate = False


def load_registry() -> None:
    """The process-wide registry, from the plugin index when it describes the installed plugins (no plugin is
    imported), unless one was set already (a host calling ``main`` in-process); ``gpuhub plugins`` always loads
    them for real, since it diagnoses them."""
    from gpuhub.fetch.plugins import Registry, has_registry, reset_registry

    if has_registry():
        return
    if sys.argv[1:2] == ["plugins"]:
        reset_registry(Registry())
        return
    from gpuhub.fetch.plugin_index import load_registry as indexed

    reset_registry(indexed())


def leave(code: object, inherited: frozenset[int] = frozenset(), own_process: bool = False) -> None:
    """Exit with ``code``. Fetch or plugin threads this command started and that still run (a provider past its
    deadline, a plugin that hung at import) are abandoned: flush and end the process at once instead of letting
    interpreter exit wait. Threads that were alive before ``main`` (``inherited`` idents: a host process calling
    ``main`` in-process, such as a test runner) are not this command's and never end the host.

    ``own_process`` (the console script): the heap is frozen first (:func:`gc.freeze`), so the collections that
    interpreter exit runs skip every object this command made (a tenth to a fifth of a warm search's time went
    there); atexit handlers and module teardown still run.

    Raises:
        SystemExit: with the exit code (when no abandoned thread is left; else the process ends at once).
    """
    import threading

    if own_process:
        import gc

        gc.freeze()

    if isinstance(code, str):
        err.print(code, highlight=False, markup=False)
        code = 1
    status = code if isinstance(code, int) else (0 if code is None else 1)
    if any(t.is_alive() and t.name.startswith("gpuhub-") and t.ident not in inherited
           for t in threading.enumerate()):
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        store = sys.modules.get("gpuhub.store.sqlite")  # os._exit runs no atexit: close the store here
        if store is not None:
            store.close_all()
        os._exit(status)
    raise SystemExit(status)


def run(command: Callable[[], None], own_process: bool) -> None:
    """Run ``command`` as the whole of this command's process (:func:`start` first), and end it by :func:`leave`
    with the command's exit code: 0, its ``SystemExit`` code, or 130 on a real Ctrl-C.

    Raises:
        SystemExit: the exit code (when :func:`leave` does not end the process at once).
    """
    inherited = start(own_process)
    try:
        command()
    except SystemExit as exc:
        leave(exc.code, inherited, own_process)
    except KeyboardInterrupt:  # a real Ctrl-C (a plugin's own KeyboardInterrupt is contained as its failure)
        err.print("interrupted", highlight=False)
        leave(130, inherited, own_process)
    leave(0, inherited, own_process)
