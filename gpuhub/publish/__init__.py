"""Published catalogs: the newest good snapshot of every provider, as versioned files plus a manifest of
checksums, on a directory or an S3-compatible bucket; and the reader side behind ``GPUHUB_CATALOG_URL``.

Layout under the destination::

    catalog.json                    the manifest, written last (readers never see a half-published version)
    v<N>/<provider>/<part>          the snapshot's content parts (NPY columns, tables.json), immutable

The manifest: ``format``, ``version`` (N, one more than the last), ``published_at``, and per provider its status,
``fetched_at``, ``data_date``, ``source_kind``, ``source``, ``offers``, ``content_hash`` and ``files`` (part name ->
``path``, ``sha256``, ``size``).

Before publishing, checks run on every provider (:func:`check_catalog`): no zero or negative prices, no GPU name
the GPU table does not know (unless allowed), and no provider that lost more than ``max_loss`` of its offers since
the last published version (or vanished). A failed check publishes nothing.

A reader (:func:`fetch_catalog`) asks for the manifest with its ETag (If-None-Match), downloads only files it does
not have, verifies each file's SHA-256 and each provider's content hash, and only then replaces its local copy; when
the download or a check fails, it keeps using the last good copy and says why.

May import: :mod:`gpuhub.fetch`, :mod:`gpuhub.store`, :mod:`gpuhub.answer`, :mod:`gpuhub.facts` and the bottom;
never :mod:`gpuhub.history`, :mod:`gpuhub.service` or a surface (the engine reads published catalogs through
:mod:`gpuhub.publish.serve`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuhub.publish.remote import NotModified, TargetError, open_target

if TYPE_CHECKING:
    from gpuhub.facts.gpus import GpuTable
    from gpuhub.publish.signing import PublicKey, SigningKey
    from gpuhub.store import Snapshot, Store
    from gpuhub.store.columns import OfferColumns

__all__ = ["MANIFEST", "CatalogCheckError", "FetchedCatalog", "PublishReport", "check_catalog", "fetch_catalog",
           "publish"]

log = logging.getLogger("gpuhub.publish")
MANIFEST = "catalog.json"
FORMAT = 1


class CatalogCheckError(Exception):
    """The catalog failed its integrity checks; ``problems`` lists each one. Nothing was published."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)


@dataclass
class PublishReport:
    """What :func:`publish` wrote: the version, where, and per provider its offer count and content hash."""

    version: int
    location: str
    providers: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: int = 0
    bytes: int = 0
    signed_by: str | None = None
    """The key id of the signing key (None: unsigned)."""

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (``gpuhub catalog publish`` prints it)."""
        return {"version": self.version, "location": self.location, "providers": self.providers,
                "files": self.files, "bytes": self.bytes, "signed_by": self.signed_by}


def check_catalog(contents: Mapping[str, OfferColumns], previous: Mapping[str, Any] | None, gpus: GpuTable | None,
                  *, max_loss: float = 0.2, allow_unknown_gpus: Sequence[str] = ()) -> list[str]:
    """The problems that stop a publish (empty: all checks passed).

    Args:
        contents: provider -> its offers.
        previous: the last published manifest, or None.
        gpus: the GPU table names are checked against (None: GPU names are not checked).
        max_loss: the largest share (0-1) of a provider's offers that may go since the last version.
        allow_unknown_gpus: GPU names allowed although the GPU table does not know them (``*``: any).
    """
    import numpy as np

    problems: list[str] = []
    allowed = {g.lower() for g in allow_unknown_gpus}
    for provider, columns in sorted(contents.items()):
        prices = columns.columns["price"]
        bad = int(np.count_nonzero(~(prices > 0)))
        if bad:
            problems.append(f"{provider}: {bad} offers with a zero, negative or missing price")
        unknown: set[str] = set()
        for item in columns.tables["instances"]:
            gpu = item.get("gpu") or {}
            name = gpu.get("name")
            if not name or str(name).lower() in allowed or "*" in allowed:
                continue
            if gpu.get("known") is False or (gpus is not None and not _known(gpus, str(name))):
                unknown.add(str(name))
        if unknown:
            problems.append(f"{provider}: unknown GPU names {', '.join(sorted(unknown))} (allow them with "
                            "--allow-unknown-gpu NAME once checked)")
    for provider, entry in sorted(((previous or {}).get("providers") or {}).items()):
        before = int(entry.get("offers") or 0)
        now = len(contents[provider]) if provider in contents else 0
        if provider not in contents:
            problems.append(f"{provider}: in the last catalog (version {previous.get('version') if previous else '?'}"
                            f", {before} offers) but has no good snapshot now")
        elif before and (before - now) / before > max_loss:
            problems.append(f"{provider}: {now} offers, {before - now} fewer than the last catalog's {before} "
                            f"({(before - now) / before:.0%} lost; at most {max_loss:.0%} allowed)")
    return problems


def _known(gpus: GpuTable, name: str) -> bool:
    from gpuhub.facts.gpus import UnknownGpuError

    try:
        gpus.lookup(name)
    except UnknownGpuError:
        return False
    return True


def _read_manifest(data: bytes, where: str) -> dict[str, Any]:
    from gpuhub.publish.manifest import ManifestError, validate_manifest

    try:
        manifest = json.loads(data)
    except ValueError as exc:
        raise TargetError(f"{where}/{MANIFEST} is not JSON: {exc}") from None
    try:
        validate_manifest(manifest)
    except ManifestError as exc:
        raise TargetError(f"{where}/{MANIFEST} is not a valid format-{FORMAT} gpuhub catalog manifest: {exc}") from None
    return manifest  # type: ignore[no-any-return]


def _snapshot_entry(snapshot: Snapshot) -> dict[str, Any]:
    return {"status": snapshot.status, "fetched_at": snapshot.fetched_at.isoformat(),
            "data_date": snapshot.data_date.isoformat() if snapshot.data_date else None,
            "source_kind": snapshot.source_kind, "source": snapshot.source, "offers": snapshot.offers,
            "content_hash": snapshot.content_hash}


def publish(destination: str, store: Store, *, providers: Sequence[str] | None = None, max_loss: float = 0.2,
            allow_unknown_gpus: Sequence[str] = (), gpus: GpuTable | None = None,
            now: dt.datetime | None = None, sign_with: SigningKey | None = None) -> PublishReport:
    """Publish the newest good snapshot of every provider in ``store`` (or of ``providers``) to ``destination``.

    ``sign_with``: a publisher's key (:func:`gpuhub.publish.signing.load_signing_key`); the manifest then names it
    (``signed_by``) and its detached signature is written to ``v<N>/catalog.json.sig`` before the manifest.

    Raises:
        CatalogCheckError: a check failed (nothing was written).
        TargetError: the destination cannot be read or written.
        ValueError: the store holds no good snapshot of any (asked) provider.
    """
    from gpuhub.store.columns import _hash_parts

    target = open_target(destination)
    names = sorted(set(providers) if providers else {s.provider for s in store.snapshots()})
    chosen: dict[str, Snapshot] = {}
    for name in names:
        snapshot = store.latest_good(name)
        if snapshot is not None and snapshot.content_hash:
            chosen[name] = snapshot
    if not chosen:
        raise ValueError("the store holds no good snapshot to publish (run a search or 'gpuhub store refresh')")
    contents = {name: store.read_columns(s) for name, s in chosen.items()}
    try:
        previous: dict[str, Any] | None = _read_manifest(target.read(MANIFEST)[0], target.location)
    except TargetError as exc:
        if "cannot read" not in str(exc):
            raise
        previous = None
    if previous is not None and providers:
        previous = {**previous, "providers": {k: v for k, v in previous["providers"].items() if k in providers}}
    problems = check_catalog(contents, previous, gpus, max_loss=max_loss, allow_unknown_gpus=allow_unknown_gpus)
    if problems:
        raise CatalogCheckError(problems)
    version = (previous["version"] + 1) if previous else 1
    report = PublishReport(version, target.location)
    manifest: dict[str, Any] = {"format": FORMAT, "version": version,
                                "published_at": (now or dt.datetime.now(dt.timezone.utc)).isoformat(
                                    timespec="seconds"), "previous": previous["version"] if previous else None,
                                "providers": {}}
    for name, snapshot in chosen.items():
        parts = contents[name].to_parts()
        if _hash_parts(parts) != snapshot.content_hash:
            raise CatalogCheckError([f"{name}: the stored content does not match its hash"])
        files = {}
        for part, data in sorted(parts.items()):
            key = f"v{version}/{name}/{part}"
            target.write(key, data)
            files[part] = {"path": key, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
            report.files += 1
            report.bytes += len(data)
        manifest["providers"][name] = {**_snapshot_entry(snapshot), "files": files}
        report.providers[name] = {"offers": snapshot.offers, "content_hash": snapshot.content_hash,
                                  "fetched_at": snapshot.fetched_at.isoformat(timespec="seconds")}
    if sign_with is not None:
        from gpuhub.publish.signing import signature_key

        manifest["signed_by"] = sign_with.signed_by()
        report.signed_by = sign_with.public.key_id
    body = json.dumps(manifest, indent=1, sort_keys=True).encode()
    if sign_with is not None:  # beside version N's files, before the manifest that points readers at them
        target.write(signature_key(version), sign_with.signature_file(body), "application/json")
    target.write(MANIFEST, body, "application/json")
    return report


# --- reading ---------------------------------------------------------------------------------------------------
@dataclass
class FetchedCatalog:
    """A verified catalog: the manifest, each provider's offers, and how it was obtained.

    ``state`` is ``fresh`` (downloaded and verified now), ``unchanged`` (the ETag still matched) or ``stale`` (the
    download or a check failed: ``reason`` says why, and the last good copy is served). ``signed_by``: the key id
    whose signature was verified (None when the reader requires none: ``GPUHUB_CATALOG_PUBLIC_KEY`` unset).
    """

    url: str
    manifest: dict[str, Any]
    columns: dict[str, OfferColumns]
    state: str
    reason: str | None = None
    signed_by: str | None = None

    @property
    def version(self) -> int:
        """The catalog's version number (1, 2, ...)."""
        return int(self.manifest["version"])


def _cache_dir(url: str, environ: Mapping[str, str]) -> Path:
    root = environ.get("GPUHUB_CACHE_DIR")
    if not root:
        import platformdirs

        root = platformdirs.user_cache_dir("gpuhub")
    return Path(root) / "catalogs" / hashlib.sha256(url.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class _Local:
    """This reader's last good copy: the manifest (and its exact bytes), the files, the ETag, the signature."""

    manifest: dict[str, Any]
    parts: dict[str, dict[str, bytes]]
    etag: str | None
    raw: bytes | None
    signature: bytes | None


def _load_local(directory: Path) -> _Local | None:
    import base64

    try:
        saved = json.loads((directory / "current.json").read_text())
        manifest = saved["manifest"]
        parts = {name: {part: (directory / "objects" / info["sha256"]).read_bytes()
                        for part, info in entry["files"].items()} for name, entry in manifest["providers"].items()}
        raw, signature = (base64.b64decode(saved[k]) if saved.get(k) else None for k in ("raw", "signature"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning("the local copy of the published catalog in %s is unusable: %s", directory, exc)
        return None
    return _Local(manifest, parts, saved.get("etag"), raw, signature)


def _signed(url: str, local: _Local | None, trusted: Sequence[PublicKey]) -> tuple[_Local | None, str | None]:
    """The local copy when it is still good under the trusted keys (with its key id), else None and a warning: a
    copy kept before a signature was required, or by a key no longer trusted, is not served."""
    from gpuhub.publish.signing import SignatureError, verify_signature

    if local is None or not trusted:
        return local, None
    try:
        if local.raw is None or json.loads(local.raw) != local.manifest:
            raise SignatureError("signature missing: the local copy was kept without its signed manifest")
        return local, verify_signature(local.raw, local.signature, trusted, local.manifest.get("signed_by"))
    except (SignatureError, ValueError) as exc:
        log.warning("published catalog %s: the local copy (version %s) is not used: %s", url,
                    local.manifest.get("version"), exc)
        return None, None


def _signature_of(target: Any, url: str, data: bytes, manifest: Mapping[str, Any],
                  trusted: Sequence[PublicKey]) -> tuple[bytes | None, str | None]:
    """The manifest's detached signature and its key id, checked against the trusted keys (none: not read).

    Raises:
        TargetError: the signature is missing, malformed, by an untrusted key or does not match (reason
            ``signature ...``).
    """
    from gpuhub.publish.signing import SignatureError, signature_key, verify_signature

    if not trusted:
        return None, None
    where = signature_key(int(manifest["version"]))
    try:
        signature: bytes | None = target.read(where)[0]
    except TargetError:
        signature = None
    try:
        return signature, verify_signature(data, signature, trusted, manifest.get("signed_by"))
    except SignatureError as exc:
        detail = f" (no {where})" if signature is None else ""
        raise TargetError(f"{exc}{detail}") from None


def _verify(manifest: Mapping[str, Any], parts: Mapping[str, Mapping[str, bytes]]) -> dict[str, OfferColumns]:
    """Check every file's SHA-256 and size and every provider's content hash; decode the columns.

    Raises:
        TargetError: a file is missing, truncated or corrupted (named).
    """
    from gpuhub.store.columns import ColumnsError, OfferColumns, _hash_parts

    out = {}
    for name, entry in manifest["providers"].items():
        got = parts.get(name, {})
        for part, info in entry["files"].items():
            data = got.get(part)
            if data is None:
                raise TargetError(f"{name}/{part}: missing")
            if len(data) != info["size"] or hashlib.sha256(data).hexdigest() != info["sha256"]:
                raise TargetError(f"{info['path']}: checksum mismatch ({len(data)} bytes, expected {info['size']}): "
                                  "corrupted or truncated")
        if _hash_parts(got) != entry["content_hash"]:
            raise TargetError(f"{name}: content hash mismatch")
        try:
            out[name] = OfferColumns.from_parts(got)
        except ColumnsError as exc:
            raise TargetError(f"{name}: {exc}") from None
    return out


def fetch_catalog(url: str, *, environ: Mapping[str, str] | None = None,
                  allow_rollback: bool = False) -> FetchedCatalog:
    """The catalog published at ``url`` (a directory, ``https://`` or ``s3://``), verified, with a local copy under
    the cache directory (``$GPUHUB_CACHE_DIR/catalogs/``) that is kept when a later download fails.

    The manifest is validated (:mod:`gpuhub.publish.manifest`) before use; each file is read only inside the
    catalog, as a regular file of its declared size (at most :data:`~gpuhub.publish.manifest.MAX_FILE_BYTES`). A
    version older than the one this reader holds is a rollback, refused (the kept copy is served, ``reason`` says
    so) unless ``allow_rollback``. With ``GPUHUB_CATALOG_PUBLIC_KEY`` set, the manifest must carry a valid
    signature by one of those keys (:mod:`gpuhub.publish.signing`), else it is refused the same way.

    Raises:
        TargetError: the catalog cannot be downloaded or verified and there is no good local copy, or
            ``GPUHUB_CATALOG_PUBLIC_KEY`` is not a usable key.
    """
    from gpuhub.publish.signing import PUBLIC_KEY_SETTING, SigningError, trusted_keys

    env = os.environ if environ is None else environ
    try:
        trusted = trusted_keys(env) if env.get(PUBLIC_KEY_SETTING, "").strip() else []
    except SigningError as exc:
        raise TargetError(str(exc)) from None
    directory = _cache_dir(url, env)
    local, local_key = _signed(url, _load_local(directory) if (directory / "current.json").is_file() else None,
                               trusted)
    signature: bytes | None = None
    try:
        target = open_target(url)
        try:
            data, etag = target.read(MANIFEST, local.etag if local else None)
        except NotModified:
            assert local is not None
            return FetchedCatalog(url, local.manifest, _verify(local.manifest, local.parts), "unchanged",
                                  signed_by=local_key)
        manifest = _read_manifest(data, url)
        held = local.manifest.get("version") if local else None
        if isinstance(held, int) and manifest["version"] < held and not allow_rollback:
            raise TargetError(f"rollback: {url} now says version {manifest['version']}, older than version {held} "
                              "already read (a replayed or rolled-back manifest); --allow-rollback accepts it")
        signature, key_id = _signature_of(target, url, data, manifest, trusted)
        have = {info["sha256"] for entry in (local.manifest["providers"].values() if local else [])
                for info in entry["files"].values()}
        parts: dict[str, dict[str, bytes]] = {}
        for name, entry in manifest["providers"].items():
            parts[name] = {}
            for part, info in entry["files"].items():
                cached = directory / "objects" / info["sha256"]
                if info["sha256"] in have and cached.is_file():
                    parts[name][part] = cached.read_bytes()
                else:
                    parts[name][part] = target.read(info["path"], max_bytes=int(info["size"]))[0]
        columns = _verify(manifest, parts)
    except TargetError as exc:
        if local is None:
            raise
        try:
            kept = _verify(local.manifest, local.parts)
        except TargetError:
            raise exc from None
        log.warning("published catalog %s: %s; using the last good copy (version %s)", url, exc,
                    local.manifest.get("version"))
        return FetchedCatalog(url, local.manifest, kept, "stale", str(exc), signed_by=local_key)
    _save_local(directory, manifest, parts, etag, data, signature)
    return FetchedCatalog(url, manifest, columns, "fresh", signed_by=key_id)


def _save_local(directory: Path, manifest: dict[str, Any], parts: Mapping[str, Mapping[str, bytes]],
                etag: str | None, raw: bytes, signature: bytes | None) -> None:
    import base64

    from gpuhub.fetch.recording import atomic_write

    try:
        objects = directory / "objects"
        objects.mkdir(parents=True, exist_ok=True)
        keep = set()
        for name, entry in manifest["providers"].items():
            for part, info in entry["files"].items():
                keep.add(info["sha256"])
                path = objects / info["sha256"]
                if not path.is_file():
                    atomic_write(path, parts[name][part])
        atomic_write(directory / "current.json", json.dumps({
            "manifest": manifest, "etag": etag, "raw": base64.b64encode(raw).decode(),
            "signature": base64.b64encode(signature).decode() if signature is not None else None}).encode())
        for stale in objects.iterdir():
            if stale.name not in keep:
                stale.unlink(missing_ok=True)
    except OSError as exc:
        log.warning("could not keep a local copy of the published catalog in %s: %s", directory, exc)
