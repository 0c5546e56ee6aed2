"""On-disk cache of offers parsed from recordings, so a new process does not parse raw responses again.

One JSON file per (provider, recording content, gpuhub and plugin version), under
``$GPUHUB_CACHE_DIR`` or the user cache directory (platformdirs). Set ``GPUHUB_NO_DISK_CACHE=1`` to turn it off.

Safety: the cache is plain JSON (never pickle) after a header line holding a SHA-256 of the payload, verified on
load; files are read through :mod:`gpuhub.safeio` (regular files only, size and nesting limits); every value read
back is validated by the pydantic models. A file that fails any check is deleted with a warning and the recording
is parsed again; an unreadable cache directory is a cache miss with one warning. Files are written atomically (a
crash mid-write leaves the old file; old temporary files of killed writers are removed) and readable by the user
only.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import pydantic
from typing_extensions import TypedDict  # pydantic validates typing.TypedDict only from Python 3.12

from gpuhub import safeio
from gpuhub.model import Instance, Offer, Price, Region, Source
from gpuhub.obtain.model import Obtainability
from gpuhub.recording import Manifest, atomic_write

__all__ = ["DiskCache", "code_fingerprint", "seal", "unseal"]

log = logging.getLogger("gpuhub.diskcache")
FORMAT = 2
MAX_CACHE_BYTES = 64 * 1024 * 1024
"""A cache file larger than this (bytes) is discarded unread (the largest provider's is a few MiB)."""
_WARNED: set[str] = set()


def _header(key: str, payload: bytes) -> bytes:
    """The first line of a cache file: format and a SHA-256 of the cache key and the payload, verified on load (a
    file whose prices were changed, or cut short, is discarded)."""
    digest = hashlib.sha256(key.encode() + b"\0" + payload).hexdigest()
    return f"gpuhub-cache {FORMAT} sha256={digest}".encode()


def seal(key: str, data: Mapping[str, Any]) -> bytes:
    """A cache file's bytes: the checksummed header line, then ``data`` as compact JSON."""
    payload = json.dumps(data, separators=(",", ":")).encode()
    return _header(key, payload) + b"\n" + payload


def unseal(raw: bytes) -> Any:
    """The JSON payload of a cache file's bytes, without verifying it (for inspection and tests)."""
    return json.loads(raw.partition(b"\n")[2])


def _discard(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)


@lru_cache(maxsize=64)
def code_fingerprint(module: str) -> str:
    """Size and modification time of every file in the package that holds ``module`` (cached per process)."""
    spec = importlib.util.find_spec(module.split(".")[0])
    if spec is None or not spec.submodule_search_locations:
        return ""
    digest = hashlib.sha256()
    for location in spec.submodule_search_locations:
        for path in sorted(Path(location).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                info = path.stat()
                digest.update(f"{path.relative_to(location)}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.hexdigest()[:16]


class _Report(TypedDict, total=False):
    reason: str | None
    skipped_records: int
    skipped_reasons: dict[str, int]
    unknown_gpus: dict[str, int]
    warnings: list[str]
    partial_reasons: dict[str, int]


@lru_cache(maxsize=1)
def _report_adapter() -> pydantic.TypeAdapter[_Report]:
    return pydantic.TypeAdapter(_Report)


@lru_cache(maxsize=1)
def _adapters() -> tuple[pydantic.TypeAdapter[list[Instance]], pydantic.TypeAdapter[list[Region]],
                         pydantic.TypeAdapter[list[Price]]]:
    # One validation call per list is several times faster than a model_validate call per item.
    return (pydantic.TypeAdapter(list[Instance]), pydantic.TypeAdapter(list[Region]), pydantic.TypeAdapter(list[Price]))


@lru_cache(maxsize=1)
def _obtain_adapter() -> pydantic.TypeAdapter[list[Obtainability]]:
    return pydantic.TypeAdapter(list[Obtainability])


class DiskCache:
    """Parsed offers keyed by recording content. ``directory`` None turns the cache off."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> DiskCache:
        """The cache configured by ``GPUHUB_CACHE_DIR`` / ``GPUHUB_NO_DISK_CACHE``, else the user cache dir."""
        if environ.get("GPUHUB_NO_DISK_CACHE", "").strip().lower() in ("1", "true", "yes"):
            return cls(None)
        if environ.get("GPUHUB_CACHE_DIR"):
            return cls(Path(environ["GPUHUB_CACHE_DIR"]) / "parsed")
        import platformdirs

        return cls(Path(platformdirs.user_cache_dir("gpuhub")) / "parsed")

    @staticmethod
    def key(provider: str, manifest: Manifest, versions: Sequence[str]) -> str:
        """A digest of everything the parsed offers depend on: the manifest, every body file, the versions."""
        digest = hashlib.sha256()
        for part in (provider, *versions):
            digest.update(part.encode() + b"\0")
        directory = manifest.directory or Path(".")
        digest.update(safeio.read_bytes(Path("manifest.json"), root=directory))
        for exchange in manifest.exchanges:
            name = exchange.get("response", {}).get("body_file")
            if name:
                digest.update(safeio.read_bytes(Path(str(name)), root=directory))
        if not manifest.exchanges:  # a static provider's table: its data files sit beside the manifest
            for file in sorted(f for f in directory.iterdir() if f.is_file() and f.name != "manifest.json"):
                digest.update(file.name.encode() + b"\0" + safeio.read_bytes(Path(file.name), root=directory))
        return digest.hexdigest()[:32]

    def _path(self, provider: str, key: str) -> Path | None:
        return None if self.directory is None else self.directory / f"{provider}-{key}.json"

    def _warn_once(self, message: str, *args: object) -> None:
        """One warning per cache directory in a process (a search asks for every provider)."""
        marker = str(self.directory)
        if marker not in _WARNED:
            _WARNED.add(marker)
            log.warning(message, *args)

    def load(self, provider: str, key: str, source: Source) -> tuple[list[Offer], dict[str, Any]] | None:
        """Offers and the saved fetch report, or None when absent or unusable: any failure to read the cache is a
        miss with one warning, never an error (a bad file is removed; an unreadable directory is left alone)."""
        path = self._path(provider, key)
        if path is None:
            return None
        try:
            raw = safeio.read_bytes(path, limit=MAX_CACHE_BYTES)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:  # unreadable directory or file, not a regular file, over the limit
            self._warn_once("cache %s not usable, parsing the recording instead: %s", self.directory, str(exc)[:200])
            if isinstance(exc, safeio.UnsafeFileError):
                _discard(path)
            return None
        try:
            header, _, payload = raw.partition(b"\n")
            if header != _header(key, payload):
                raise ValueError("checksum does not match the cached data (changed or damaged)")
            data = safeio.loads_json(payload, max_depth=16)
            if not isinstance(data, dict):
                raise ValueError(f"expected a JSON object, got {type(data).__name__}")
            if data.get("format") != FORMAT or data.get("key") != key or data.get("provider") != provider:
                raise ValueError("format, key or provider does not match")
            instances = _adapters()[0].validate_python(data["instances"])
            regions = _adapters()[1].validate_python(data["regions"])
            prices = _adapters()[2].validate_python(data["prices"])
            offers = []
            obtains = _obtain_adapter().validate_python(data.get("obtains", []))
            for inst, region, price, available, *more in data["offers"]:
                if available not in (True, False, None):
                    raise ValueError("bad availability")
                obtain = obtains[more[0]] if more and more[0] is not None else None
                offers.append(Offer(instance=instances[inst], region=regions[region], price=prices[price],
                                    available=available, source=source, obtain=obtain))
            if any(o.instance.provider != provider for o in offers):
                raise ValueError("offer of another provider")
            return offers, dict(_report_adapter().validate_python(data["report"]))
        except (ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError, MemoryError,
                pydantic.ValidationError) as exc:
            log.warning("discarding unusable cache file %s: %s", path, str(exc)[:200])
            _discard(path)
            return None

    def save(self, provider: str, key: str, offers: Sequence[Offer], report: Mapping[str, Any]) -> None:
        """Write the offers (deduplicated instances, regions and prices); failures only log a warning."""
        path = self._path(provider, key)
        if path is None:
            return
        tables: dict[str, dict[int, int]] = {"instances": {}, "regions": {}, "prices": {}, "obtains": {}}
        lists: dict[str, list[dict[str, Any]]] = {"instances": [], "regions": [], "prices": [], "obtains": []}

        def index(kind: str, model: pydantic.BaseModel) -> int:
            seen = tables[kind]
            ident = id(model)
            if ident not in seen:
                seen[ident] = len(lists[kind])
                computed = set(type(model).model_computed_fields)
                lists[kind].append(model.model_dump(mode="json", exclude=computed))
            return seen[ident]

        rows = [[index("instances", o.instance), index("regions", o.region), index("prices", o.price), o.available,
                 *([index("obtains", o.obtain)] if o.obtain is not None else [])] for o in offers]
        data = {"format": FORMAT, "provider": provider, "key": key, "report": dict(report), **lists, "offers": rows}
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            for stale in path.parent.glob(f"{provider}-*.json"):
                if stale != path:
                    stale.unlink(missing_ok=True)
            safeio.clean_debris(path.parent)  # temporary files of writers killed mid-write
            atomic_write(path, seal(key, data))
        except OSError as exc:
            self._warn_once("could not write cache file %s: %s", path, exc)
