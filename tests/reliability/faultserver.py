"""A fault-injection HTTP server on loopback that replays a provider's recording.

The server binds ``127.0.0.1`` on an ephemeral port (never any other address), runs in a daemon thread, and
answers each request from a recording (``manifest.json`` + body files, loaded with
:func:`gpuhub.fetch.recording.load_manifest`) by matching method, path and query (parameters in any order, credential
parameters ignored, host ignored). Tests point a provider at it with ``GPUHUB_<NAME>_BASE_URL``.

Per request, a test can inject a fault (:class:`Fault`) through :meth:`FaultServer.inject`: an HTTP status with
optional ``Retry-After`` (429, 500, 502, 503), a stall past the client's timeout, a connection closed mid-body, a
truncated or invalid body, an HTML page where JSON was expected, an empty body, or a transformed JSON body (a
next-page link that loops back, a renamed or missing field, an empty item list). Every request is logged
(:attr:`FaultServer.log`), so tests count what the server saw.

Usage::

    with FaultServer(recording_dir) as server:
        server.inject(Fault.status(503), match="page=2", times=None)
        env = {"GPUHUB_FAKECLOUD_BASE_URL": server.url}
        ...
        assert server.count("page=2") == 3
"""

from __future__ import annotations

import email.utils
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote_plus, urlencode, urlsplit

from gpuhub.fetch.recording import _CREDENTIAL_JSON_RX, SECRET_NAMES, load_manifest

__all__ = ["Answer", "Fault", "FaultServer", "Match", "Seen", "Unrecorded", "http_date", "matches"]

LOOPBACK = "127.0.0.1"
HTML_PAGE = (b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head>"
             b"<body><h1>Bad Gateway</h1><p>The proxy could not reach the upstream server.</p></body></html>")


def http_date(seconds_from_now: float) -> str:
    """An HTTP date (RFC 9110 IMF-fixdate) ``seconds_from_now`` seconds from now, for ``Retry-After``."""
    return email.utils.formatdate(time.time() + seconds_from_now, usegmt=True)


Match = str | tuple[str, ...] | Callable[[str], bool] | None
"""Which requests: every one (None), those whose decoded ``path?query`` contains the string (every string of a
tuple), or those a predicate of the decoded ``path?query`` accepts."""


def matches(match: Match, target: str) -> bool:
    """True when ``target`` (a decoded ``path?query``) is selected by ``match``."""
    if match is None:
        return True
    if callable(match):
        return bool(match(target))
    return all(m in target for m in ((match,) if isinstance(match, str) else match))


def decoded_target(path: str, query: str, body: bytes = b"") -> str:
    """``path?query`` with the query percent-decoded (``$filter=... eq 'westeurope'``), for matching; a form
    body follows after ``#`` (``/#Action=DescribeSpotPriceHistory&...``), and so does a JSON body (a GraphQL query,
    a search's filters: ``/graphql#{"query": ...}``)."""
    text = f"{path}?{unquote_plus(query)}" if query else path
    if body and b"=" in body and not body.lstrip().startswith((b"{", b"[", b"<")):
        text += "#" + unquote_plus(body.decode("utf-8", "replace"))
    elif body and body.lstrip().startswith((b"{", b"[")):
        text += "#" + body.decode("utf-8", "replace")
    return text


@dataclass(frozen=True)
class Fault:
    """What to do instead of (or to) the recorded answer of one request.

    ``kind`` is one of ``status``, ``stall``, ``stall_mid_body``, ``close_mid_body``, ``truncate``, ``invalid``,
    ``html``, ``empty``, ``transform``, ``text``, ``forever``, ``forever_text``, ``reflect``, ``body``. Build them
    with the class methods.
    """

    kind: str
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    stall_s: float = 0.0
    transform: Callable[[Any, str], Any] | None = None
    body: bytes = b""
    content_type: str | None = None
    text: Callable[[bytes, str], bytes] | None = None
    like: Match = None

    @classmethod
    def http_status(cls, status: int, retry_after: str | None = None) -> Fault:
        """Answer ``status`` (e.g. 429, 500, 502, 503) with an optional ``Retry-After`` header value."""
        headers = (("Retry-After", retry_after),) if retry_after is not None else ()
        return cls("status", status=status, headers=headers)

    @classmethod
    def stall(cls, seconds: float) -> Fault:
        """Say nothing for ``seconds`` (past the client's read timeout), then send the recorded answer."""
        return cls("stall", stall_s=seconds)

    @classmethod
    def stall_mid_body(cls, seconds: float) -> Fault:
        """Send the head and half the body, then say nothing for ``seconds`` (past the read timeout) and close."""
        return cls("stall_mid_body", stall_s=seconds)

    @classmethod
    def close_mid_body(cls) -> Fault:
        """Send the head (with the full ``Content-Length``) and half the body, then close the connection."""
        return cls("close_mid_body")

    @classmethod
    def truncate(cls) -> Fault:
        """Send the first half of the recorded body as if it were complete (a consistent ``Content-Length``)."""
        return cls("truncate")

    @classmethod
    def invalid(cls, body: bytes = b'{"data": {"gpu_1x": [1, 2,, }') -> Fault:
        """Send a body that is not valid JSON (or XML), with the recorded content type."""
        return cls("invalid", body=body)

    @classmethod
    def html(cls) -> Fault:
        """Send a proxy's HTML error page with status 200 and ``text/html`` where JSON was expected."""
        return cls("html", body=HTML_PAGE, content_type="text/html; charset=utf-8")

    @classmethod
    def empty(cls) -> Fault:
        """Send status 200 with an empty body (zero bytes) and the recorded content type."""
        return cls("empty")

    @classmethod
    def json_transform(cls, fn: Callable[[Any, str], Any]) -> Fault:
        """Send ``fn(decoded_recorded_json, server_url)`` re-encoded (loop a next link, rename a field ...)."""
        return cls("transform", transform=fn)

    @classmethod
    def next_page_forever(cls, fn: Callable[[Any, str], Any], like: Match, *, text: bool = False) -> Fault:
        """Answer with ``fn(recorded answer, request target)``: a page whose next link always points to a page not
        asked yet (a list that never ends, to hit the provider's page cap). ``like`` picks the recorded answer for
        requests that were never recorded; ``text`` passes raw bytes (XML) instead of decoded JSON."""
        return cls("forever_text" if text else "forever", transform=fn, like=like)

    @classmethod
    def text_transform(cls, fn: Callable[[bytes, str], bytes], like: Match = None) -> Fault:
        """Send ``fn(recorded_body, server_url)`` (XML answers ...). ``like``: for a request without a recording,
        transform the recorded answer of the first exchange selected by ``like`` (a follow-up page)."""
        return cls("text", text=fn, like=like)

    @classmethod
    def reflect(cls, status: int = 400) -> Fault:
        """Answer ``status`` with a JSON error body echoing the request's headers, query and body back (as some
        APIs and debugging proxies do): credentials the client sent come back in the body."""
        return cls("reflect", status=status)

    @classmethod
    def raw(cls, body: bytes, status: int = 200, content_type: str = "application/json") -> Fault:
        """Send exactly ``body`` with ``status``."""
        return cls("body", status=status, body=body, content_type=content_type)


@dataclass
class _Rule:
    fault: Fault
    match: Match
    times: int | None
    skip: int
    seen: int = 0

    def applies(self, target: str) -> bool:
        """Count a matching request and say whether the fault applies to it (the first ``skip`` pass)."""
        if not matches(self.match, target):
            return False
        self.seen += 1
        if self.seen <= self.skip:
            return False
        return self.times is None or self.seen - self.skip <= self.times


@dataclass(frozen=True)
class Seen:
    """One request the server saw: method, path, query string, headers, body, monotonic time, fault applied."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes
    at: float
    fault: str | None

    @property
    def target(self) -> str:
        """The decoded ``path?query`` (and ``#form body``)."""
        return decoded_target(self.path, self.query, self.body)


def _key(method: str, path: str, query: str, body: bytes | str | None) -> tuple[Any, ...]:
    fields = tuple(sorted((k, v) for k, v in parse_qsl(query, keep_blank_values=True)
                          if k.lower() not in SECRET_NAMES))
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else (body or "")
    if text and "=" in text and not text.lstrip().startswith(("{", "[", "<")):
        text = urlencode(sorted((k, v) for k, v in parse_qsl(text, keep_blank_values=True)
                                if k.lower() not in SECRET_NAMES))
    elif text.lstrip().startswith("{"):  # an OAuth client-credentials body: recorded redacted, sent with the fakes
        text = _CREDENTIAL_JSON_RX.sub(r"\1REDACTED\3", text)
    return (method.upper(), path or "/", fields, text)


@dataclass
class Answer:
    """One HTTP answer: status, headers, body."""

    status: int
    headers: dict[str, str]
    body: bytes


Unrecorded = Callable[["FaultServer", str, str, bytes], Answer | None]
"""A provider case's answers to requests its recording lacks (method, served path, request body), built from what
the recording holds; None: no answer (a miss)."""


class FaultServer:
    """Replays ``recording`` on ``http://127.0.0.1:<ephemeral port>``, with injectable faults.

    Exchanges recorded on the first origin of the manifest are served at their own path; those of any other host
    (AWS's per-region EC2 endpoints) under ``/<host><path>`` (``/ec2.us-east-2.amazonaws.com/``), so a provider
    with several hosts points each at ``{server}/<host>``. The same request recorded several times is answered in
    order (the last repeating). A request whose body differs from every recording of its method and path, where
    that path has exactly one recording, gets that one and is listed in :attr:`loose` (tests that expect exact
    requests assert it stays empty).

    Args:
        recording: a directory holding ``manifest.json`` and the body files.
        unrecorded: answers to requests the recording lacks, asked before the loose match above (AWS: the capacity
            block offerings of every region and type but the one recorded, see ``provider_cases``).
        rewrite_origins: replace every recorded origin (``https://host``) in served bodies with this server's URL
            (the other hosts with ``{server}/<host>``), as a mirror would, so absolute next-page links stay on
            loopback.
    """

    def __init__(self, recording: Path, *, rewrite_origins: bool = True, unrecorded: Unrecorded | None = None) -> None:
        self.manifest = load_manifest(recording)
        self.rewrite_origins = rewrite_origins
        self.unrecorded = unrecorded
        self._answers: dict[tuple[Any, ...], list[Answer]] = {}
        self._routes: dict[tuple[str, str], set[tuple[Any, ...]]] = {}
        self._served: dict[tuple[Any, ...], int] = {}
        self.origins: list[str] = []
        self._exchanges: list[tuple[str, str, str, bytes]] = []  # method, served path, query, request body
        for exchange in self.manifest.exchanges:
            req, resp = exchange.get("request", {}), exchange["response"]
            parts = urlsplit(str(req.get("url", "")))
            origin = f"{parts.scheme}://{parts.netloc}"
            if origin not in self.origins:
                self.origins.append(origin)
            if "body_file" in resp:
                body = (recording / resp["body_file"]).read_bytes()
            else:
                raw = resp.get("body", "")
                body = (raw if isinstance(raw, str) else json.dumps(raw)).encode()
            headers = {str(k): str(v) for k, v in (resp.get("headers") or {}).items()}
            method = str(req.get("method", "GET")).upper()
            path = self._served_path(origin, parts.path)
            request_body = (req.get("body") or "").encode()
            key = _key(method, path, parts.query, request_body)
            self._answers.setdefault(key, []).append(Answer(int(resp.get("status", 200)), headers, body))
            self._routes.setdefault((method, path or "/"), set()).add(key)
            self._exchanges.append((method, path, parts.query, request_body))
        self.loose: list[str] = []
        self.log: list[Seen] = []
        self.misses: list[str] = []
        self._rules: list[_Rule] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ---------------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``, no trailing slash."""
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FaultServer:
        server = self

        class Handler(_Handler):
            owner = server

        httpd = ThreadingHTTPServer((LOOPBACK, 0), Handler)
        httpd.daemon_threads = True
        httpd.block_on_close = False
        assert httpd.server_address[0] == LOOPBACK
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"faultserver-{self.manifest.provider}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()  # wakes stalled handlers
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FaultServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- faults and counts -------------------------------------------------------------------------------
    def inject(self, fault: Fault, *, match: Match = None, times: int | None = None, skip: int = 0) -> None:
        """Apply ``fault`` to requests whose decoded ``path?query`` contains ``match`` (all when None):
        the first ``skip`` matching requests pass, then the next ``times`` (all when None) get the fault."""
        with self._lock:
            self._rules.append(_Rule(fault, match, times, skip))

    def clear(self, *, log: bool = True) -> None:
        """Drop every fault (and, by default, the request log and replay positions)."""
        with self._lock:
            self._rules.clear()
            if log:
                self.log.clear()
                self.misses.clear()
                self.loose.clear()
                self._served.clear()

    def count(self, match: Match = None) -> int:
        """How many requests the server saw whose decoded ``path?query`` contains ``match`` (all when None)."""
        with self._lock:
            return sum(1 for s in self.log if matches(match, s.target))

    def distinct(self, match: Match = None) -> int:
        """How many different request targets matched ``match`` (a retried request counts once: under load a
        slow answer may be retried, so plain counts are bounds, distinct pages are the outcome)."""
        with self._lock:
            return len({s.target for s in self.log if matches(match, s.target)})

    def times(self, match: Match = None) -> list[float]:
        """Monotonic arrival times of the matching requests."""
        with self._lock:
            return [s.at for s in self.log if matches(match, s.target)]

    # --- answering ---------------------------------------------------------------------------------------
    def _served_path(self, origin: str, path: str) -> str:
        if not self.origins or origin == self.origins[0]:
            return path
        return f"/{urlsplit(origin).netloc}{path}"

    def _origin_url(self, origin: str) -> str:
        return self.url + self._served_path(origin, "")

    def _answer(self, method: str, path: str, query: str, body: bytes, *, consume: bool = True) -> Answer | None:
        """The recorded answer (the same request recorded several times is answered in order, the last
        repeating); ``consume=False`` peeks without moving on."""
        key = _key(method, path, query, body)
        if self.unrecorded is not None and key not in self._answers:
            made = self.unrecorded(self, method, path or "/", body)
            if made is not None:
                return made
        with self._lock:
            answers = self._answers.get(key)
            if not answers:
                route = self._routes.get((method.upper(), path or "/"), set())
                if len(route) > 1:  # several operations on one path (EC2 Query API): the same Action only
                    action = dict(parse_qsl(key[3])).get("Action")
                    route = {k for k in route if action and dict(parse_qsl(k[3])).get("Action") == action}
                if len(route) != 1:
                    return None
                [key] = route
                answers = self._answers[key]
                self.loose.append(f"{method} {decoded_target(path, query, body)[:200]}")
            n = self._served.get(key, 0)
            if consume:
                self._served[key] = n + 1
            answer = answers[min(n, len(answers) - 1)]
        content = answer.body
        if self.rewrite_origins:
            for origin in self.origins:
                target = self._origin_url(origin)
                content = content.replace(origin.encode(), target.encode())
                escaped = origin.replace("/", "\\/").encode()  # JSON writers may escape slashes
                content = content.replace(escaped, target.replace("/", "\\/").encode())
        return Answer(answer.status, dict(answer.headers), content)

    def answer_like(self, match: Match) -> Answer | None:
        """The recorded answer of the first exchange whose decoded ``path?query#body`` ``match`` selects."""
        for method, path, query, body in self._exchanges:
            if matches(match, decoded_target(path, query, body)):
                return self._answer(method, path, query, body, consume=False)
        return None

    def _fault_for(self, target: str) -> Fault | None:
        with self._lock:
            for rule in self._rules:
                if rule.applies(target):
                    return rule.fault
        return None

    def _record(self, seen: Seen) -> None:
        with self._lock:
            self.log.append(seen)


_STANDALONE = frozenset({"status", "reflect", "body", "html", "invalid", "empty"})
"""Faults that need no recorded answer (they answer requests that were never recorded, too)."""


class _Handler(BaseHTTPRequestHandler):
    owner: FaultServer
    _body: bytes = b""
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # no 40 ms delayed-ACK stalls between head and body
    server_version = "faultserver/1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read FaultServer.log
        return

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_HEAD(self) -> None:
        self._handle()

    def _handle(self) -> None:
        owner = self.owner
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self._body = body
        target = decoded_target(parts.path, parts.query, body)
        fault = owner._fault_for(target)
        owner._record(Seen(self.command, parts.path, parts.query, dict(self.headers.items()), body,
                           time.monotonic(), fault.kind if fault else None))
        # A faulted request does not use up a recorded answer: the retry gets the same page.
        answer = owner._answer(self.command, parts.path, parts.query, body, consume=fault is None)
        if answer is None and fault is not None and fault.like is not None:
            answer = owner.answer_like(fault.like)
        if answer is None and fault is not None and fault.kind in _STANDALONE:
            answer = Answer(200, {"content-type": "application/json"}, b"")
        if answer is None:
            with owner._lock:
                owner.misses.append(f"{self.command} {target}")
            self._send(404, {"content-type": "text/plain"}, f"no recording of {self.command} {target}".encode())
            return
        try:
            self._serve(fault, answer)
        except (TimeoutError, BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.close_connection = True

    def _serve(self, fault: Fault | None, answer: Answer) -> None:
        content_type = answer.headers.get("content-type") or answer.headers.get("Content-Type") or \
            "application/json"
        if fault is None:
            self._send(answer.status, answer.headers, answer.body)
        elif fault.kind == "status":
            headers = {"content-type": "text/plain", **dict(fault.headers)}
            self._send(fault.status, headers, f"injected HTTP {fault.status}".encode())
        elif fault.kind == "stall":
            if self.owner._stop.wait(fault.stall_s):
                self.close_connection = True
                return
            self._send(answer.status, answer.headers, answer.body)
        elif fault.kind in ("close_mid_body", "stall_mid_body"):
            self.send_response(answer.status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            self.wfile.write(answer.body[: max(1, len(answer.body) // 2)])
            self.wfile.flush()
            if fault.kind == "stall_mid_body":
                self.owner._stop.wait(fault.stall_s)
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif fault.kind == "truncate":
            self._send(answer.status, answer.headers, answer.body[: len(answer.body) // 2])
        elif fault.kind in ("invalid", "empty"):
            self._send(200, {"content-type": content_type}, fault.body)
        elif fault.kind in ("html", "body"):
            self._send(fault.status, {"content-type": fault.content_type or content_type}, fault.body)
        elif fault.kind in ("forever", "forever_text"):
            assert fault.transform is not None
            target = decoded_target(urlsplit(self.path).path, urlsplit(self.path).query, self._body)
            if fault.kind == "forever":
                out = json.dumps(fault.transform(json.loads(answer.body), target)).encode()
            else:
                out = fault.transform(answer.body, target)
            self._send(answer.status, {"content-type": content_type}, out)
        elif fault.kind == "transform":
            assert fault.transform is not None
            data = fault.transform(json.loads(answer.body), self.owner.url)
            self._send(answer.status, {"content-type": content_type}, json.dumps(data).encode())
        elif fault.kind == "reflect":
            headers = dict(self.headers.items())
            echo = {"error": {"code": "InvalidRequest", "message": "rejected:", "path": self.path,
                              "authorization": {k: v for k, v in headers.items()
                                                if k.lower() in ("authorization", "x-amz-security-token")},
                              "method": self.command, "headers": headers,
                              "body": self._body.decode("utf-8", "replace")}}
            self._send(fault.status, {"content-type": "application/json"}, json.dumps(echo).encode())
        elif fault.kind == "text":
            assert fault.text is not None
            self._send(answer.status, {"content-type": content_type}, fault.text(answer.body, self.owner.url))
        else:  # pragma: no cover - a test bug
            raise ValueError(f"unknown fault {fault.kind}")

    def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
