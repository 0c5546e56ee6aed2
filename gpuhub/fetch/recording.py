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
import functools
import json
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote, quote_plus, urlencode, urlsplit, urlunsplit

from gpuhub.fetch import safeio

if TYPE_CHECKING:
    import httpx

__all__ = [
    "SECRET_NAMES",
    "Manifest",
    "known_secret_forms",
    "known_secrets",
    "lasting_secrets",
    "load_manifest",
    "redact",
    "remember_secret",
    "request_secrets",
    "restore_secrets",
    "scrub_url",
    "secret_forms",
    "write_json_files",
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
    "signature", "sig", "x-goog-api-key", "awsaccesskeyid", "securitytoken", "x-slurm-user-token",
})
REDACTED = "REDACTED"
_SECRET_VALUE_RX = re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+")
# Credentials a response body may carry as JSON fields (an OAuth token endpoint's answer, for one).
_SECRET_JSON_RX = re.compile(
    rb'("(?:access_token|refresh_token|id_token|client_secret|password|SessionToken|SecretAccessKey)"\s*:\s*")'
    rb'([^"\\]*)(")')
_CREDENTIAL_JSON_RX = re.compile(
    r'("(?:client_id|client_secret|refresh_token|access_token|password)"\s*:\s*")([^"\\]*)(")')
_NAMES_RX = "|".join(re.escape(n) for n in sorted(SECRET_NAMES, key=len, reverse=True))
# ``?key=value`` / ``&token=value`` in URLs and form bodies, and ``name: value`` header lines at the start of a line
# (signers' canonical requests, header dumps); prose such as "unclosed token: line 3" is left alone.
_SECRET_PARAM_PATTERN = (rf"(?im)((?:[?&#;]|^|(?<=\s))(?:{_NAMES_RX})=|^[ \t]*(?:{_NAMES_RX})[ \t]*:[ \t]*)"
                         r"[^&\s\"'<>#,]+")


@functools.cache
def _secret_param_rx() -> re.Pattern[str]:
    """The pattern compiled on first use (a search served from the store never scrubs text; compiling its ~30
    alternatives was a measurable part of importing this module)."""
    return re.compile(_SECRET_PARAM_PATTERN)

# A Bearer credential in free text: at least 8 token characters (so "sent as a Bearer token" stays readable).
_BEARER_RX = re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}")
_KNOWN_SECRETS: set[str] = set()
_KNOWN_LOCK = threading.Lock()
_KNOWN_FORMS: list[tuple[frozenset[str], list[str]]] = []
"""``(values, forms)`` of the last :func:`known_secret_forms` call without extras."""
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


def restore_secrets(values: Iterable[str]) -> None:
    """Make the registry exactly ``values`` (e.g. :func:`known_secrets` taken before): for test suites, so the
    credentials one test read do not change what :func:`redact` does in the next."""
    with _KNOWN_LOCK:
        _KNOWN_SECRETS.clear()
        _KNOWN_SECRETS.update(values)


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
        values = frozenset(_KNOWN_SECRETS)
        cached = _KNOWN_FORMS[0] if _KNOWN_FORMS and not extra else None
    if cached is not None and cached[0] == values:
        return cached[1]
    out: set[str] = set()
    for value in values | extra:
        if value and len(value) >= 4:
            out.update(secret_forms(value))
    forms = sorted(out, key=len, reverse=True)
    if not extra:
        with _KNOWN_LOCK:
            _KNOWN_FORMS[:] = [(values, forms)]
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
    is kept; of a ``Bearer``/``Basic``/``Token`` header only its token. Registering the per-request values made the
    process-wide registry, and the cost of redacting every log record, grow with each signed request a long-lived
    process sent (about 80 per AWS walk)."""
    values = []
    for name, value in _request_secret_items(request):
        if name in _PER_REQUEST_NAMES:
            continue
        if name == "x-amz-credential" or value.startswith("AWS4-HMAC-SHA256"):
            key = _SIGV4_CREDENTIAL_RX.search(value) if name != "x-amz-credential" else None
            values.append(key.group(1) if key else value.partition("/")[0])
            continue
        scheme, _, token = value.partition(" ")
        # Of "Bearer <token>" the token alone: the whole value would also blank prose ("Bearer t" of a 1-character
        # token turned "a Bearer token" into "a REDACTEDoken"); blanking the token blanks the header too.
        values.append(token if token and scheme.lower() in ("bearer", "basic", "token") else value)
    return values


def redact(text: str, extra: frozenset[str] | set[str] = frozenset()) -> str:
    """``text`` with every known credential value, credential query parameters (``key=…``, ``token=…``) and
    Bearer tokens replaced by ``REDACTED``: for messages, statuses and logs."""
    for secret in known_secret_forms(extra):
        if secret in text:
            text = text.replace(secret, REDACTED)
    text = _BEARER_RX.sub(r"\1" + REDACTED, text)
    return _secret_param_rx().sub(r"\1" + REDACTED, text)


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
    elif text.lstrip().startswith("{"):
        # A JSON credentials body (an OAuth client-credentials request) matches whatever the credentials are: the
        # recording holds them redacted, the live request holds the user's.
        text = _CREDENTIAL_JSON_RX.sub(r"\1REDACTED\3", text)
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
        """The manifest as written to ``manifest.json`` (format version, provider, dates ISO 8601, kind, source, notes,
        exchanges); ``data_date`` only where it differs from ``recorded_at`` or is unknown.
        """
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


def atomic_write(path: Path, data: bytes) -> None:
    """Write via a temporary file and rename, readable by the user only, so a crash leaves the old file
    (:func:`gpuhub.fetch.safeio.atomic_write`)."""
    safeio.atomic_write(path, data)



def write_json_files(directory: Path, files: Mapping[str, Any], check: bool = False) -> list[str]:
    """Write each ``name -> JSON-ready data`` of ``files`` under ``directory`` (indent 1, UTF-8, final newline),
    for a plugin's script that rebuilds its bundled recording; with ``check``, write nothing and return the names
    whose file is missing or differs (the script exits 1 on any: the recording is out of date)."""
    stale = []
    for name, data in files.items():
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        path = directory / name
        if check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return stale


def build_recording_main(description: str | None, directory: Path, build: Callable[[], Mapping[str, Any]],
                         sources: Sequence[Path], argv: Sequence[str] | None = None) -> int:
    """The ``main()`` of a plugin's ``scripts/build_recording.py``: with ``--check`` in ``argv`` (default: the
    command line), compare ``build()``'s files (``name -> JSON-ready data``) with those under ``directory`` and
    write nothing; else write them (:func:`write_json_files`). ``description`` is the script's ``__doc__`` (its
    first line is the ``--help`` text); ``sources`` are the reference files ``build`` reads.

    Returns the exit code: 0 done or up to date; 1 out of date (the stale names on stderr); 2 a source is absent
    (its path on stderr), before ``build`` runs."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(description=description.splitlines()[0] if description else None)
    parser.add_argument("--check", action="store_true", help="compare with the bundled files, write nothing")
    args = parser.parse_args(argv)
    missing = [str(path) for path in sources if not path.is_file()]
    if missing:
        print(f"absent: {', '.join(missing)}", file=sys.stderr)
        return 2
    stale = write_json_files(directory, build(), check=args.check)
    if stale:
        print(f"out of date: {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


def json_exchange(url: str, body_file: str, *, method: str = "GET", body: str | None = None) -> dict[str, Any]:
    """One recorded exchange of a manifest (``"exchanges"``), as a build script writes it: the request
    (``method``, ``url``, the request ``body`` text or None) answered 200 with ``application/json`` from the
    recording's file ``body_file``."""
    return {"request": {"method": method, "url": url, "body": body},
            "response": {"status": 200, "headers": {"content-type": "application/json"}, "body_file": body_file}}
