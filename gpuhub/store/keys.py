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
from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from gpuhub.gpus import GpuTable
    from gpuhub.plugins import Registry
    from gpuhub.provider import Provider
    from gpuhub.recording import Manifest

INDEX_META = "plugin-index"
"""The store's meta row holding the plugin index (:mod:`gpuhub.plugin_index`; one per store: the newest
installation that wrote it)."""
INDEX_FORMAT = 1
_SWITCHES = ("GPUHUB_PLUGINS", "GPUHUB_DISABLE_PLUGINS")

__all__ = ["INDEX_META", "code_fingerprint", "gpu_table_fingerprint", "index_key", "live_key", "recording_digest",
           "registry_fingerprint", "replay_key"]


@lru_cache(maxsize=64)
def code_fingerprint(module: str) -> str:
    """Size and modification time of every file in the package that holds ``module`` (cached per process)."""
    spec = importlib.util.find_spec(module.split(".")[0])
    if spec is None:
        return ""
    locations = list(spec.submodule_search_locations or ([spec.origin] if spec.origin else []))
    digest = hashlib.sha256()
    for location in locations:
        if os.path.isfile(location):
            info = os.stat(location)
            digest.update(f"{os.path.basename(location)}:{info.st_size}:{info.st_mtime_ns};".encode())
            continue
        for folder, subfolders, files in os.walk(location):
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
            for name in sorted(files):
                path = os.path.join(folder, name)
                with contextlib.suppress(OSError):  # a file removed meanwhile, a dangling link
                    info = os.stat(path)
                    digest.update(f"{os.path.relpath(path, location)}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.hexdigest()[:16]


def gpu_table_fingerprint(gpus: GpuTable) -> str:
    """A digest of the GPU table's spec rows and aliases (what resolves a provider's GPU spelling)."""
    digest = hashlib.sha256()
    for spec in gpus.specs:
        digest.update(repr(spec).encode())
    digest.update(repr(sorted(gpus._aliases.items())).encode())
    return digest.hexdigest()[:16]


def registry_fingerprint(registry: Registry) -> str:
    """The enabled plugins (name, distribution, version) and the GPU table they registered."""
    digest = hashlib.sha256()
    for report in sorted(registry.reports, key=lambda r: r.name):
        if report.status == "loaded":
            digest.update(f"{report.name}|{report.distribution}|{report.version};".encode())
    digest.update(gpu_table_fingerprint(registry.gpus).encode())
    return digest.hexdigest()[:16]


class _Meta(Protocol):
    def get_meta(self, name: str) -> str | None: ...

    def put_meta(self, name: str, value: str) -> None: ...


def _recording_files(manifest: Manifest, directory: Path) -> list[str]:
    """The files a recording's digest covers: its manifest and every body file (a static table: every data file
    beside its manifest)."""
    names = ["manifest.json"]
    for exchange in manifest.exchanges:
        name = exchange.get("response", {}).get("body_file")
        if name:
            names.append(str(name))
    if not manifest.exchanges:
        names += sorted(f.name for f in directory.iterdir() if f.is_file() and f.name != "manifest.json")
    return names


def _stat_signature(directory: Path, names: list[str]) -> str | None:
    """Size, modification time, inode and type of each file (``lstat``: a file swapped for a link changes it);
    None when one cannot be read."""
    digest = hashlib.sha256(str(directory.resolve()).encode())
    try:
        for name in names:
            info = os.lstat(directory / name)
            digest.update(f"{name}:{info.st_size}:{info.st_mtime_ns}:{info.st_ino}:{info.st_mode};".encode())
    except (OSError, ValueError):
        return None
    return digest.hexdigest()


def recording_digest(manifest: Manifest, memo: _Meta | None = None) -> str:
    """SHA-256 over the manifest and every response body file of a recording (a static table: every data file
    beside its manifest), each read through :mod:`gpuhub.safeio` (regular files inside the recording, size-limited).

    With ``memo`` (the offer store), the digest of files whose ``lstat`` is unchanged since it was last computed is
    read back instead (a CLI run then reads no body file: the same trust as :func:`code_fingerprint` gives a
    plugin's code); any change to a file's size, time, inode or type computes it again.

    Raises:
        OSError: a file cannot be read or is not a regular file inside the recording.
    """
    from gpuhub import safeio

    directory = manifest.directory or Path(".")
    names = _recording_files(manifest, directory)
    signature = _stat_signature(directory, names) if memo is not None else None
    slot = f"recording-digest:{directory.resolve()}"
    if memo is not None and signature is not None:
        with contextlib.suppress(Exception):  # a memo that cannot be read is a miss
            known = json.loads(memo.get_meta(slot) or "{}")
            if known.get("signature") == signature and isinstance(known.get("digest"), str):
                return str(known["digest"])
    digest = hashlib.sha256()
    digest.update(safeio.read_bytes(Path("manifest.json"), root=directory))
    for name in names[1:]:
        digest.update(b"\0" + name.encode() + b"\0" + safeio.read_bytes(Path(name), root=directory))
    result = digest.hexdigest()
    if memo is not None and signature is not None:
        with contextlib.suppress(Exception):
            memo.put_meta(slot, json.dumps({"signature": signature, "digest": result}))
    return result


def _provider_code(registry: Registry, provider: Provider) -> Iterable[str]:
    from gpuhub import __version__

    plugin = registry.provider_plugin.get(provider.name, "")
    version = next((r.version or "" for r in registry.reports if r.name == plugin), "")
    identity = getattr(provider, "code_identity", None)  # duck-typed providers need not subclass Provider
    qualname, module = identity() if callable(identity) else (type(provider).__qualname__, type(provider).__module__)
    return (__version__, plugin, version, qualname, code_fingerprint(module),
            code_fingerprint("gpuhub"), registry_fingerprint(registry))


def replay_key(registry: Registry, provider: Provider, manifest: Manifest, label: str,
               memo: _Meta | None = None) -> str:
    """The key of offers parsed from ``manifest`` by ``provider`` under this registry (``label``: the source
    label the offers carry, e.g. the recording directory's name; ``memo``: see :func:`recording_digest`).

    Raises:
        OSError: a recording file cannot be read.
    """
    digest = hashlib.sha256()
    parts = ("replay", provider.name, label, recording_digest(manifest, memo), *_provider_code(registry, provider))
    for part in parts:
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
    from gpuhub import __version__
    from gpuhub.store.keys import code_fingerprint

    env = os.environ if environ is None else environ
    eps = list(metadata.entry_points(group="gpuhub")) if entry_points is None else list(entry_points)
    parts = [f"format={INDEX_FORMAT}", __version__, code_fingerprint("gpuhub")]
    for ep in sorted(eps, key=lambda e: (e.name, e.value)):
        dist = getattr(ep, "dist", None)
        parts.append(f"{ep.name}={ep.value}|{dist.metadata['Name'] if dist else ''}|{dist.version if dist else ''}|"
                     f"{dist.locate_file('') if dist else ''}|{code_fingerprint(ep.value.split(':')[0])}")
    parts += [f"{name}={env.get(name, '')}" for name in _SWITCHES]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]
