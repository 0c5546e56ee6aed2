"""``gpuhub --help`` read back instead of built again: typer builds a click command for every command on each run
(about 0.1 s) to print text that changes only with gpuhub's code and the terminal.

The text is kept per key in ``<store directory>/help/<key>.txt`` (a local store only). The key covers what
the text depends on: gpuhub's version and the size and times of every file of its package
(:func:`gpuhub.fetch.keys.code_fingerprint`), the installation stamp (a plugin installed or removed), the program
name the usage line shows, whether stdout is a terminal, its size and encoding, and the variables rich reads
(``TERM``, ``NO_COLOR``, ``FORCE_COLOR``, ...). It is used only when the plugin index says no plugin adds a
command (the help is then gpuhub's own); the first run in a new situation builds the help as before and keeps what
it printed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["no_plugin_commands", "recording", "replay"]

_KEYED_VARIABLES = ("COLUMNS", "LINES", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE",
                    "TTY_INTERACTIVE", "JUPYTER_COLUMNS", "JUPYTER_LINES", "GPUHUB_STRICT_PLUGINS")
"""The environment the help text depends on: what rich reads of the terminal, and strict plugin loading."""
_KEPT = 16
"""How many help texts are kept (terminal sizes and colour settings a user has); the oldest go first."""


def no_plugin_commands() -> bool:
    """True when the store's plugin index was written for the plugins installed now (an index exists only when no
    plugin adds commands), so top-level help imports none. Checked by the cheap installation stamp (directory
    times on ``sys.path``): help text is built from the code itself, only plugin commands could be missing."""
    import json

    from gpuhub.fetch.keys import INDEX_META, installation_stamp
    from gpuhub.store import StoreError, open_store

    try:
        store = open_store()
        text = store.get_meta(INDEX_META) if store is not None else None
        return bool(text) and json.loads(text or "{}").get("stamp") == installation_stamp()
    except (StoreError, OSError, ValueError, AttributeError):
        return False


def _folder() -> Path | None:
    from gpuhub.store import default_location

    location = default_location()
    if location is None or "://" in location:
        return None
    return Path(location) / "help"


def _key() -> str | None:
    """The key of the help this process would print, or None when it must be built (a plugin may add commands, or
    the store cannot say)."""
    from gpuhub._version import __version__
    from gpuhub.fetch.keys import code_fingerprint, installation_stamp

    if not no_plugin_commands():
        return None
    stream = sys.stdout
    try:
        size = os.get_terminal_size(stream.fileno()) if stream.isatty() else None
    except (OSError, ValueError, AttributeError):
        size = None
    parts = [__version__, code_fingerprint("gpuhub"), installation_stamp(), os.path.basename(sys.argv[0]),
             str(stream.isatty()), str(size),
             str(getattr(stream, "encoding", None)), *(f"{v}={os.environ.get(v, '')}" for v in _KEYED_VARIABLES)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def replay() -> bool:
    """Write the kept help for this situation to stdout; False (nothing written) when there is none."""
    folder = _folder()
    key = _key() if folder is not None else None
    if folder is None or key is None:
        return False
    try:
        text = (folder / f"{key}.txt").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    sys.stdout.write(text)
    sys.stdout.flush()
    return True


class _Tee:
    """stdout as it is, keeping a copy of what is written (isatty, encoding, fileno: the stream's own)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.kept: list[str] = []

    def write(self, text: str) -> int:
        written = int(self._stream.write(text))  # first: what the stream refuses (click probes with bytes) is not kept
        self.kept.append(text)
        return written

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def recording() -> Iterator[None]:
    """Run the help command inside: what it prints to stdout is kept for the next run when it ends with exit
    code 0 (a failure to keep it only costs the next run the build)."""
    stream = sys.stdout
    tee = _Tee(stream)
    sys.stdout = tee
    code: object = 0
    try:
        yield
    except SystemExit as exc:
        code = exc.code
        raise
    finally:
        sys.stdout = stream
        if code in (0, None) and tee.kept:
            with contextlib.suppress(OSError, ValueError, TypeError):
                _keep("".join(tee.kept))


def _keep(text: str) -> None:
    folder = _folder()
    key = _key() if folder is not None else None
    if folder is None or key is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{key}.{os.getpid()}.tmp"
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, folder / f"{key}.txt")
    kept = sorted(folder.glob("*.txt"), key=lambda p: p.stat().st_mtime_ns)
    for old in kept[:-_KEPT]:
        with contextlib.suppress(OSError):
            old.unlink()
