"""The schema of a published catalog's manifest (``catalog.json``), checked before a reader uses any of it.

A reader trusts nothing in a manifest it has not validated: every field's type and range, every file's ``path``
(a relative key of letters, digits, ``._-`` and ``/``, no ``..``), ``sha256`` (64 hex digits) and ``size``
(0 to :data:`MAX_FILE_BYTES`). What the schema cannot see — whether a path resolves inside the catalog's root
and names a regular file of its declared size — the target checks when it reads (:mod:`gpuhub.publish.remote`).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = ["MAX_FILE_BYTES", "CatalogManifest", "ManifestError", "SignedBy", "validate_manifest"]

MAX_FILE_BYTES = 256 * 1024 * 1024
"""The largest file a catalog may list (bytes): a reader never holds more than this of one file."""
_KEY = re.compile(r"[A-Za-z0-9._/-]{1,512}")
_HEX64 = r"^[0-9a-f]{64}$"


class ManifestError(ValueError):
    """A manifest that does not fit the schema (the message names the first fields that do not)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class CatalogFile(_Strict):
    """One stored part: its key under the catalog root, SHA-256 (hex) and size in bytes."""

    path: str
    sha256: str = Field(pattern=_HEX64)
    size: int = Field(ge=0, le=MAX_FILE_BYTES)

    @field_validator("path")
    @classmethod
    def _inside(cls, value: str) -> str:
        if value.startswith("/") or any(part in ("", ".", "..") for part in value.split("/")):
            raise ValueError("path outside the catalog (absolute, or with an empty, '.' or '..' segment)")
        if not _KEY.fullmatch(value):
            raise ValueError("path of other characters than letters, digits and ._-/")
        return value


class CatalogProvider(_Strict):
    """One provider's snapshot in a catalog: its status, dates, source, offer count, content hash and files."""

    status: dict[str, Any]
    fetched_at: str
    data_date: str | None = None
    source_kind: str
    source: dict[str, Any]
    offers: int = Field(ge=0)
    content_hash: str = Field(pattern=_HEX64)
    files: dict[str, CatalogFile] = Field(min_length=1)


class SignedBy(_Strict):
    """Who signed a catalog (:mod:`gpuhub.publish.signing`): the algorithm, the key id and the public key."""

    algorithm: Literal["ed25519"]
    key_id: str = Field(pattern=r"^[0-9a-f]{16}$")
    public_key: str = Field(max_length=200)


class CatalogManifest(_Strict):
    """A whole manifest: format 1, a positive version, the previous version, publication time, providers, and who
    signed it (``signed_by``; absent when unsigned)."""

    format: Literal[1]
    version: int = Field(ge=1)
    previous: int | None = None
    published_at: str | None = None
    providers: dict[str, CatalogProvider]
    signed_by: SignedBy | None = None


def validate_manifest(data: Any) -> CatalogManifest:
    """``data`` (parsed JSON) as a :class:`CatalogManifest`.

    Raises:
        ManifestError: it does not fit the schema (the message names the fields, e.g. ``providers.aws.files``).
    """
    try:
        return CatalogManifest.model_validate(data)
    except ValidationError as exc:
        problems = [f"{'.'.join(str(p) for p in e['loc']) or 'manifest'}: {e['msg']}" for e in exc.errors()[:3]]
        raise ManifestError("; ".join(problems)) from None
