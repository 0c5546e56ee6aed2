"""Ed25519 signatures of published catalogs (optional: ``pip install 'gpuhub-core[sign]'``, the ``cryptography``
library).

A publisher makes a key pair once (``gpuhub catalog keygen FILE``: the private key as unencrypted PKCS#8 PEM in
``FILE``, readable by its owner only, and the public key in ``FILE.pub``) and publishes with
``gpuhub catalog publish DEST --sign-key FILE``. The manifest then says who signed it (``signed_by``: algorithm,
key id, public key) and a detached signature of the manifest's exact bytes is written to
``v<N>/catalog.json.sig`` before the manifest itself, so a reader never sees a manifest whose signature is not
there yet (the signature of version N lives beside version N's files and is never rewritten).

A reader that sets ``GPUHUB_CATALOG_PUBLIC_KEY`` (the public key line ``ed25519:<base64>``, or the path of a
``.pub`` or PEM public key file; several separated by commas while keys are rotated) *requires* a signature by one
of those keys: an unsigned catalog, a signature by another key, or a manifest or signature changed after signing
is rejected with a reason that starts with ``signature``, and the last good copy is served. The manifest lists
each file's SHA-256, so a signed manifest covers every file.

A key id is the first 16 hex digits of the SHA-256 of the raw 32-byte public key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ALGORITHM", "PUBLIC_KEY_SETTING", "PublicKey", "SignatureError", "SigningError", "SigningKey",
           "generate_key_pair", "load_signing_key", "signature_key", "trusted_keys", "verify_signature"]

ALGORITHM = "ed25519"
PUBLIC_KEY_SETTING = "GPUHUB_CATALOG_PUBLIC_KEY"
"""The reader's setting: the public key(s) a catalog must be signed with (unset: signatures are not required)."""
_PREFIX = "ed25519:"
_MAX_SIGNATURE_BYTES = 4096
_INSTALL = "catalog signatures need the cryptography library: pip install 'gpuhub-core[sign]'"


class SigningError(Exception):
    """A key cannot be made, read or used (the message names the file or setting and the cause)."""


class SignatureError(Exception):
    """A catalog's signature is missing, malformed, by a key the reader does not trust, or does not match the
    manifest (the message starts with ``signature`` and says which)."""


def _crypto() -> Any:
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:
        raise SigningError(_INSTALL) from None
    return ed25519


def _key_id(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:16]


@dataclass(frozen=True)
class PublicKey:
    """A trusted public key: its raw 32 bytes and key id."""

    raw: bytes

    @property
    def key_id(self) -> str:
        """First 16 hex digits of the SHA-256 of the raw key."""
        return _key_id(self.raw)

    @property
    def text(self) -> str:
        """The one-line form ``ed25519:<base64>`` (what ``GPUHUB_CATALOG_PUBLIC_KEY`` and ``.pub`` files hold)."""
        return _PREFIX + base64.b64encode(self.raw).decode()

    def verifies(self, signature: bytes, data: bytes) -> bool:
        """True when ``signature`` is this key's Ed25519 signature of ``data``."""
        from cryptography.exceptions import InvalidSignature

        try:
            _crypto().Ed25519PublicKey.from_public_bytes(self.raw).verify(signature, data)
        except InvalidSignature:
            return False
        return True


@dataclass(frozen=True)
class SigningKey:
    """A publisher's private key (loaded from its PEM file) and its public half."""

    private: Any
    public: PublicKey

    def sign(self, data: bytes) -> bytes:
        """The Ed25519 signature (64 bytes) of ``data``."""
        return bytes(self.private.sign(data))

    def signed_by(self) -> dict[str, str]:
        """The manifest's ``signed_by`` entry: algorithm, key id and public key (who published)."""
        return {"algorithm": ALGORITHM, "key_id": self.public.key_id, "public_key": self.public.text}

    def signature_file(self, manifest: bytes) -> bytes:
        """The detached signature document of ``manifest`` (its exact bytes): JSON with the algorithm, key id and
        the base64 signature."""
        return json.dumps({"algorithm": ALGORITHM, "key_id": self.public.key_id,
                           "signature": base64.b64encode(self.sign(manifest)).decode()}, indent=1).encode()


def _raw_public(key: Any) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return bytes(key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))


def generate_key_pair(path: Path) -> SigningKey:
    """Make a new Ed25519 key pair: the private key (PKCS#8 PEM, unencrypted, mode 0600) in ``path`` and the public
    key line in ``path`` + ``.pub``.

    Raises:
        SigningError: either file exists already (never overwritten), cannot be written, or cryptography is
            missing.
    """
    ed25519 = _crypto()
    from cryptography.hazmat.primitives import serialization

    public_path = Path(f"{path}.pub")
    for existing in (path, public_path):
        if existing.exists() or existing.is_symlink():
            raise SigningError(f"{existing} exists already; not overwritten (choose another file)")
    private = ed25519.Ed25519PrivateKey.generate()
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    key = SigningKey(private, PublicKey(_raw_public(private.public_key())))
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(handle, "wb") as out:
            out.write(pem)
        public_path.write_text(key.public.text + "\n")
    except OSError as exc:
        raise SigningError(f"cannot write the key pair at {path}: {exc.strerror or exc}") from None
    return key


def load_signing_key(path: Path) -> SigningKey:
    """The Ed25519 private key in ``path`` (PKCS#8 PEM, as :func:`generate_key_pair` writes).

    Raises:
        SigningError: the file cannot be read, is not an unencrypted Ed25519 private key, or cryptography is
            missing.
    """
    ed25519 = _crypto()
    from cryptography.hazmat.primitives import serialization

    try:
        data = path.read_bytes()[:65536]
    except OSError as exc:
        raise SigningError(f"cannot read the signing key {path}: {exc.strerror or exc}") from None
    try:
        private = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise SigningError(f"{path} is not an unencrypted PEM private key ({exc})") from None
    if not isinstance(private, ed25519.Ed25519PrivateKey):
        raise SigningError(f"{path} holds a {type(private).__name__}, not an Ed25519 private key")
    return SigningKey(private, PublicKey(_raw_public(private.public_key())))


def _parse_public(text: str, where: str) -> PublicKey:
    ed25519 = _crypto()
    text = text.strip()
    if text.startswith(_PREFIX):
        try:
            raw = base64.b64decode(text[len(_PREFIX):], validate=True)
        except (binascii.Error, ValueError):
            raise SigningError(f"{where}: {text[:60]!r} is not base64 after 'ed25519:'") from None
        if len(raw) != 32:
            raise SigningError(f"{where}: an Ed25519 public key is 32 bytes, this one {len(raw)}")
        return PublicKey(raw)
    if text.startswith("-----BEGIN PUBLIC KEY-----"):
        from cryptography.hazmat.primitives import serialization

        try:
            key = serialization.load_pem_public_key(text.encode())
        except ValueError as exc:
            raise SigningError(f"{where}: not a PEM public key ({exc})") from None
        if not isinstance(key, ed25519.Ed25519PublicKey):
            raise SigningError(f"{where}: a {type(key).__name__}, not an Ed25519 public key")
        return PublicKey(_raw_public(key))
    raise SigningError(f"{where}: give 'ed25519:<base64>' (a .pub file's line), a PEM public key or the path of "
                       "a file holding one")


def trusted_keys(environ: Mapping[str, str]) -> list[PublicKey]:
    """The public keys of ``GPUHUB_CATALOG_PUBLIC_KEY`` (comma-separated; each a key line or a file's path);
    empty when unset (no signature required).

    Raises:
        SigningError: an entry is neither a key nor a readable key file, or cryptography is missing.
    """
    value = environ.get(PUBLIC_KEY_SETTING, "").strip()
    keys = []
    for entry in (e.strip() for e in value.split(",")):
        if not entry:
            continue
        where = f"{PUBLIC_KEY_SETTING} ({entry[:60]})"
        if not entry.startswith(_PREFIX):
            try:
                entry = Path(entry).expanduser().read_text(encoding="utf-8", errors="replace")[:65536]
            except OSError as exc:
                raise SigningError(f"{where}: not a key, and the file cannot be read: {exc.strerror or exc}"
                                   ) from None
        keys.append(_parse_public(entry, where))
    return keys


def signature_key(version: int) -> str:
    """The key (path under the catalog root) of version ``version``'s detached signature."""
    return f"v{version}/catalog.json.sig"


def verify_signature(manifest: bytes, signature: bytes | None, trusted: Sequence[PublicKey],
                     signed_by: Mapping[str, Any] | None) -> str:
    """Check ``signature`` (the detached signature document, None when there is none) of the manifest's exact
    bytes against the ``trusted`` keys; returns the signing key's id.

    Raises:
        SignatureError: no signature, a malformed one, one by a key not in ``trusted``, one that does not match
            the manifest, or a manifest whose ``signed_by`` names another key.
    """
    names = ", ".join(k.key_id for k in trusted)
    if signature is None:
        raise SignatureError(f"signature missing: the catalog is not signed, and {PUBLIC_KEY_SETTING} requires a "
                             f"signature by key {names}")
    try:
        if len(signature) > _MAX_SIGNATURE_BYTES:
            raise ValueError(f"{len(signature)} bytes")
        document = json.loads(signature)
        if not isinstance(document, dict) or document.get("algorithm") != ALGORITHM:
            raise ValueError("not an ed25519 signature document")
        key_id, sig = str(document.get("key_id")), base64.b64decode(str(document.get("signature")), validate=True)
    except (ValueError, binascii.Error) as exc:
        raise SignatureError(f"signature malformed ({str(exc)[:80]})") from None
    key = next((k for k in trusted if k.key_id == key_id), None)
    if key is None:
        raise SignatureError(f"signature by key {key_id[:16]}, which {PUBLIC_KEY_SETTING} does not trust "
                             f"(trusted: {names})")
    if not key.verifies(sig, manifest):
        raise SignatureError(f"signature invalid: the manifest or its signature was changed after signing "
                             f"(key {key_id})")
    claimed = (signed_by or {}).get("key_id")
    if claimed != key_id:
        raise SignatureError(f"signature by key {key_id}, but the manifest says it was signed by {claimed!r}")
    return key_id
