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

    def read(self, key: str, etag: str | None = None) -> tuple[bytes, str | None]:
        """The object's bytes and ETag. Raises NotModified when ``etag`` still matches, TargetError otherwise."""
        ...

    def write(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        ...


class DirectoryTarget:
    """Objects are files under ``root``; writes are atomic (a temporary file renamed into place)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.location = str(root)

    def read(self, key: str, etag: str | None = None) -> tuple[bytes, str | None]:
        path = self.root / key
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise TargetError(f"cannot read {path}: {exc.strerror or exc}") from None
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

    def read(self, key: str, etag: str | None = None) -> tuple[bytes, str | None]:
        from botocore.exceptions import BotoCoreError, ClientError

        args: dict[str, str] = {"Bucket": self.bucket, "Key": self._key(key)}
        if etag:
            args["IfNoneMatch"] = etag
        try:
            answer = self._s3.get_object(**args)
            return answer["Body"].read(), answer.get("ETag")
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

    def read(self, key: str, etag: str | None = None) -> tuple[bytes, str | None]:
        import httpx

        from gpuhub._version import __version__

        headers = {"User-Agent": f"gpuhub/{__version__}"}
        if etag:
            headers["If-None-Match"] = etag
        try:
            answer = httpx.get(f"{self.base}/{key}", headers=headers, timeout=self.timeout_s, follow_redirects=True)
        except httpx.HTTPError as exc:
            raise TargetError(f"cannot read {self.base}/{key}: {type(exc).__name__}: {exc}") from None
        if answer.status_code == 304:
            raise NotModified(key)
        if answer.status_code != 200:
            raise TargetError(f"cannot read {self.base}/{key}: HTTP {answer.status_code}")
        return answer.content, answer.headers.get("etag")

    def write(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        raise TargetError(f"{self.location}: publishing over HTTP is not supported; publish to a directory or "
                          "s3:// and serve that")


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
