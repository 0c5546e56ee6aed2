"""Concurrency (known fault C24's kind): many threads searching at once share one fetch per provider, get the same
answer, and are not held up by a provider that hangs (the fault server stalls it)."""

from __future__ import annotations

import threading
import time

from faultserver import Fault
from harness import LoopbackOnly, case_or_skip, live_engine, live_env, offer_keys, serving
from provider_cases import BY_NAME

import gpuhub
from gpuhub import Registry, SearchResult

THREADS = 16
SEARCH_TIMEOUT_S = 1.0
HANG_S = 4.0
REQUEST_TIMEOUT_S = 2.0


def _run_threads(n: int, fn: object) -> tuple[list[SearchResult], list[float], list[BaseException]]:
    barrier = threading.Barrier(n)
    results: list[SearchResult] = []
    took: list[float] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker() -> None:
        barrier.wait()
        started = time.monotonic()
        try:
            result = fn()  # type: ignore[operator]
        except BaseException as exc:  # collected and asserted below
            with lock:
                errors.append(exc)
            return
        with lock:
            results.append(result)
            took.append(time.monotonic() - started)

    threads = [threading.Thread(target=worker, name=f"searcher-{i}", daemon=True) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(t.is_alive() for t in threads), "a search never returned (deadlock)"
    return results, took, errors


def test_c24_threads_share_one_fetch_and_a_hanging_provider_blocks_nobody(rel_registry: Registry,
                                                                      transport: LoopbackOnly) -> None:
    lam, fake = case_or_skip(rel_registry, "lambda"), BY_NAME["fakecloud"]
    with serving(rel_registry, lam) as lam_server, serving(rel_registry, fake) as fake_server:
        env = {**live_env(rel_registry, lam, lam_server), **live_env(rel_registry, fake, fake_server)}
        # Lambda's first request hangs past the search timeout (then its fetch retries and succeeds)
        lam_server.inject(Fault.stall(HANG_S), match=lam.fault_match, times=1)
        engine = live_engine(rel_registry, env, transport, request_timeout_s=REQUEST_TIMEOUT_S)
        try:
            def both() -> SearchResult:
                return gpuhub.search(provider=["lambda", "fakecloud"], engine=engine, timeout=SEARCH_TIMEOUT_S)

            results, took, errors = _run_threads(THREADS, both)
            assert not errors, errors
            assert len(results) == THREADS
            assert max(took) < SEARCH_TIMEOUT_S + 1.5, took  # nobody waits for the hanging provider
            for result in results:
                assert result.status("lambda").state == "failed", result.status("lambda").line()
                assert "timed out after 1 s" in (result.status("lambda").reason or "")
                assert result.status("fakecloud").state == "ok"
            first = offer_keys(results[0].offers)
            assert first and all(offer_keys(r.offers) == first for r in results), "threads got different answers"
            # one fetch each, shared by every thread; the aggregators that resell Lambda run too (a provider named
            # is matched as a seller), each at most once (served from the store when an earlier test stored them)
            assert engine.fetch_count["lambda"] == 1 and engine.fetch_count["fakecloud"] == 1, engine.fetch_count
            assert all(n == 1 for n in engine.fetch_count.values()), engine.fetch_count
            assert fake_server.count() == 2 and lam_server.count() == 1  # one walk each, shared by all threads

            # while Lambda's fetch is still hanging, a fakecloud-only search answers at once (C24)
            started = time.monotonic()
            quick = gpuhub.search(provider="fakecloud", engine=engine, timeout=SEARCH_TIMEOUT_S)
            assert time.monotonic() - started < 0.5 and quick.status("fakecloud").state == "ok"

            # the background fetch finishes (timeout, retry, success) and fills the cache for everyone
            deadline = time.monotonic() + HANG_S + 5
            while time.monotonic() < deadline:
                later = gpuhub.search(provider=["lambda", "fakecloud"], engine=engine, timeout=SEARCH_TIMEOUT_S)
                if later.status("lambda").state == "ok":
                    break
                time.sleep(0.1)
            assert later.status("lambda").state == "ok", later.status("lambda").line()
            assert engine.fetch_count["lambda"] == 1, engine.fetch_count
            assert lam_server.count(lam.fault_match) == 2  # the stalled request, then its retry

            # many threads again: all served from the cache, nobody fetches
            results, _, errors = _run_threads(THREADS, lambda: gpuhub.search(engine=engine, timeout=5,
                                                                             provider=["lambda", "fakecloud"]))
            assert not errors and len(results) == THREADS
            assert all(r.status("lambda").state == "ok" for r in results)
            assert len({tuple(offer_keys(r.offers)) for r in results}) == 1
            assert engine.fetch_count["lambda"] == 1 and engine.fetch_count["fakecloud"] == 1, engine.fetch_count
            assert all(n == 1 for n in engine.fetch_count.values()), engine.fetch_count  # nobody fetched again
        finally:
            engine.shutdown()


def test_refresh_storm_still_single_flight(rel_registry: Registry, transport: LoopbackOnly) -> None:
    """Threads that all ask for a refresh at the same moment still share the one fetch in flight."""
    case = BY_NAME["fakecloud"]
    with serving(rel_registry, case) as server:
        server.inject(Fault.stall(0.3), match=case.first_match, times=1)  # keep the first fetch in flight a while
        engine = live_engine(rel_registry, live_env(rel_registry, case, server), transport,
                             request_timeout_s=2.0)
        try:
            results, _, errors = _run_threads(THREADS, lambda: engine.collect(["fakecloud"], mode="live",
                                                                              refresh=True, timeout_s=5))
            assert not errors
            assert {status.state for [(_, status)] in results} == {"ok"}
            assert engine.fetch_count["fakecloud"] == 1, engine.fetch_count
            assert server.count(case.first_match) == 1
        finally:
            engine.shutdown()


def test_search_where_every_provider_failed_returns_statuses(rel_registry: Registry, transport: LoopbackOnly) -> None:
    """A search whose only provider fails must come back with its status, not raise (it raised ValueError from
    gpuhub/answer/catalog.py's empty-catalog columns, 22 built for 21 unpacked, until commit 935734b)."""
    case = BY_NAME["fakecloud"]
    with serving(rel_registry, case) as server:
        server.inject(Fault.http_status(503))
        engine = live_engine(rel_registry, live_env(rel_registry, case, server), transport)
        try:
            result = gpuhub.search(provider="fakecloud", engine=engine, timeout=5)
        finally:
            engine.shutdown()
    assert list(result) == []
    assert result.status("fakecloud").state == "failed"
    assert "HTTP 503" in (result.status("fakecloud").reason or "")
