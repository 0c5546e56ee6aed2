"""Compatibility: the on-disk cache of parsed recordings is now the offer store (:mod:`gpuhub.store`).

``DiskCache(directory)`` names a store directory for an :class:`~gpuhub.service.engine.Engine` (``disk=``);
``DiskCache(None)`` turns persistence off. ``GPUHUB_CACHE_DIR`` / ``GPUHUB_NO_DISK_CACHE`` still work: the store
is then ``$GPUHUB_CACHE_DIR/store``, or off (``GPUHUB_STORE`` takes precedence over both).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from gpuhub.fetch.keys import code_fingerprint

if TYPE_CHECKING:
    from gpuhub.store import Store

__all__ = ["DiskCache", "code_fingerprint"]


class DiskCache:
    """A store directory (``directory`` None: no store)."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> DiskCache:
        """The store directory configured by ``GPUHUB_STORE`` / ``GPUHUB_CACHE_DIR`` / ``GPUHUB_NO_DISK_CACHE``."""
        from gpuhub.store import default_location

        where = default_location(environ)
        return cls(None if where is None else Path(where))

    def open_store(self) -> Store | None:
        """The store in :attr:`directory` (None when off).

        Raises:
            StoreError: the directory cannot be created or opened.
        """
        if self.directory is None:
            return None
        from gpuhub.store import open_store

        return open_store(str(self.directory))
