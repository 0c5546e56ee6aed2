"""Where published catalogs live: a directory, an ``s3://bucket/prefix`` (boto3; any S3-compatible server) or, for
reading only, an ``https://`` (or loopback ``http://``) base URL. Every target reads and writes whole objects by
relative key and gives an ETag, so readers can ask "has it changed?" without downloading it again."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

__all__ = ["NotModified", "Target", "TargetError", "open_target"]


class TargetError(Exception):
    """An object cannot be read or written (the message names the location and the cause)."""


class NotModified(Exception):
    """The object's ETag is still the one the caller has (HTTP 304)."""


class Target(Protocol):
    location: str

    def read(self, key: str, etag: str | None = None, max_bytes: int | None = None) -> tuple[bytes, str | None]:
        """The object's bytes and ETag. ``max_bytes``: the object must be exactly that long (a catalog file of
        declared size; never more is read). Raises NotModified when ``etag`` still matches, TargetError
        otherwise (a key outside the target, not a regular file, or of another size included)."""
        ...

    def write(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        ...


class DirectoryTarget:
    """Objects are files under ``root``; writes are atomic (a temporary file renamed into place)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.location = str(root)

    def read(self, key: str, etag: str | None = None, max_bytes: int | None = None) -> tuple[bytes, str | None]:
        import stat

        path = self.root / key
        try:
            root = self.root.resolve()
            resolved = path.resolve()
            if os.path.isabs(key) or not resolved.is_relative_to(root):
                raise TargetError(f"{key}: path outside the catalog {root}, not read")
            info = os.stat(resolved)
            if not stat.S_ISREG(info.st_mode):
                raise TargetError(f"{key}: path is not a regular file, not read")
            if max_bytes is not None and info.st_size != max_bytes:
                raise TargetError(f"{key}: checksum mismatch: size {info.st_size} bytes on disk, the manifest says "
                                  f"{max_bytes}; not read")
            with open(resolved, "rb") as fh:
                data = fh.read((MAX_MANIFEST_BYTES if max_bytes is None else max_bytes) + 1)
        except OSError as exc:
            raise TargetError(f"cannot read {path}: {exc.strerror or exc}") from None
        _check_size(key, data, max_bytes)
        tag = hashlib.sha256(data).hexdigest()[:32]
        if etag is not None and tag == etag:
            raise NotModified(key)
        return data, tag

    def write(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        path = self.root / key
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            temporary.write_bytes(data)
            os.replace(temporary, path)
        except OSError as exc:
            raise TargetError(f"cannot write {path}: {exc.strerror or exc}") from None


class S3Target:
    """Objects under ``s3://bucket/prefix`` through boto3 (credentials and endpoint as boto3 finds them:
    ``AWS_*`` variables, ``~/.aws``; ``GPUHUB_S3_ENDPOINT_URL`` or ``AWS_ENDPOINT_URL`` for other S3 servers).
    Without credentials, requests go unsigned (a public bucket)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        if not parts.netloc:
            raise TargetError(f"{url!r} names no bucket: use s3://bucket/prefix")
        self.bucket, self.prefix = parts.netloc, parts.path.strip("/")
        self.location = url
        try:
            import boto3
        except ImportError:
            raise TargetError("s3:// catalogs need boto3: pip install 'gpuhub-core[s3]'") from None
        endpoint = os.environ.get("GPUHUB_S3_ENDPOINT_URL") or None
        session = boto3.session.Session()
        config = None
        if session.get_credentials() is None:  # a public bucket: readers need no credentials
            from botocore import UNSIGNED
            from botocore.config import Config

            config = Config(signature_version=UNSIGNED)
        self._s3: Any = session.client("s3", endpoint_url=endpoint, config=config,
                                       region_name=session.region_name or "us-east-1")

    def _key(self, key: str) -> str:
        return f"{self.prefix}/{key}" if self.prefix else key

    def read(self, key: str, etag: str | None = None, max_bytes: int | None = None) -> tuple[bytes, str | None]:
        from botocore.exceptions import BotoCoreError, ClientError

        _check_key(key)
        args: dict[str, str] = {"Bucket": self.bucket, "Key": self._key(key)}
        if etag:
            args["IfNoneMatch"] = etag
        try:
            answer = self._s3.get_object(**args)
            length = answer.get("ContentLength")
            if max_bytes is not None and isinstance(length, int) and length != max_bytes:
                raise TargetError(f"{key}: checksum mismatch: size {length} bytes, the manifest says {max_bytes}; "
                                  "not read")
            data = answer["Body"].read((MAX_MANIFEST_BYTES if max_bytes is None else max_bytes) + 1)
            _check_size(key, data, max_bytes)
            return data, answer.get("ETag")
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            if code in ("304", "NotModified"):
                raise NotModified(key) from None
            raise TargetError(f"cannot read s3://{self.bucket}/{self._key(key)}: {code or exc}") from None
        except BotoCoreError as exc:
            raise TargetError(f"cannot read s3://{self.bucket}/{self._key(key)}: {exc}") from None

    def write(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self._s3.put_object(Bucket=self.bucket, Key=self._key(key), Body=data, ContentType=content_type)
        except (ClientError, BotoCoreError) as exc:
            raise TargetError(f"cannot write s3://{self.bucket}/{self._key(key)}: {exc}") from None


class HttpTarget:
    """Read-only objects under an ``https://`` base URL (ETag / If-None-Match; redirects followed)."""

    def __init__(self, url: str, timeout_s: float = 30.0) -> None:
        self.base = url.rstrip("/")
        self.location = url
        self.timeout_s = timeout_s

    def read(self, key: str, etag: str | None = None, max_bytes: int | None = None) -> tuple[bytes, str | None]:
        import httpx

        from gpuhub._version import __version__

        headers = {"User-Agent": f"gpuhub/{__version__}"}
        if etag:
            headers["If-None-Match"] = etag
        _check_key(key)
        cap = MAX_MANIFEST_BYTES if max_bytes is None else max_bytes
        try:
            with httpx.stream("GET", f"{self.base}/{key}", headers=headers, timeout=self.timeout_s,
                              follow_redirects=True) as answer:
                if answer.status_code == 304:
                    raise NotModified(key)
                if answer.status_code != 200:
                    raise TargetError(f"cannot read {self.base}/{key}: HTTP {answer.status_code}")
                chunks, got = [], 0
                for chunk in answer.iter_bytes():
                    got += len(chunk)
                    if got > cap:
                        raise TargetError(f"{key}: larger than {cap} bytes; not read further")
                    chunks.append(chunk)
                data = b"".join(chunks)
        except httpx.HTTPError as exc:
            raise TargetError(f"cannot read {self.base}/{key}: {type(exc).__name__}: {exc}") from None
        _check_size(key, data, max_bytes)
        return data, answer.headers.get("etag")

    def write(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        raise TargetError(f"{self.location}: publishing over HTTP is not supported; publish to a directory or "
                          "s3:// and serve that")


MAX_MANIFEST_BYTES = 16 * 1024 * 1024
"""The largest manifest (or other object of undeclared size, e.g. a signature) read from any target, bytes."""


def _check_key(key: str) -> None:
    """A key is relative and stays inside the target (no ``..`` segment, no absolute path)."""
    if key.startswith("/") or "\\" in key or "\x00" in key or ".." in key.split("/"):
        raise TargetError(f"{key}: path outside the catalog, not read")


def _check_size(key: str, data: bytes, expected: int | None) -> None:
    if expected is None and len(data) > MAX_MANIFEST_BYTES:
        raise TargetError(f"{key}: larger than {MAX_MANIFEST_BYTES} bytes; not read further")
    if expected is not None and len(data) != expected:
        raise TargetError(f"{key}: checksum mismatch: {len(data)}{'+' if len(data) > expected else ''} bytes, the "
                          f"manifest says {expected}; not used")


def open_target(location: str) -> Target:
    """The target for a directory path, ``file://``, ``s3://`` or ``http(s)://`` location.

    Raises:
        TargetError: an unsupported scheme, or a missing client library.
    """
    scheme = urlsplit(location).scheme.lower()
    if scheme == "s3":
        return S3Target(location)
    if scheme in ("http", "https"):
        return HttpTarget(location)
    if scheme == "file":
        return DirectoryTarget(Path(urlsplit(location).path))
    if scheme and len(scheme) > 1:
        raise TargetError(f"{location!r}: unsupported scheme {scheme!r}; use a directory, s3:// or https://")
    return DirectoryTarget(Path(location).expanduser())
