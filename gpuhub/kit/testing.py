"""The conformance kit: a base test class every provider plugin's tests subclass, and small helpers.

Usage in a plugin's ``tests/test_conformance.py``::

    from gpuhub.kit.testing import ProviderConformance

    class TestLambdaConformance(ProviderConformance):
        provider_name = "lambda"
        empty_body = b'{"data": {}}'          # what "no offers" looks like in this API

The checks: the provider is registered through its entry point; an offline fetch through replay works; the data is
sane (positive prices, ISO currency, canonical GPU names or counted unknowns, regions present); 429 and 5xx are
retried and then reported as a provider failure; an empty payload gives an empty list with a status; a refresh
that fails (503, 429, an empty answer) after a good fetch keeps the last good data, marked stale; missing or
rejected credentials give a message that says how to configure them.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar, Literal, NamedTuple

import httpx

from gpuhub.fetch.diskcache import DiskCache
from gpuhub.fetch.plugins import Registry
from gpuhub.fetch.provider import Provider, ProviderStatus
from gpuhub.fetch.recording import load_manifest
from gpuhub.fetch.retry import RetryPolicy
from gpuhub.fetch.transports import ReplayTransport
from gpuhub.model import Offer
from gpuhub.purchase import check_currency as _check_currency
from gpuhub.service.engine import Engine
from gpuhub.store import Store

__all__ = ["FAST_RETRY", "CountingTransport", "LoopbackJson", "PluginFixtures", "ProviderConformance", "build_script",
           "make_engine", "network_facts",
           "plugin_fixtures", "reference_file", "registry_of", "replaying", "reset_state", "run_cli", "run_cli_json",
           "run_provider"]

class LoopbackJson:
    """A real HTTP server on 127.0.0.1 (an ephemeral port, a daemon thread) for a plugin's live-against-loopback
    tests: each GET is answered by ``answer(path, headers)`` -> ``(status, JSON body)``, and ``requests`` keeps
    ``(path, headers)`` of each. Use it as a context manager, or call :meth:`stop`.

    Args:
        answer: the answer to one GET (``path`` with its query string; the request's headers, case-insensitive).
    """

    def __init__(self, answer: Callable[[str, httpx.Headers], tuple[int, Any]]) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.requests: list[tuple[str, httpx.Headers]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                headers = httpx.Headers(list(self.headers.items()))
                server.requests.append((self.path, headers))
                status, body = answer(self.path, headers)
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass  # a test's output is its assertions

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        """The server's base URL, ``http://127.0.0.1:<port>``."""
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> LoopbackJson:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


FAST_RETRY = RetryPolicy(attempts=3, initial_wait_s=0, max_wait_s=0, total_s=30, jitter_s=0)
"""A retry policy without waits, for tests: 3 attempts."""


_NETWORK_FIELDS = ("network_gbps", "network_peak_gbps", "fabric", "fabric_gbps", "fabric_interfaces",
                   "storage_kind", "storage_disks")
"""Instance fields about the network and local disks (:mod:`gpuhub.answer.network`) that need a source."""


def network_facts(offer: Offer) -> dict[str, Any]:
    """The network, fabric and local-disk facts an offer's instance gives (issue 28), by field name:
    ``network_gbps`` and ``network_peak_gbps`` (Gbps), ``fabric``, ``fabric_gbps`` (Gbps), ``fabric_interfaces``,
    ``storage_gib`` (GiB), ``storage_kind``, ``storage_disks`` and ``network_source``, each only where it is not
    None; empty for a provider that publishes none (a plugin test asserts that of every offer)."""
    inst = offer.instance
    names = (*_NETWORK_FIELDS, "storage_gib", "network_source")
    return {n: getattr(inst, n) for n in names if getattr(inst, n) is not None}


class CountingTransport(httpx.BaseTransport):
    """An httpx transport that answers with ``handler(request, n)`` (n = 1-based request number) and counts calls."""

    def __init__(self, handler: Callable[[httpx.Request, int], httpx.Response]) -> None:
        self.handler = handler
        self.calls = 0
        self.requests: list[httpx.Request] = []
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Count the request, then answer it with the handler (given the request and its 1-based number)."""
        with self._lock:
            self.calls += 1
            n = self.calls
            self.requests.append(request)
        request.read()
        return self.handler(request, n)


def make_engine(registry: Registry | None = None, *, transport: httpx.BaseTransport | None = None,
                environ: Mapping[str, str] | None = None, retry: RetryPolicy = FAST_RETRY,
                timeout_s: float = 60.0, disk: DiskCache | None = None, store: Store | None = None) -> Engine:
    """An engine for tests: no waits between retries, an empty environment unless given, its own in-memory
    cache, and no offer store unless ``store`` (every fetch) or ``disk`` (a store directory for replays only) is
    given."""
    if store is not None:
        return Engine(registry or Registry(), transport=transport, environ=dict(environ or {}), retry=retry,
                      timeout_s=timeout_s, store=store)
    return Engine(registry or Registry(), transport=transport, environ=dict(environ or {}), retry=retry,
                  timeout_s=timeout_s, disk=disk or DiskCache(None))


def registry_of(*providers: Provider) -> Registry:
    """A registry of the built-ins and exactly ``providers`` (one plugin registering them; installed plugins are
    left out)."""
    from gpuhub.fetch.hookspecs import hookimpl

    class Plugin:
        @hookimpl
        def register_providers(self, register: Callable[[Provider], None]) -> None:
            for p in providers:
                register(p)

    return Registry(entry_points=[], extra_plugins=[("scripted", Plugin())])


def run_provider(engine: Engine, name: str, **kwargs: Any) -> tuple[tuple[Offer, ...], ProviderStatus]:
    """Collect one provider through ``engine`` (keyword arguments go to :meth:`Engine.collect`); the offers as a
    tuple of :class:`Offer` objects (built from the stored columns when they came from the store)."""
    [(offers, status)] = engine.collect([name], **kwargs)
    return tuple(offers), status


def reset_state() -> None:
    """Forget the process-wide plugin registry and default engine, so the next search loads the plugins and opens
    the store (``GPUHUB_STORE``, ...) again from the current environment; for tests that change settings."""
    from gpuhub.fetch.plugins import reset_registry
    from gpuhub.service.searching import reset_default_engine

    reset_registry()
    reset_default_engine()


def run_cli(args: list[str], env: Mapping[str, str] | None = None) -> Any:
    """Run ``gpuhub ARGS...`` in this process (typer's ``CliRunner``) and return its result: ``exit_code``,
    ``stdout``, ``stderr``, ``output``. ``env`` adds environment variables for the run. Call :func:`reset_state`
    first when the environment changed since the last search in this process."""
    from typer.testing import CliRunner

    from gpuhub.cli.commands import app

    return CliRunner().invoke(app, args, env=dict(env) if env else None)


def run_cli_json(*args: str, env: Mapping[str, str] | None = None) -> Any:
    """``gpuhub ARGS... --format json`` (give ``--format json`` in ``args``) in this process with a fresh plugin
    registry and no offer store (``GPUHUB_STORE=off`` unless ``env`` says otherwise), asserting exit code 0;
    returns the decoded JSON. For a plugin's test that every installed plugin is loaded and it answers."""
    reset_state()
    try:
        result = run_cli(list(args), env={"GPUHUB_STORE": "off", **(env or {})})
    finally:
        reset_state()
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


class ProviderConformance:
    """Subclass as ``TestXxxConformance`` and set :attr:`provider_name`; pytest then runs every check.

    Attributes:
        provider_name: the provider's registered name.
        registry_plugins: extra ``(name, plugin)`` pairs to register (for providers not installed as
            distributions, like the core's fake provider); default: installed entry points only.
        min_offers: the least number of offers the bundled recording must give.
        empty_body: the response body that means "no offers" in this API (served with status 200).
        live_environ: environment for live-mode checks (fake credentials); default: every variable of the
            provider's first credential set to a dummy value.
    """

    provider_name: ClassVar[str] = ""
    registry_plugins: ClassVar[tuple[tuple[str, object], ...]] = ()
    min_offers: ClassVar[int] = 1
    empty_body: ClassVar[bytes] = b"{}"
    empty_content_type: ClassVar[str] = "application/json"
    live_environ: ClassVar[dict[str, str] | None] = None
    credentials_optional: ClassVar[bool] = False
    """True when the API works without credentials (public price lists): a live fetch without them must succeed
    with a warning naming the variables, and rejected credentials must still fail naming them."""

    # --- helpers ------------------------------------------------------------------------------------------
    def registry(self) -> Registry:
        """A fresh registry with ``registry_plugins`` loaded (built-in plugins included)."""
        return Registry(extra_plugins=self.registry_plugins)

    def provider(self) -> Provider:
        """The provider under test, from a fresh registry."""
        return self.registry().providers[self.provider_name]

    def _live_env(self, provider: Provider) -> dict[str, str]:
        if self.live_environ is not None:
            return dict(self.live_environ)
        if not provider.credentials:
            return {}
        return {name: "gpuhub-conformance-dummy" for name in provider.credentials[0].env}

    def replay(self) -> tuple[tuple[Offer, ...], ProviderStatus]:
        """The bundled recording, replayed through a fresh engine."""
        return run_provider(make_engine(self.registry()), self.provider_name, mode="replay")

    # --- checks -------------------------------------------------------------------------------------------
    def test_registered(self) -> None:
        """The plugin loads and registers ``provider_name`` with a known provider kind."""
        registry = self.registry()
        assert self.provider_name in registry.providers, [r.to_dict() for r in registry.reports]
        plugin = registry.provider_plugin[self.provider_name]
        report = next(r for r in registry.reports if r.name == plugin)
        assert report.status == "loaded", report.to_dict()
        provider = registry.providers[self.provider_name]
        assert provider.name == self.provider_name and provider.kind in ("hyperscaler", "specialist", "internal",
                                                                         "other")

    def test_replay_fetch(self) -> None:
        """The bundled recording replays ``ok`` with at least ``min_offers`` offers, all from the recording."""
        offers, status = self.replay()
        assert status.state == "ok", status.line()
        assert status.source and status.mode in ("replay", "static"), status.to_dict()
        assert len(offers) >= self.min_offers, status.line()
        assert all(o.source.mode in ("replay", "static") for o in offers)

    def test_data_sanity(self) -> None:
        """Every replayed offer: positive finite price, ISO currency, region, known or counted GPU, consistent
        fractions, network facts with a source, no duplicate offer keys."""
        offers, status = self.replay()
        registry = self.registry()
        unknown = set(status.unknown_gpus)
        for offer in offers:
            assert offer.provider == self.provider_name
            assert offer.price.amount > 0 and offer.price.amount.is_finite()
            assert _check_currency(offer.price.currency) == offer.price.currency
            assert offer.region.code, offer
            gpu = offer.instance.gpu
            if gpu is not None:
                if gpu.known:
                    assert gpu.name in registry.gpus.names(), gpu
                else:
                    assert (gpu.raw_name or gpu.name) in unknown, f"unknown GPU {gpu} not counted in the status"
                assert offer.instance.gpu_count > 0, offer
                assert offer.instance.fractional == (offer.instance.gpu_count < 1)
                per_gpu = offer.price_per_gpu_hour
                assert per_gpu is not None and per_gpu * type(per_gpu)(str(offer.instance.gpu_count)) > 0
        for offer in offers:  # network and local-disk facts carry their source, and a fabric its kind only
            inst = offer.instance
            given = [n for n in _NETWORK_FIELDS if getattr(inst, n) is not None]
            if given:
                assert inst.network_source, f"{inst.instance_type}: {', '.join(given)} without network_source"
            if inst.storage_disks is not None or inst.storage_kind is not None:
                assert inst.storage_gib, f"{inst.instance_type}: local disks described without storage_gib (GiB)"
            if inst.fabric_gbps is not None or inst.fabric_interfaces is not None:
                assert inst.fabric, f"{inst.instance_type}: a fabric's rate or interfaces without its kind (fabric)"
            if inst.network_peak_gbps is not None and inst.network_gbps is not None:
                assert inst.network_peak_gbps >= inst.network_gbps, \
                    f"{inst.instance_type}: peak network_peak_gbps below the baseline network_gbps (Gbps)"
        keys = [(o.instance_type, o.region.code, o.region.zone, o.price.purchase, o.price.term_hours,
                 o.price.payment_option, _window_start(o)) for o in offers]
        assert len(keys) == len(set(keys)), "duplicate offers for one (type, region, zone, purchase, term, window)"

    def _live(self, handler: Callable[[httpx.Request, int], httpx.Response],
              environ: dict[str, str] | None = None) -> tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]:
        provider = self.provider()
        transport = CountingTransport(handler)
        engine = make_engine(self.registry(), transport=transport,
                             environ=self._live_env(provider) if environ is None else environ)
        offers, status = run_provider(engine, self.provider_name, mode="live")
        return offers, status, transport

    def _bundled_replay(self) -> ReplayTransport:
        fixtures = self.provider().fixtures_dir()
        assert fixtures is not None, "a provider with a live API must bundle a recording"
        return ReplayTransport(load_manifest(fixtures))

    def _is_static(self) -> bool:
        return self.provider().static

    def test_5xx_retried_then_failure(self) -> None:
        """A 503 on every request: retried the policy's attempts, then ``failed`` naming 503, no offers."""
        if self._is_static():
            return  # no network: nothing to retry
        offers, status, transport = self._live(lambda req, n: httpx.Response(503, text="unavailable"))
        assert status.state == "failed", status.line()
        assert "503" in (status.reason or ""), status.line()
        assert transport.calls == FAST_RETRY.attempts, f"{transport.calls} requests for one failing call"
        assert offers == ()

    def test_429_then_success(self) -> None:
        """A 429 then a good answer: retried and ``ok``."""
        if self._is_static():
            return
        replay = self._bundled_replay()

        def handler(request: httpx.Request, n: int) -> httpx.Response:
            if n == 1:
                return httpx.Response(429, headers={"Retry-After": "0"}, text="slow down")
            return replay.handle_request(request)

        offers, status, transport = self._live(handler)
        replayed, _ = self.replay()
        assert status.state == "ok", status.line()
        assert len(offers) == len(replayed)
        assert transport.calls >= 2

    def test_live_against_the_recording_equals_replay(self) -> None:
        """The provider's live code path, served its own bundled recording through the HTTP seam, gives exactly
        the offers replay gives (same types, regions, purchase models and prices, in the same order)."""
        if self._is_static():
            return
        replay = self._bundled_replay()
        live, status, _ = self._live(lambda request, n: replay.handle_request(request))
        assert status.state == "ok" and status.mode == "live", status.line()
        replayed, _ = self.replay()

        def key(offers: tuple[Offer, ...]) -> list[tuple[object, ...]]:
            return [(o.instance_type, o.region.code, o.region.zone, o.price.purchase, o.price.amount)
                    for o in offers]

        assert key(live) == key(replayed)

    def test_failed_refresh_keeps_last_good_data(self) -> None:
        """A live fetch that worked, then a refresh answered with 503, 429 or an empty body (after the token
        exchange, if any): the search shows the last good offers marked stale, never nothing."""
        if self._is_static():
            return
        replay = self._bundled_replay()
        failures = (httpx.Response(503, text="unavailable"),
                    httpx.Response(429, headers={"Retry-After": "0"}, text="slow down"),
                    httpx.Response(200, content=self.empty_body, headers={"content-type": self.empty_content_type}))
        for failure in failures:
            state = {"fail": False}

            def handler(request: httpx.Request, n: int, failure: httpx.Response = failure,
                        state: dict[str, bool] = state) -> httpx.Response:
                # every request but a token exchange fails (APIs asked by POST too: GraphQL, search bodies)
                if state["fail"] and not (request.method == "POST" and "token" in request.url.path.lower()):
                    return httpx.Response(failure.status_code, headers=failure.headers, content=failure.content)
                return replay.handle_request(request)

            engine = make_engine(self.registry(), transport=CountingTransport(handler),
                                 environ=self._live_env(self.provider()))
            good, first = run_provider(engine, self.provider_name, mode="live")
            assert first.state == "ok" and good, first.line()
            state["fail"] = True
            offers, status = run_provider(engine, self.provider_name, mode="live", refresh=True)
            assert status.state == "stale" and len(offers) == len(good), (failure.status_code, status.line())

    def test_empty_payload(self) -> None:
        """An empty answer: no offers, and ``ok`` with a 'no offers' warning or ``failed`` with a reason."""
        if self._is_static():
            return
        offers, status, _ = self._live(lambda req, n: httpx.Response(
            200, content=self.empty_body, headers={"content-type": self.empty_content_type}))
        assert offers == ()
        assert status.state in ("ok", "failed"), status.line()
        if status.state == "ok":
            assert any("no offers" in w for w in status.warnings), status.to_dict()
        else:
            assert status.reason, status.to_dict()

    def test_credentials_missing_or_rejected(self) -> None:
        """No credentials: a warning naming the variables; rejected ones: a failure naming them."""
        provider = self.provider()
        if self._is_static() or not provider.credentials:
            return
        variables = [name for cred in provider.credentials for name in cred.env]
        if self.credentials_optional:
            replay = ReplayTransport(load_manifest(bundled_fixtures(provider)))
            _, public, _ = self._live(lambda req, n: replay.handle_request(req), environ={})
            assert public.state == "ok", public.line()
            assert any(v in w for w in public.warnings for v in variables), public.to_dict()
        else:
            _, missing, _ = self._live(lambda req, n: httpx.Response(200, json={}), environ={})
            assert missing.state == "failed", missing.line()
            assert any(v in (missing.reason or "") for v in variables), missing.line()
        _, rejected, _ = self._live(lambda req, n: httpx.Response(401, json={"error": "invalid credentials"}))
        assert rejected.state == "failed", rejected.line()
        assert any(v in (rejected.reason or "") for v in variables), rejected.line()


def _window_start(offer: Offer) -> object:
    """A reservation window's start (a capacity block at each start time is its own offer), else None."""
    reservation = offer.obtain.reservation if offer.obtain is not None else None
    return reservation.start if reservation is not None else None


def bundled_fixtures(provider: Provider) -> Path:
    """The provider's bundled recording directory; raises AssertionError when it has none."""
    path = provider.fixtures_dir()
    assert path is not None and (path / "manifest.json").is_file(), f"{provider.name} bundles no recording"
    return path


# --- the shared fixtures of a plugin's tests/conftest.py -----------------------------------------------------------
Served = tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]
"""What the ``serve`` and ``live`` fixtures return: the offers, the provider's status and the transport (calls)."""


def _reference_dir(conftest: str) -> Path:
    """``../shared/reference`` beside the repository that holds ``plugins/<plugin>/tests/conftest.py``."""
    return Path(conftest).resolve().parents[3].parent / "shared" / "reference"


def _reference_path(conftest: str, parts: tuple[str, ...]) -> Path:
    import pytest

    path = _reference_dir(conftest).joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared is not available)")
    return path


class PluginFixtures(NamedTuple):
    """The pytest fixtures of one plugin's tests, made by :func:`plugin_fixtures`; a ``conftest.py`` binds them to
    module names (pytest finds a fixture by the name it is bound to)."""

    registry: Any
    """Session: a :class:`Registry` of the built-in GPU table and this plugin only (installed plugins left out)."""
    replayed: Any
    """Session: ``(offers, status)`` of the bundled recording, collected once."""
    serve: Any
    """``serve(body, status=200, environ=None)``: a live run in which every request is answered with ``body``
    (JSON-encoded unless bytes) and HTTP ``status``; returns ``(offers, status, transport)``."""
    live: Any
    """``live(handler, environ=None)``: a live run in which request n is answered by ``handler(request, n)``;
    returns ``(offers, status, transport)``."""
    reference: Any
    """``reference(*parts)``: the file ``../shared/reference/<parts...>``, or a skip when ``../shared`` is absent."""


def plugin_fixtures(name: str, plugin: object, conftest: str, *, credentials: Mapping[str, str] | None = None,
                    replay_mode: str = "replay") -> PluginFixtures:
    """The fixtures every provider plugin's tests share, for its ``tests/conftest.py``::

        registry, replayed, serve, live, reference = plugin_fixtures(
            "hyperbolic", gpuhub_hyperbolic.plugin, __file__, credentials={"HYPERBOLIC_API_KEY": "test-key"})

    ``name`` is the provider's name, ``plugin`` the module or object holding its hook implementations,
    ``conftest`` the conftest's ``__file__`` (``../shared/reference`` is found beside the repository from it),
    ``credentials`` the environment a live run gets when the test gives none (default: empty), ``replay_mode``
    the mode ``replayed`` collects in (``"replay"``, or ``"auto"`` for a plugin whose data is a bundled table).
    Imports pytest when called."""
    import pytest

    default_environ = dict(credentials or {})

    @pytest.fixture(scope="session")
    def registry() -> Registry:
        return Registry(entry_points=[], extra_plugins=[(name, plugin)], environ={})

    @pytest.fixture(scope="session")
    def replayed(registry: Registry) -> tuple[tuple[Offer, ...], ProviderStatus]:
        return run_provider(make_engine(registry), name, mode=replay_mode)

    def _run(registry: Registry, transport: CountingTransport, environ: Mapping[str, str] | None) -> Served:
        engine = make_engine(registry, transport=transport,
                             environ=default_environ if environ is None else environ)
        offers, status = run_provider(engine, name, mode="live")
        return offers, status, transport

    @pytest.fixture
    def serve(registry: Registry) -> Callable[..., Served]:
        def run(body: Any, status: int = 200, environ: Mapping[str, str] | None = None) -> Served:
            content = body if isinstance(body, bytes) else json.dumps(body).encode()
            transport = CountingTransport(lambda request, n: httpx.Response(
                status, content=content, headers={"content-type": "application/json"}))
            return _run(registry, transport, environ)

        return run

    @pytest.fixture
    def live(registry: Registry) -> Callable[..., Served]:
        def run(handler: Callable[[httpx.Request, int], httpx.Response],
                environ: Mapping[str, str] | None = None) -> Served:
            return _run(registry, CountingTransport(handler), environ)

        return run

    @pytest.fixture
    def reference() -> Callable[..., Path]:
        def find(*parts: str) -> Path:
            return _reference_path(conftest, parts)

        return find

    return PluginFixtures(registry, replayed, serve, live, reference)


def reference_file(conftest: str, *parts: str,
                   scope: Literal["session", "module", "function"] = "function") -> Any:
    """A pytest fixture giving the file ``../shared/reference/<parts...>`` (found from the conftest's ``__file__``),
    or a skip when ``../shared`` is absent; for a ``conftest.py``: ``catalog = reference_file(__file__,
    "skypilot-catalog", "vast", "vms.csv")``. Imports pytest when called."""
    import pytest

    @pytest.fixture(scope=scope)
    def fixture() -> Path:
        return _reference_path(conftest, parts)

    return fixture


def replaying(recording: Provider | Path) -> Callable[[httpx.Request, int], httpx.Response]:
    """A :class:`CountingTransport` handler that answers every request from a recording: ``recording`` is a
    provider (its bundled recording) or a recording directory (with ``manifest.json``). For a test that a live run
    over the recorded answers gives what replay gives: ``live(replaying(MyProvider()))``. A request the recording
    lacks raises :class:`ReplayMissError`."""
    directory = recording if isinstance(recording, Path) else bundled_fixtures(recording)
    replay = ReplayTransport(load_manifest(directory))

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        return replay.handle_request(request)

    return handler


def build_script(plugin_dir: Path) -> ModuleType:
    """The plugin's ``scripts/build_recording.py`` (below ``plugin_dir``, the plugin's folder in the repository)
    loaded as a module, for a test that it rebuilds the bundled recording; raises FileNotFoundError when absent."""
    path = plugin_dir / "scripts" / "build_recording.py"
    spec = importlib.util.spec_from_file_location(f"{plugin_dir.name.replace('-', '_')}_build_recording", path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
