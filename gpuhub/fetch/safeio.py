"""Safe reading and writing of the files gpuhub keeps: caches, stores, recordings and manifests.

Every file gpuhub reads goes through :func:`read_bytes` (or :func:`read_json`): a regular file, inside the
directory it belongs to (no ``..``, no absolute path elsewhere, no symlink out), never a device or a FIFO (opened
non-blocking, checked with ``fstat`` before one byte is read), and never more than a size limit. JSON is parsed with
a nesting-depth limit checked before parsing, so a deeply nested file is an error, not a ``RecursionError``.

Writes go through :func:`atomic_write` (temporary file in the same directory, then rename); the temporary files of
a writer killed mid-write match :data:`DEBRIS_GLOB` and :func:`clean_debris` removes them once they are old.

Errors are :class:`UnsafeFileError` (an ``OSError``, so ``except OSError`` around a read still catches them) and
:class:`JsonLimitError` (a ``ValueError``, like ``json.JSONDecodeError``).
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["DEBRIS_GLOB", "MAX_DEPTH", "MAX_FILE_BYTES", "JsonLimitError", "UnsafeFileError", "atomic_write",
           "check_depth", "clean_debris", "contained_path", "loads_json", "read_bytes", "read_json"]

MAX_FILE_BYTES = 256 * 1024 * 1024
"""Default size limit of one file read, bytes (256 MiB; a provider's whole recorded answer fits far below)."""
MAX_DEPTH = 64
"""Default JSON nesting limit (arrays and objects); provider APIs nest fewer than 15 levels."""
DEBRIS_GLOB = ".*.tmp"
"""The names :func:`atomic_write` gives its temporary files (``.<name>.<random>.tmp``)."""


class UnsafeFileError(OSError):
    """A file that must not be read: outside its directory, not a regular file, or over the size limit."""


class JsonLimitError(ValueError):
    """JSON nested deeper than the limit (or otherwise too large to parse safely)."""


def contained_path(root: Path, name: str | os.PathLike[str]) -> Path:
    """``root / name`` resolved, checked to stay inside ``root`` (symlinks resolved on both sides).

    Raises:
        UnsafeFileError: ``name`` is absolute, empty, or resolves outside ``root`` (``..``, a symlink out).
    """
    text = os.fspath(name)
    if not text or "\0" in text or os.path.isabs(text):
        raise UnsafeFileError(f"{text!r} is not a relative file name inside {root}")
    base = Path(os.path.realpath(root))
    target = Path(os.path.realpath(base / text))
    if target != base and base not in target.parents:
        raise UnsafeFileError(f"{text!r} points outside {root}")
    return target


def read_bytes(path: Path, *, root: Path | None = None, limit: int = MAX_FILE_BYTES) -> bytes:
    """The contents of a regular file, at most ``limit`` bytes.

    Args:
        path: the file; relative to ``root`` when ``root`` is given (then it must stay inside ``root``).
        root: the directory the file must be inside (None: no containment check).
        limit: size limit, bytes.

    Raises:
        UnsafeFileError: outside ``root``, not a regular file (a FIFO, ``/dev/zero``, a directory), or larger
            than ``limit``.
        OSError: the file cannot be opened or read (absent, permission denied).
    """
    target = contained_path(root, path) if root is not None else Path(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(target, flags)  # non-blocking: opening a FIFO with no writer returns at once
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFileError(f"{target} is not a regular file")
        if info.st_size > limit:
            raise UnsafeFileError(f"{target} is {info.st_size} bytes, over the limit of {limit}")
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # the file grew while being read
                raise UnsafeFileError(f"{target} is over the limit of {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


_STRING_RX = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)


def check_depth(data: bytes | str, max_depth: int = MAX_DEPTH) -> None:
    """Raise :class:`JsonLimitError` when JSON text nests arrays/objects deeper than ``max_depth`` (strings are
    skipped; brackets inside them do not count). Linear time, no recursion."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if raw.count(b"[") + raw.count(b"{") <= max_depth:
        return
    skeleton = _STRING_RX.sub(b"", raw).translate(None, delete=bytes(set(range(256)) - set(b"[]{}")))
    import numpy as np

    steps = np.frombuffer(skeleton, dtype=np.uint8)
    depth = np.cumsum(np.where((steps == ord("[")) | (steps == ord("{")), 1, -1).astype(np.int32))
    if depth.size and int(depth.max()) > max_depth:
        raise JsonLimitError(f"JSON nested deeper than {max_depth} levels")


def loads_json(data: bytes | str, *, max_depth: int = MAX_DEPTH, what: str = "JSON") -> Any:
    """Parse JSON text with a nesting limit.

    Raises:
        JsonLimitError: nested deeper than ``max_depth``.
        ValueError: not valid JSON (``json.JSONDecodeError``) or not UTF-8 (``UnicodeDecodeError``).
    """
    check_depth(data, max_depth)
    try:
        return json.loads(data)
    except RecursionError:  # pragma: no cover - the depth check comes first; belt and braces
        raise JsonLimitError(f"{what} is nested too deeply") from None


def read_json(path: Path, *, root: Path | None = None, limit: int = MAX_FILE_BYTES,
              max_depth: int = MAX_DEPTH) -> Any:
    """:func:`read_bytes` then :func:`loads_json`; errors as both raise (``OSError`` or ``ValueError``)."""
    return loads_json(read_bytes(path, root=root, limit=limit), max_depth=max_depth, what=str(path))


def atomic_write(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory and a rename, so readers see the old
    file or the new one, never half of one. The file is readable by the user only (``mode``).

    Raises:
        OSError: the directory cannot be created or written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def clean_debris(directory: Path, *, older_than_s: float = 600.0) -> int:
    """Remove temporary files left by writers killed mid-write (:data:`DEBRIS_GLOB`) that are older than
    ``older_than_s`` seconds (a younger one may belong to a writer still running). Returns how many were removed;
    never raises."""
    removed = 0
    now = time.time()
    try:
        for debris in directory.glob(DEBRIS_GLOB):
            try:
                info = debris.lstat()
                if stat.S_ISREG(info.st_mode) and now - info.st_mtime > older_than_s:
                    debris.unlink()
                    removed += 1
            except OSError:
                continue
    except OSError:
        pass
    return removed
