"""Recordings: the fixture format, the replay transport, and the recording transport with secret scrubbing.

A recording is a directory holding ``manifest.json`` and one file per response body::

    {"format": 1, "provider": "lambda", "recorded_at": "2026-09-20", "kind": "reconstructed",
     "data_date": "2024-09-16", "data_date_note": "optional: the date of the prices themselves, or null",
     "source": "where the facts come from", "notes": "...",
     "exchanges": [{"request": {"method": "GET", "url": "https://host/path?a=1", "body": null},
                    "response": {"status": 200, "headers": {"content-type": "application/json"},
                                 "body_file": "0001.json"}}]}

``kind`` is ``live-capture`` (recorded by ``gpuhub record``) or ``reconstructed`` (built by hand from published
prices). Requests match on method, URL (query parameters in any order) and body (form fields in any order);
credentials never take part in matching and are never written (see :data:`SECRET_NAMES`).
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, urlencode, urlsplit, urlunsplit

import httpx

from gpuhub import safeio
from gpuhub.errors import ReplayMissError

__all__ = [
    "SECRET_NAMES",
    "Manifest",
    "RecordingTransport",
    "ReplayTransport",
    "known_secret_forms",
    "known_secrets",
    "lasting_secrets",
    "load_manifest",
    "redact",
    "remember_secret",
    "request_secrets",
    "scrub_url",
    "secret_forms",
]

FORMAT_VERSION = 1
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
"""A ``manifest.json`` larger than this (bytes) is refused."""
MAX_BODY_BYTES = 256 * 1024 * 1024
"""A recorded body file larger than this (bytes) is refused."""
# Header, query-parameter and form-field names whose values are credentials (compared case-insensitively).
SECRET_NAMES = frozenset({
    "authorization", "proxy-authorization", "x-api-key", "api-key", "apikey", "api_key", "key", "token",
    "access_token", "client_secret", "password", "cookie", "set-cookie", "ocp-apim-subscription-key",
    "x-amz-security-token", "x-amz-signature", "x-amz-credential", "x-amz-date", "x-amz-content-sha256",
    "signature", "sig", "x-goog-api-key", "awsaccesskeyid", "securitytoken",
})
REDACTED = "REDACTED"
_SECRET_VALUE_RX = re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+")
# Credentials a response body may carry as JSON fields (an OAuth token endpoint's answer, for one).
_SECRET_JSON_RX = re.compile(
    rb'("(?:access_token|refresh_token|id_token|client_secret|password|SessionToken|SecretAccessKey)"\s*:\s*")'
    rb'([^"\\]*)(")')
_NAMES_RX = "|".join(re.escape(n) for n in sorted(SECRET_NAMES, key=len, reverse=True))
# ``?key=value`` / ``&token=value`` in URLs and form bodies, and ``name: value`` header lines at the start of a line
# (signers' canonical requests, header dumps); prose such as "unclosed token: line 3" is left alone.
_SECRET_PARAM_RX = re.compile(rf"(?im)((?:[?&#;]|^|(?<=\s))(?:{_NAMES_RX})=|^[ \t]*(?:{_NAMES_RX})[ \t]*:[ \t]*)"
                              r"[^&\s\"'<>#,]+")
# A Bearer credential in free text: at least 8 token characters (so "sent as a Bearer token" stays readable).
_BEARER_RX = re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}")
_KNOWN_SECRETS: set[str] = set()
_KNOWN_LOCK = threading.Lock()
_KNOWN_FORMS: list[tuple[int, list[str]]] = []
"""``(len(_KNOWN_SECRETS), forms)`` of the last :func:`known_secret_forms` call without extras (values are only
ever added, so an unchanged size means an unchanged set)."""
# Values a request signer derives for ONE request (AWS Signature Version 4): the signature, its time stamp and the
# payload hash differ on every request. They are blanked by name in recordings and logs; the process-wide registry
# keeps only the access key they name, so it does not grow with every request a long-lived process sends.
_PER_REQUEST_NAMES = frozenset({"x-amz-signature", "x-amz-date", "x-amz-content-sha256"})
_SIGV4_CREDENTIAL_RX = re.compile(r"Credential=([^/,\s]+)/")


def _is_secret(name: str) -> bool:
    return name.lower() in SECRET_NAMES


def remember_secret(value: str) -> None:
    """Register a credential value read in this process, so :func:`redact` and every recording blank it wherever
    it appears (values under 4 characters are too short to blank safely)."""
    if value and len(value) >= 4:
        with _KNOWN_LOCK:
            _KNOWN_SECRETS.add(value)


def known_secrets() -> frozenset[str]:
    """The credential values registered with :func:`remember_secret`."""
    with _KNOWN_LOCK:
        return frozenset(_KNOWN_SECRETS)


@lru_cache(maxsize=1024)
def secret_forms(value: str) -> tuple[str, ...]:
    """Every form a credential value travels in, longest first: literal, URL-encoded (``%XX`` and ``+``), and base64
    (standard and URL-safe alphabets; for each of the 3 byte alignments the characters that depend on the value
    alone, so a copy inside a longer base64 text, e.g. ``user:KEY`` of a Basic header, is found too)."""
    forms = {value, quote(value, safe=""), quote_plus(value), quote(value)}
    raw = value.encode()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode()
        core = encoded[-(-offset * 4 // 3):((offset + len(raw)) * 8) // 6]
        if len(core) >= 8:
            forms.update({core, core.replace("+", "-").replace("/", "_")})
    return tuple(sorted((f for f in forms if len(f) >= 4), key=len, reverse=True))


def known_secret_forms(extra: Iterable[str] = ()) -> list[str]:
    """:func:`secret_forms` of every known credential (and ``extra``), longest first."""
    extra = set(extra)
    with _KNOWN_LOCK:
        values = set(_KNOWN_SECRETS)
        cached = _KNOWN_FORMS[0] if _KNOWN_FORMS and not extra else None
    if cached is not None and cached[0] == len(values):
        return cached[1]
    out: set[str] = set()
    for value in values | extra:
        if value and len(value) >= 4:
            out.update(secret_forms(value))
    forms = sorted(out, key=len, reverse=True)
    if not extra:
        with _KNOWN_LOCK:
            _KNOWN_FORMS[:] = [(len(values), forms)]
    return forms


def _request_secret_items(request: httpx.Request) -> list[tuple[str, str]]:
    """``(lower-case name, value)`` of the request's secret-named headers, query parameters and form fields."""
    items = [(k.lower(), v) for k, v in request.headers.items() if _is_secret(k)]
    items += [(k.lower(), v) for k, v in request.url.params.multi_items() if _is_secret(k)]
    body = request.content.decode("utf-8", "replace") if request.content else ""
    if body and "=" in body and not body.lstrip().startswith(("{", "[", "<")):
        items += [(k.lower(), v) for k, v in parse_qsl(body, keep_blank_values=True) if _is_secret(k)]
    return items


def _with_tokens(values: Iterable[str]) -> list[str]:
    out = []
    for value in values:
        out.append(value)
        scheme, _, token = value.partition(" ")
        if token and scheme.lower() in ("bearer", "basic", "token"):
            out.append(token)
    return out


def request_secrets(request: httpx.Request) -> list[str]:
    """The credential values a request carries: secret-named headers, query parameters and form fields (and the
    token of a ``Bearer``/``Basic``/``Token`` header)."""
    return _with_tokens(v for _, v in _request_secret_items(request))


def lasting_secrets(request: httpx.Request) -> list[str]:
    """The credential values of :func:`request_secrets` that outlive the request, for :func:`remember_secret`.

    Left out: what a signer derives for this one request (AWS Signature Version 4's signature, ``x-amz-date``,
    payload hash); of a SigV4 ``Authorization`` header or ``X-Amz-Credential`` parameter only the access key ID
    is kept. Registering those per-request values made the process-wide registry, and the cost of redacting every
    log record, grow with each signed request a long-lived process sent (about 80 per AWS walk)."""
    values = []
    for name, value in _request_secret_items(request):
        if name in _PER_REQUEST_NAMES:
            continue
        if name == "x-amz-credential" or value.startswith("AWS4-HMAC-SHA256"):
            key = _SIGV4_CREDENTIAL_RX.search(value) if name != "x-amz-credential" else None
            values.append(key.group(1) if key else value.partition("/")[0])
            continue
        values.append(value)
    return _with_tokens(values)


def redact(text: str, extra: frozenset[str] | set[str] = frozenset()) -> str:
    """``text`` with every known credential value, credential query parameters (``key=…``, ``token=…``) and
    Bearer tokens replaced by ``REDACTED``: for messages, statuses and logs."""
    for secret in known_secret_forms(extra):
        if secret in text:
            text = text.replace(secret, REDACTED)
    text = _BEARER_RX.sub(r"\1" + REDACTED, text)
    return _SECRET_PARAM_RX.sub(r"\1" + REDACTED, text)


def scrub_url(url: str) -> str:
    """The URL with credential query parameters removed (their values never reach a file or a message)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_secret(k)]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def _match_key(method: str, url: str, body: bytes | str | None) -> tuple[str, str, str, tuple[tuple[str, str], ...],
                                                                       str]:
    parts = urlsplit(url)
    query = tuple(sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_secret(k)))
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else (body or "")
    if text and "=" in text and not text.lstrip().startswith(("{", "[", "<")):
        fields = sorted((k, v) for k, v in parse_qsl(text, keep_blank_values=True) if not _is_secret(k))
        text = urlencode(fields)
    return (method.upper(), parts.netloc.lower(), parts.path or "/", query, text)


@dataclass
class Manifest:
    """A recording's ``manifest.json``: provenance plus the list of exchanges."""

    provider: str
    recorded_at: dt.date | None
    kind: str
    source: str
    notes: str = ""
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    directory: Path | None = None
    data_date: dt.date | None = None
    """The date of the prices themselves (optional ``data_date`` in the file; a reconstructed recording is built
    later than the facts it holds). When the file has no ``data_date`` key it is ``recorded_at``."""
    data_date_known: bool = True
    """False when the file says ``"data_date": null`` (the facts' date is not known; ``data_date_note`` says why)."""
    data_date_note: str = ""
    """Where ``data_date`` comes from, or why it is unknown (optional ``data_date_note``)."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": FORMAT_VERSION, "provider": self.provider,
            "recorded_at": self.recorded_at.isoformat() if self.recorded_at else None,
        }
        if (self.data_date not in (None, self.recorded_at)) or not self.data_date_known or self.data_date_note:
            data["data_date"] = self.data_date.isoformat() if self.data_date and self.data_date_known else None
            data["data_date_note"] = self.data_date_note
        data.update({"kind": self.kind, "source": self.source, "notes": self.notes, "exchanges": self.exchanges})
        return data


def load_manifest(directory: Path) -> Manifest:
    """Read ``directory/manifest.json``.

    Raises:
        FileNotFoundError: no manifest in ``directory``.
        ValueError: the manifest is not valid JSON of the documented shape.
    """
    path = directory / "manifest.json"
    try:  # a regular file, size- and nesting-limited: a JSON bomb is a clear error, never a RecursionError
        data = safeio.read_json(Path("manifest.json"), root=directory, limit=MAX_MANIFEST_BYTES)
    except safeio.JsonLimitError as exc:
        raise ValueError(f"{path} is not a usable manifest: {exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("exchanges"), list):
        raise ValueError(f"{path} must be an object with an 'exchanges' list (see README, 'Fixture format')")
    for i, exchange in enumerate(data["exchanges"]):
        if not (isinstance(exchange, dict) and isinstance(exchange.get("request", {}), dict)
                and isinstance(exchange.get("response"), dict)):
            raise ValueError(f"{path}: exchange {i} must be an object with 'request' and 'response' objects")
    when = data.get("recorded_at")
    recorded_at = dt.date.fromisoformat(when) if when else None
    data_date, known = recorded_at, recorded_at is not None
    if "data_date" in data:
        raw = data["data_date"]
        data_date, known = (dt.date.fromisoformat(str(raw)), True) if raw else (None, False)
    return Manifest(
        provider=str(data.get("provider", directory.name)), recorded_at=recorded_at,
        kind=str(data.get("kind", "unknown")), source=str(data.get("source", "")), notes=str(data.get("notes", "")),
        exchanges=data["exchanges"], directory=directory, data_date=data_date, data_date_known=known,
        data_date_note=str(data.get("data_date_note") or ""),
    )


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
                                         if k.lower() in ("content-type", "retry-after", "last-modified")},
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


def atomic_write(path: Path, data: bytes) -> None:
    """Write via a temporary file and rename, readable by the user only, so a crash leaves the old file
    (:func:`gpuhub.safeio.atomic_write`)."""
    safeio.atomic_write(path, data)
