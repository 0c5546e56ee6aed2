"""The HTTP transports a fetch goes through: replaying a recording, recording the network, and the guard every
fetch's transport is wrapped in. Imported only when a provider is really fetched (httpx is not needed by a search
served from the offer store)."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qsl, urlencode

import httpx

from gpuhub.errors import ProviderError, ReplayMissError
from gpuhub.fetch import safeio
from gpuhub.fetch.recording import (
    _SECRET_JSON_RX,
    _SECRET_VALUE_RX,
    MAX_BODY_BYTES,
    REDACTED,
    Manifest,
    _is_secret,
    _match_key,
    atomic_write,
    known_secret_forms,
    remember_secret,
    request_secrets,
    scrub_url,
)

__all__ = ["GuardedTransport", "RecordingTransport", "ReplayTransport", "no_network"]


class Stop(Protocol):
    """When an abandoned fetch stops (the engine's ``_Stop``)."""

    def check(self) -> None:
        """Raise :class:`~gpuhub.errors.ProviderError` when the fetch has run past its abandon time."""
        ...


class ReplayTransport(httpx.BaseTransport):
    """Serves recorded responses; a request without a recording raises :class:`ReplayMissError` naming it.

    When the same request was recorded several times, the recordings are served in order and the last one
    repeats (so a recorded failure followed by a success replays as such).
    """

    def __init__(self, manifest: Manifest) -> None:
        if manifest.directory is None:
            raise ValueError("manifest has no directory to read bodies from")
        self.manifest = manifest
        self._directory = manifest.directory
        self._index: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        self._served: dict[tuple[Any, ...], int] = {}
        self._lock = threading.Lock()
        for exchange in manifest.exchanges:
            req = exchange.get("request", {})
            key = _match_key(str(req.get("method", "GET")), str(req.get("url", "")), req.get("body"))
            self._index.setdefault(key, []).append(exchange["response"])

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """The recorded response for this request (method, URL, body); repeated requests get the recorded responses in
        order, then the last again.

        Raises:
            ReplayMissError: the recording has no response for this request.
        """
        key = _match_key(request.method, str(request.url), request.content)
        with self._lock:
            responses = self._index.get(key)
            if not responses:
                raise ReplayMissError(
                    f"no recording of {request.method} {scrub_url(str(request.url))} in {self._directory} "
                    f"({len(self.manifest.exchanges)} recorded requests); record it with 'gpuhub record "
                    f"{self.manifest.provider}' or add it to manifest.json")
            n = self._served.get(key, 0)
            self._served[key] = n + 1
            spec = responses[min(n, len(responses) - 1)]
        if "body_file" in spec:
            content = self._body(spec["body_file"])
        else:
            body = spec.get("body", "")
            content = (body if isinstance(body, str) else json.dumps(body)).encode()
        return httpx.Response(int(spec.get("status", 200)), headers=spec.get("headers") or {}, content=content,
                              request=request)


    def _body(self, name: object) -> bytes:
        """A recorded body file: a regular file inside the recording, under the size limit (never ``../``, an
        absolute path, a device or a FIFO)."""
        try:
            if not isinstance(name, str):
                raise safeio.UnsafeFileError(f"{name!r} is not a file name")
            return safeio.read_bytes(Path(name), root=self._directory, limit=MAX_BODY_BYTES)
        except OSError as exc:
            raise ReplayMissError(f"recording {self._directory}: body_file {name!r} cannot be served: {exc}"
                                  ) from None


class RecordingTransport(httpx.BaseTransport):
    """Passes requests to ``inner`` (the network) and records every exchange, scrubbed, for ``directory``.

    Everything is written into a new sibling directory (``.<name>.recording-<random>``); :meth:`save` (the engine
    calls it only when the whole fetch succeeded with offers) writes ``manifest.json`` there and then swaps it in
    place of ``directory``; :meth:`discard` throws it away. A failed or empty recording never touches the old one.
    """

    def __init__(self, inner: httpx.BaseTransport, directory: Path, provider: str, source: str) -> None:
        self.inner = inner
        self.directory = directory
        self._staging: Path | None = None
        self.manifest = Manifest(provider=provider, recorded_at=dt.datetime.now(dt.timezone.utc).date(),
                                 kind="live-capture", source=source, directory=directory)
        self._lock = threading.Lock()
        self._secrets: set[str] = set()

    def add_secret(self, value: str) -> None:
        """A credential value to blank wherever it appears in a recorded body or URL (values under 4 characters
        are too short to blank safely and are left to the name-based scrubbing)."""
        if value and len(value) >= 4:
            self._secrets.add(value)

    def _learn_secrets(self, request: httpx.Request) -> None:
        """Remember credential values the request carries, so an echo of them in a body is blanked too."""
        for value in request_secrets(request):
            self.add_secret(value)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send the request through the inner transport and keep the exchange, credentials blanked, for :meth:`save`."""
        request.read()
        self._learn_secrets(request)
        response = self.inner.handle_request(request)
        content = response.read()
        with self._lock:
            n = len(self.manifest.exchanges) + 1
            suffix = ".json" if "json" in response.headers.get("content-type", "") else ".body"
            body_file = f"{n:04d}{suffix}"
            atomic_write(self._stage() / body_file, self._scrub_bytes(content))
            self.manifest.exchanges.append({
                "request": {"method": request.method, "url": self._scrub_text(scrub_url(str(request.url))),
                            "body": self._scrub_body(request.content)},
                "response": {"status": response.status_code,
                             "headers": {k: v for k, v in response.headers.items()
                                         if k.lower() in ("content-type", "retry-after", "last-modified", "date")},
                             "body_file": body_file},
            })
        return httpx.Response(response.status_code, headers=response.headers, content=content, request=request)

    def _stage(self) -> Path:
        if self._staging is None:
            self.directory.parent.mkdir(parents=True, exist_ok=True)
            self._staging = Path(tempfile.mkdtemp(prefix=f".{self.directory.name}.recording-",
                                                  dir=self.directory.parent))
        return self._staging

    def save(self) -> Path:
        """Write ``manifest.json`` into the new recording, then put the new recording in place of the old one
        (renames: the old one is removed only once the new one is in place). Returns the manifest's path.

        Raises:
            OSError: the directory cannot be written; the old recording is then left as it was.
        """
        with self._lock:
            text = json.dumps(self.manifest.to_json(), indent=1)
            staging = self._stage()
            atomic_write(staging / "manifest.json", self._scrub_text(text).encode())
            old: Path | None = None
            if self.directory.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{self.directory.name}.old-", dir=self.directory.parent))
                os.replace(self.directory, old / "previous")
            try:
                os.replace(staging, self.directory)
            except OSError:
                if old is not None:
                    os.replace(old / "previous", self.directory)
                raise
            finally:
                if old is not None:
                    shutil.rmtree(old, ignore_errors=True)
            self._staging = None
        return self.directory / "manifest.json"

    def discard(self) -> None:
        """Throw the new recording away (the fetch failed or was empty); the old recording stays as it was."""
        with self._lock:
            if self._staging is not None:
                shutil.rmtree(self._staging, ignore_errors=True)
                self._staging = None

    def close(self) -> None:
        """Close the inner transport (the recording is kept until saved)."""
        self.inner.close()

    def _all_secrets(self) -> list[str]:
        # The values the requests carried plus every credential read in this process (known before the first
        # response arrives, so a body echoing one is blanked before it is written); longest first.
        return known_secret_forms(self._secrets)

    def _scrub_text(self, text: str) -> str:
        for secret in self._all_secrets():
            text = text.replace(secret, REDACTED)
        return _SECRET_VALUE_RX.sub(r"\1" + REDACTED, text)

    def _scrub_bytes(self, content: bytes) -> bytes:
        for match in _SECRET_JSON_RX.finditer(content):
            remember_secret(match.group(2).decode("utf-8", "replace"))
        content = _SECRET_JSON_RX.sub(rb"\1" + REDACTED.encode() + rb"\3", content)
        for secret in self._all_secrets():
            content = content.replace(secret.encode(), REDACTED.encode())
        return content

    def _scrub_body(self, content: bytes) -> str | None:
        if not content:
            return None
        text = content.decode("utf-8", "replace")
        if "=" in text and not text.lstrip().startswith(("{", "[", "<")):
            text = urlencode([(k, REDACTED if _is_secret(k) else v) for k, v in parse_qsl(text, True)])
        return self._scrub_text(text)


class GuardedTransport(httpx.BaseTransport):
    """Wraps a fetch's transport: answers read whole are capped at ``max_bytes`` (an endless or huge body fails
    the fetch instead of filling memory), and an abandoned fetch stops at its next request or body chunk."""

    def __init__(self, inner: httpx.BaseTransport, stop: Stop, max_bytes: int) -> None:
        self.inner, self.stop, self.max_bytes = inner, stop, max_bytes

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send the request unless the fetch was abandoned; the response body is read through :class:`GuardedStream`.

        Raises:
            ProviderError: the fetch was abandoned (:class:`Stop`).
        """
        self.stop.check()
        response = self.inner.handle_request(request)
        limit = None if request.extensions.get("gpuhub_streamed") else self.max_bytes
        return httpx.Response(response.status_code, headers=response.headers, request=request,
                              stream=GuardedStream(response, self.stop, limit, request),
                              extensions=response.extensions)

    def close(self) -> None:
        """Close the inner transport."""
        self.inner.close()


class GuardedStream(httpx.SyncByteStream):
    """A response body read chunk by chunk, stopping an abandoned fetch at each chunk and a whole read beyond
    ``limit`` bytes (``None``: a streamed read, no cap) with :class:`~gpuhub.errors.ProviderError`.
    """

    def __init__(self, response: httpx.Response, stop: Stop, limit: int | None, request: httpx.Request) -> None:
        self.response, self.stop, self.limit, self.request = response, stop, limit, request

    def __iter__(self) -> Iterator[bytes]:
        total = 0
        for chunk in self.response.stream:  # type: ignore[union-attr]
            self.stop.check()
            total += len(chunk)
            if self.limit is not None and total > self.limit:
                raise ProviderError(f"the answer to {self.request.method} {self.request.url.path} is over "
                                    f"{self.limit // (1024 * 1024)} MiB: refused")
            yield chunk

    def close(self) -> None:
        """Close the underlying response."""
        self.response.close()


def no_network(request: httpx.Request) -> httpx.Response:
    """The transport handler of a static provider: it has no network.

    Raises:
        ProviderError: always, naming the request it tried.
    """
    raise ProviderError(f"static provider attempted a network request: {request.method} {request.url}")
