"""How ``gpuhub serve`` runs uvicorn so that no client can starve the others.

uvicorn alone counts every open connection against ``limit_concurrency`` and gives a connection that never sends
a complete request no deadline: a few dozen idle sockets made every other request a 503 (issue 24). Here:

- a connection must finish its request headers within :data:`HEADER_TIMEOUT_S` of opening (or of its previous
  response); one that does not is closed;
- at most :data:`MAX_CONNECTIONS` connections are open: a new one first closes the longest-waiting connection that
  has no request in progress, so idle and slow-header sockets cannot exhaust the limit;
- :data:`MAX_IN_FLIGHT` requests are handled at once (503 beyond: real work, not sockets, is what is limited);
- uvicorn's own settings: ``timeout_keep_alive`` (idle after a response), h11's header size limit,
  ``limit_concurrency`` above the connection cap (never reached by sockets alone), a bounded ``backlog``.

The ``Host`` header is checked by :func:`allowed_hosts` (Starlette's ``TrustedHostMiddleware``).

Searches are CPU work in Python, so one process answers one at a time whatever the number of threads: :func:`run`
forks :func:`worker_count` processes (``GPUHUB_WEB_WORKERS``; default the CPU count, at most
:data:`MAX_WORKERS`) that accept connections on one port (on Linux each on its own ``SO_REUSEPORT`` socket, so the
kernel spreads the connections evenly; elsewhere on one shared socket), each with its own app and engine reading the
same store (the limits above apply per process). A worker stops by itself when the parent process is gone; the
parent stops the others when one ends, and all of them on SIGINT or SIGTERM.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable, Mapping
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["HEADER_TIMEOUT_S", "KEEP_ALIVE_S", "MAX_CONNECTIONS", "MAX_IN_FLIGHT", "MAX_WORKERS", "GuardedH11",
           "InFlightLimit", "allowed_hosts", "guarded_app", "run", "uvicorn_settings", "worker_count"]

log = logging.getLogger("gpuhub.web")

HEADER_TIMEOUT_S = 10.0
"""Seconds a connection has to send its request line and headers (from opening, or from its last response)."""
KEEP_ALIVE_S = 5
"""Seconds an idle keep-alive connection stays open after a response (uvicorn's ``timeout_keep_alive``)."""
MAX_CONNECTIONS = 128
"""Open connections at most; beyond it the longest-waiting one without a request in progress is closed."""
MAX_IN_FLIGHT = 64
"""Requests handled at once; more answer 503."""
MAX_HEADER_BYTES = 16 * 1024
"""The largest request line plus headers (h11's ``max_incomplete_event_size``), bytes."""
MAX_WORKERS = 8
"""Worker processes at most by default (each holds its own copy of the catalog in memory)."""


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a header deadline and idle-first eviction at :data:`MAX_CONNECTIONS`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: Any = None
        self._waiting_since = 0.0

    def connection_made(self, transport: Any) -> None:
        """Accept a connection and arm its header deadline; past :data:`MAX_CONNECTIONS`, close the longest-waiting
        idle ones first.
        """
        super().connection_made(transport)
        self._arm()
        if len(self.connections) > MAX_CONNECTIONS:
            waiting = sorted((c for c in self.connections if isinstance(c, GuardedH11) and c is not self
                              and c._waiting()), key=lambda c: c._waiting_since)
            for other in waiting[:len(self.connections) - MAX_CONNECTIONS]:
                other.transport.close()
            if len(self.connections) - len(waiting) > MAX_CONNECTIONS:  # every other one is busy: refuse this
                transport.close()

    def _waiting(self) -> bool:
        """No request in progress: waiting for (the rest of) a request's headers, or idle after a response."""
        return self.cycle is None or self.cycle.response_complete

    def _arm(self) -> None:
        self._disarm()
        self._waiting_since = self.loop.time()
        self._deadline = self.loop.call_later(HEADER_TIMEOUT_S, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self._waiting() and not self.transport.is_closing():
            self.transport.close()

    def handle_events(self) -> None:
        """Parse what arrived; once a request's headers are complete, disarm the deadline."""
        super().handle_events()
        if not self._waiting():  # a request's headers are complete: its handling has no deadline here
            self._disarm()

    def on_response_complete(self) -> None:
        """A response was sent: arm the deadline again for the next request."""
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        """Disarm the deadline and let uvicorn clean up the connection."""
        self._disarm()
        super().connection_lost(exc)


class InFlightLimit:
    """At most :data:`MAX_IN_FLIGHT` HTTP requests handled at once; the next ones answer 503 at once."""

    def __init__(self, app: Any, limit: int = MAX_IN_FLIGHT) -> None:
        self.app = app
        self.limit = limit
        self.busy = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.busy >= self.limit:
            from starlette.responses import PlainTextResponse

            await PlainTextResponse("busy: too many requests at once; try again", status_code=503,
                                    headers={"Retry-After": "1"})(scope, receive, send)
            return
        self.busy += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.busy -= 1


def allowed_hosts(host: str, port: int, environ: Mapping[str, str] | None = None) -> list[str]:
    """The ``Host`` names a request may carry (without port): the bind address, loopback names when bound to
    loopback, the machine's names when bound to every address, and ``GPUHUB_WEB_HOSTS`` (comma-separated, e.g.
    the name a proxy forwards; ``*`` allows any)."""
    env = os.environ if environ is None else environ
    names = {host.strip("[]").lower()}
    if host in ("127.0.0.1", "::1", "localhost"):
        names |= {"127.0.0.1", "::1", "[::1]", "localhost"}
    if host in ("0.0.0.0", "::", ""):
        names |= {"127.0.0.1", "::1", "[::1]", "localhost", socket.gethostname().lower()}
    if host.count(":") > 1:
        names.add(f"[{host.strip('[]').lower()}]")
    names |= {n.strip().lower() for n in env.get("GPUHUB_WEB_HOSTS", "").split(",") if n.strip()}
    return sorted(names)


def uvicorn_settings() -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.run`` besides the app, host and port."""
    return {"http": GuardedH11, "log_level": "warning", "timeout_keep_alive": KEEP_ALIVE_S,
            "limit_concurrency": MAX_CONNECTIONS + MAX_IN_FLIGHT + 16, "backlog": 256,
            "h11_max_incomplete_event_size": MAX_HEADER_BYTES}


def guarded_app(app: Any, host: str, port: int, environ: Mapping[str, str] | None = None) -> Any:
    """``app`` behind the ``Host`` check (400 for any other name) and the in-flight request limit."""
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    return InFlightLimit(TrustedHostMiddleware(app, allowed_hosts=allowed_hosts(host, port, environ)))


def worker_count(environ: Mapping[str, str] | None = None) -> int:
    """How many server processes :func:`run` starts: ``GPUHUB_WEB_WORKERS`` (a whole number, at least 1), else the
    CPU count up to :data:`MAX_WORKERS`; 1 where processes cannot be forked (Windows)."""
    env = os.environ if environ is None else environ
    if not hasattr(os, "fork"):
        return 1
    raw = env.get("GPUHUB_WEB_WORKERS", "").strip()
    if raw:
        try:
            return max(1, int(raw))
        except ValueError:
            log.warning("GPUHUB_WEB_WORKERS=%r is not a whole number; using the CPU count", raw)
    return max(1, min(os.cpu_count() or 1, MAX_WORKERS))


def run(make_app: Callable[[], Any], host: str, port: int, workers: int = 1) -> None:
    """Serve ``make_app()`` on ``host``:``port`` until interrupted: in this process when ``workers`` is 1, else in
    ``workers`` forked processes on that port (each calls ``make_app`` itself, after the fork)."""
    import uvicorn

    if workers <= 1 or not hasattr(os, "fork"):
        uvicorn.run(make_app(), host=host, port=port, **uvicorn_settings())
        return
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # Linux spreads connections evenly over the sockets of a SO_REUSEPORT group: each worker listens on its own.
    # One shared socket (elsewhere) lets whichever process wakes first accept every waiting connection.
    own_sockets = sys.platform == "linux" and hasattr(socket, "SO_REUSEPORT")
    listener = None if own_sockets else _listen(host, port, family, reuse_port=False)
    parent = os.getpid()
    children: list[int] = []
    try:
        for _ in range(workers):
            pid = os.fork()
            if pid == 0:  # pragma: no cover - measured from outside (tests/test_web_workers.py)
                code = 1
                try:
                    mine = listener or _listen(host, port, family, reuse_port=True)
                    _serve_worker(make_app, mine, host, port, parent)
                    code = 0
                except BaseException:
                    log.exception("a web worker failed")
                finally:
                    os._exit(code)
            children.append(pid)
        if listener is not None:
            listener.close()
        _wait(children)
    finally:
        if listener is not None:
            listener.close()
        _stop(children)


def _listen(host: str, port: int, family: socket.AddressFamily, *, reuse_port: bool) -> socket.socket:
    """A listening TCP socket. Made with protocol ``IPPROTO_TCP`` (not 0, as ``socket.create_server`` makes it):
    asyncio sets ``TCP_NODELAY`` only on connections of such a socket, and without it every response waited
    40 ms for the client's delayed acknowledgement (the headers and the body are two writes)."""
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        sock.listen(256)
    except BaseException:
        sock.close()
        raise
    return sock


def _serve_worker(make_app: Callable[[], Any], listener: socket.socket, host: str, port: int, parent: int) -> None:
    """One worker: uvicorn on its listening socket, stopping when the parent is gone."""
    import uvicorn

    class Worker(uvicorn.Server):
        async def on_tick(self, counter: int) -> bool:
            if os.getppid() != parent:  # the parent died: nobody would stop this process
                self.should_exit = True
            return bool(await super().on_tick(counter))

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    Worker(uvicorn.Config(make_app(), host=host, port=port, **uvicorn_settings())).run(sockets=[listener])


def _wait(children: list[int]) -> None:
    """Wait until a worker ends (or SIGTERM/SIGINT arrives), then stop the rest."""
    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        with contextlib.suppress(KeyboardInterrupt, ChildProcessError):
            pid, _ = os.wait()
            children.remove(pid)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stop(children: list[int]) -> None:
    """SIGTERM to every worker still running (uvicorn finishes the requests in progress), then reap them."""
    for pid in children:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    for pid in children:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    children.clear()
