"""What a stored snapshot depends on: digests of recordings, code, the enabled plugins and the GPU table.

A replayed snapshot is reused only while its key is the same: the recording (manifest and every body file), the
provider's plugin (name, version, provider class, a fingerprint of its package files), the core's version and
files, every enabled plugin with its version, and the GPU table (spec rows and aliases) the plugins registered.
Enabling or disabling a plugin therefore changes the key at once, and so does editing any parsing code.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import stat
import sys
import time
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib import metadata

    from gpuhub.facts.gpus import GpuTable
    from gpuhub.fetch.plugins import Registry
    from gpuhub.fetch.provider import Provider
    from gpuhub.fetch.recording import Manifest
    from gpuhub.store import Store

INDEX_META = "plugin-index"
"""The store's meta row holding the plugin index (:mod:`gpuhub.fetch.plugin_index`; one per store: the newest
installation that wrote it)."""
INDEX_FORMAT = 3
_SWITCHES = ("GPUHUB_PLUGINS", "GPUHUB_DISABLE_PLUGINS")

__all__ = ["INDEX_META", "code_fingerprint", "gpu_table_fingerprint", "index_key", "installation_stamp", "live_key",
           "quick_key", "recording_digest", "registry_fingerprint", "replay_key"]


def _stamp(info: os.stat_result) -> str:
    return f"{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}:{info.st_ino}"


def code_fingerprint(module: str) -> str:
    """Size, modification and change times (ns) and inode of every file in the package that holds ``module``
    (cached per process and package: a plugin's entry-point module and its provider module share one walk). The
    change time cannot be set back (``touch -r``, ``cp -p``, ``rsync -t`` and unpacked archives keep a file's size
    and modification time, never its change time), so an edited file always counts. A module without an import
    spec (``__main__`` of a script or a notebook) counts its file, if it has one."""
    return _package_fingerprint(module.split(".")[0])


def _fingerprint_cache_clear() -> None:
    _package_fingerprint.cache_clear()


code_fingerprint.cache_clear = _fingerprint_cache_clear  # type: ignore[attr-defined]


@lru_cache(maxsize=64)
def _package_fingerprint(package: str) -> str:
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):  # ValueError: "__main__.__spec__ is None" (a script, a notebook)
        spec = None
    if spec is None:
        origin = getattr(sys.modules.get(package), "__file__", None)
        if not origin or not os.path.isfile(origin):
            return ""
        locations = [origin]
    else:
        locations = list(spec.submodule_search_locations or ([spec.origin] if spec.origin else []))
    digest = hashlib.sha256()
    for location in locations:
        if os.path.isfile(location):
            digest.update(f"{os.path.basename(location)}:{_stamp(os.stat(location))};".encode())
            continue
        for folder, subfolders, files in os.walk(location):
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
            for name in sorted(files):
                path = os.path.join(folder, name)
                with contextlib.suppress(OSError):  # a file removed meanwhile, a dangling link
                    digest.update(f"{os.path.relpath(path, location)}:{_stamp(os.stat(path))};".encode())
    return digest.hexdigest()[:16]


def gpu_table_fingerprint(gpus: GpuTable) -> str:
    """A digest of the GPU table's spec rows and aliases, global and per plugin, and which plugin's aliases each
    provider uses (what resolves a provider's GPU spelling): :meth:`GpuTable.fingerprint`, remembered by the table."""
    return gpus.fingerprint()


def registry_fingerprint(registry: Registry) -> str:
    """The enabled plugins (name, distribution, version) and the GPU table they registered."""
    digest = hashlib.sha256()
    for report in sorted(registry.reports, key=lambda r: r.name):
        if report.status == "loaded":
            digest.update(f"{report.name}|{report.distribution}|{report.version};".encode())
    digest.update(gpu_table_fingerprint(registry.gpus).encode())
    return digest.hexdigest()[:16]


def _recording_files(manifest: Manifest) -> list[str]:
    """The files of a recording that its digest covers, in digest order (after ``manifest.json``)."""
    directory = manifest.directory or Path(".")
    names = [str(name) for exchange in manifest.exchanges
             if (name := exchange.get("response", {}).get("body_file"))]
    if not manifest.exchanges:  # a static provider's table: its data files sit beside the manifest
        names = sorted(f.name for f in directory.iterdir() if f.is_file() and f.name != "manifest.json")
    return names


def recording_digest(manifest: Manifest, store: Store | None = None) -> str:
    """SHA-256 over the manifest and every response body file of a recording (a static table: every data file
    beside its manifest), each read through :mod:`gpuhub.fetch.safeio` (regular files inside the recording,
    size-limited).

    With ``store``, the digest is remembered in the store's meta table beside each file's size, modification and
    change times (ns) and inode, and reused while none of them changed (files changed less than
    :data:`SETTLE_S` before the digest was taken are read again next time, as git does for "racy" files).

    Raises:
        OSError: a file cannot be read or is not a regular file inside the recording.
    """
    from gpuhub.fetch import safeio

    directory = manifest.directory or Path(".")
    names = _recording_files(manifest)
    signature: list[list[object]] | None = None
    changed_ns: list[int] = []
    meta_name = ""
    if store is not None:
        signature = []
        base = os.path.realpath(directory)
        for name in ["manifest.json", *names]:
            # A plain file name whose lstat is a regular file is inside the recording by construction (no link, no
            # separator); anything else is resolved and checked in full (one realpath per file costs more than the
            # rest of a warm search's key).
            plain = name not in (".", "..") and os.sep not in name and "\0" not in name and bool(name)
            info = os.lstat(os.path.join(base, name)) if plain else None
            if info is None or not stat.S_ISREG(info.st_mode):
                info = os.stat(safeio.contained_path(directory, name))
            if not stat.S_ISREG(info.st_mode):
                raise safeio.UnsafeFileError(f"{name!r} in {directory} is not a regular file")
            signature.append([name, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino])
            changed_ns.append(max(info.st_mtime_ns, info.st_ctime_ns))
        meta_name = "recording-digest:" + hashlib.sha256(os.fsencode(base)).hexdigest()[:32]
        remembered = store.get_meta(meta_name)
        if remembered:
            with contextlib.suppress(ValueError, TypeError, KeyError):
                saved = json.loads(remembered)
                if saved["files"] == signature and isinstance(saved["digest"], str):
                    return saved["digest"]
    digest = hashlib.sha256()
    digest.update(safeio.read_bytes(Path("manifest.json"), root=directory))
    for name in names:
        digest.update(b"\0" + name.encode() + b"\0" + safeio.read_bytes(Path(name), root=directory))
    result = digest.hexdigest()
    if store is not None and signature is not None:
        settled = time.time_ns() - int(SETTLE_S * 1e9)
        if max(changed_ns) < settled:
            store.put_meta(meta_name, json.dumps({"files": signature, "digest": result}))
    return result


SETTLE_S = 2.0
"""Seconds a recording file must be unchanged before its remembered digest is trusted."""


def _provider_code(registry: Registry, provider: Provider) -> Iterable[str]:
    from gpuhub._version import __version__

    plugin = registry.provider_plugin.get(provider.name, "")
    version = next((r.version or "" for r in registry.reports if r.name == plugin), "")
    identity = getattr(provider, "code_identity", None)  # duck-typed providers need not subclass Provider
    qualname, module = identity() if callable(identity) else (type(provider).__qualname__, type(provider).__module__)
    return (__version__, plugin, version, qualname, code_fingerprint(module),
            code_fingerprint("gpuhub"), registry_fingerprint(registry))


def replay_key(registry: Registry, provider: Provider, manifest: Manifest, label: str,
               store: Store | None = None) -> str:
    """The key of offers parsed from ``manifest`` by ``provider`` under this registry (``label``: the source
    label the offers carry, e.g. the recording directory's name; ``store``: where the recording's digest is
    remembered, see :func:`recording_digest`).

    Raises:
        OSError: a recording file cannot be read.
    """
    digest = hashlib.sha256()
    recording = recording_digest(manifest, store)
    for part in ("replay", provider.name, label, recording, *_provider_code(registry, provider)):
        digest.update(part.encode() + b"\0")
    return "replay:" + digest.hexdigest()[:32]


def live_key(registry: Registry, provider: Provider, base_url: str) -> str:
    """The key of a live fetch: the endpoint and the same code and registry parts as :func:`replay_key`."""
    digest = hashlib.sha256()
    for part in ("live", provider.name, base_url, *_provider_code(registry, provider)):
        digest.update(part.encode() + b"\0")
    return "live:" + digest.hexdigest()[:32]


def index_key(environ: Mapping[str, str] | None = None,
              entry_points: Iterable[metadata.EntryPoint] | None = None) -> str:
    """A digest of everything that decides what the plugins register: gpuhub's version and package files, each
    ``gpuhub`` entry point (name, target, distribution, version, location, and the size and modification time of
    every file of its package) and the plugin switches. Costs file ``stat`` calls only, no import."""
    from importlib import metadata

    from gpuhub._version import __version__

    env = os.environ if environ is None else environ
    eps = list(metadata.entry_points(group="gpuhub")) if entry_points is None else list(entry_points)
    parts = [f"format={INDEX_FORMAT}", __version__, code_fingerprint("gpuhub")]
    for ep in sorted(eps, key=lambda e: (e.name, e.value)):
        dist = getattr(ep, "dist", None)
        parts.append(f"{ep.name}={ep.value}|{dist.metadata['Name'] if dist else ''}|{dist.version if dist else ''}|"
                     f"{dist.locate_file('') if dist else ''}|{code_fingerprint(ep.value.split(':')[0])}")
    parts += [f"{name}={env.get(name, '')}" for name in _SWITCHES]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def quick_key(modules: Iterable[str], environ: Mapping[str, str] | None = None) -> str:
    """A key of the plugin index that reads no entry point (listing them reads every installed distribution's
    metadata, tens of milliseconds): the :func:`installation_stamp` (installing, removing or upgrading any
    distribution changes a directory on ``sys.path``; the plugin switches), gpuhub's files, and the files of each
    package the index's entry points live in (``modules``: an edited plugin). When it differs, the full
    :func:`index_key` decides."""
    parts = [f"format={INDEX_FORMAT}", installation_stamp(environ), code_fingerprint("gpuhub"),
             *(f"{module}={code_fingerprint(module)}" for module in sorted(modules))]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def installation_stamp(environ: Mapping[str, str] | None = None) -> str:
    """A digest of the modification times of the directories on ``sys.path`` (installing or removing a
    distribution adds or removes its metadata directory there), gpuhub's version and the plugin switches: cheap
    enough for ``gpuhub --help``, which only needs to know whether the installed set of plugins is the one the
    plugin index describes (every other command checks the full :func:`index_key`)."""
    import sys

    from gpuhub._version import __version__

    env = os.environ if environ is None else environ
    parts = [__version__, *(f"{name}={env.get(name, '')}" for name in _SWITCHES)]
    # sys.path[0] is the running script's folder or the working directory (``python -m``, ``python -c``), not where
    # distributions are installed: counting it made the console script, ``python -m gpuhub.cli`` and a notebook
    # (or one command run from two folders) rebuild the index for one another on every run.
    for entry in sys.path if getattr(sys.flags, "safe_path", False) else sys.path[1:]:
        with contextlib.suppress(OSError):
            parts.append(f"{entry}:{os.stat(entry or '.').st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]
