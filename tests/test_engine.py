from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from decimal import Decimal

import fakecloud
import httpx
import pytest

import gpuhub
from gpuhub import Engine, Instance, Offer, Price, Provider, ProviderContext, ProviderError
from gpuhub.kit.testing import CountingTransport, make_engine, registry_of, run_provider


class Scripted(Provider):
    """A provider whose fetch is a function the test sets (to sleep, fail, count...)."""

    kind = "internal"

    def __init__(self, name: str, behaviour: Callable[[ProviderContext], list[Offer]]) -> None:
        self.name = name  # type: ignore[misc]
        self.behaviour = behaviour
        self.calls = 0

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        self.calls += 1
        yield from self.behaviour(ctx)


def _offers(provider: str, ctx: ProviderContext, price: str = "1.50", n: int = 1) -> list[Offer]:
    inst = Instance(provider=provider, instance_type="x1", gpu=ctx.gpu("H100"), gpu_count=1)
    return [Offer(instance=inst, region=ctx.region(f"r{i}"), source=ctx.source,
                  price=Price(amount=Decimal(price), currency="USD", purchase="on_demand")) for i in range(n)]


_registry = registry_of


def test_fan_out_is_concurrent() -> None:
    # Each fetch waits for the other two at a barrier: it passes only when all three run at once (serial would
    # break the barrier after its timeout and fail the three providers).
    barrier = threading.Barrier(3, timeout=20)

    def together(name: str) -> Callable[[ProviderContext], list[Offer]]:
        return lambda ctx: (barrier.wait(), _offers(name, ctx))[1]

    engine = make_engine(_registry(Scripted("a", together("a")), Scripted("b", together("b")),
                                   Scripted("c", together("c"))))
    results = engine.collect(["a", "b", "c"], mode="live", timeout_s=30)
    assert [s.state for _, s in results] == ["ok", "ok", "ok"], [s.line() for _, s in results]


def test_hanging_provider_times_out_and_others_return() -> None:
    release = threading.Event()
    hang = Scripted("hang", lambda ctx: (release.wait(60), _offers("hang", ctx))[1])
    fast = Scripted("fast", lambda ctx: _offers("fast", ctx))
    engine = make_engine(_registry(hang, fast))
    started = time.monotonic()
    results = dict((s.provider, (o, s)) for o, s in engine.collect(["hang", "fast"], mode="live", timeout_s=3))
    assert time.monotonic() - started < 30  # bounded by the timeout, not by the hanging fetch (60 s)
    assert results["fast"][1].state == "ok" and len(results["fast"][0]) == 1
    assert results["hang"][1].state == "failed" and "timed out after 3 s" in (results["hang"][1].reason or "")
    release.set()


def test_c24_single_flight_and_slow_loader_does_not_delay_others() -> None:
    def loader(ctx: ProviderContext) -> list[Offer]:
        time.sleep(2)
        return _offers("catalog", ctx, n=3)

    catalog = Scripted("catalog", loader)
    online = Scripted("online", lambda ctx: (time.sleep(0.01), _offers("online", ctx))[1])
    engine = make_engine(_registry(catalog, online))
    engine.warm(["catalog"], mode="live")
    started = time.monotonic()
    [(offers, status)] = engine.collect(["online"], mode="live")
    # Far below the 2 s load (the case's example bound is 0.2 s; kept loose for a loaded 2-core CI machine).
    assert time.monotonic() - started < 1.0 and status.state == "ok" and len(offers) == 1
    results: list[int] = []

    def worker() -> None:
        [(o, _)] = engine.collect(["catalog"], mode="live")
        results.append(len(o))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert catalog.calls == 1 and results == [3] * 8


def test_failed_refresh_keeps_last_good_data_marked_stale() -> None:
    state = {"fail": False}

    def flaky(ctx: ProviderContext) -> list[Offer]:
        if state["fail"]:
            raise ProviderError("HTTP 503 from GET https://x/ after retries", code="503")
        return _offers("flaky", ctx, "2.49", n=2)

    engine = make_engine(_registry(Scripted("flaky", flaky)))
    offers, status = run_provider(engine, "flaky", mode="live")
    assert status.state == "ok" and len(offers) == 2
    state["fail"] = True
    offers, status = run_provider(engine, "flaky", mode="live", refresh=True)
    assert status.state == "stale" and "HTTP 503" in (status.reason or "") and "last good data" in (status.reason or "")
    assert [o.price_per_hour for o in offers] == [Decimal("2.49")] * 2


def test_empty_answer_where_data_existed_is_stale_not_empty() -> None:
    state = {"empty": False}
    provider = Scripted("shrinks", lambda ctx: [] if state["empty"] else _offers("shrinks", ctx, n=3))
    engine = make_engine(_registry(provider))
    run_provider(engine, "shrinks", mode="live")
    state["empty"] = True
    offers, status = run_provider(engine, "shrinks", mode="live", refresh=True)
    assert status.state == "stale" and len(offers) == 3 and "no offers where it had 3" in (status.reason or "")


def test_provider_bug_becomes_a_failed_status() -> None:
    def buggy(ctx: ProviderContext) -> list[Offer]:
        from gpuhub.fetch.recording import remember_secret

        remember_secret("sk-live-0123456789")
        raise RuntimeError("unexpected None near token sk-live-0123456789")

    engine = make_engine(_registry(Scripted("buggy", buggy), Scripted("fine", lambda ctx: _offers("fine", ctx))))
    results = {s.provider: s for _, s in engine.collect(["buggy", "fine"], mode="live")}
    assert results["buggy"].state == "failed" and "RuntimeError: unexpected None" in (results["buggy"].reason or "")
    assert "sk-live-0123456789" not in (results["buggy"].reason or "")
    assert results["fine"].state == "ok"


def test_offers_for_another_provider_are_skipped_and_counted() -> None:
    engine = make_engine(_registry(Scripted("liar", lambda ctx: _offers("someone-else", ctx))))
    offers, status = run_provider(engine, "liar", mode="live")
    assert offers == () and status.skipped_records == 1


def test_c15_equal_queries_share_one_fetch(global_engine: Engine) -> None:
    q1 = {"gpu": ["H100", "A100"], "min_vram": 40, "provider": ["fakecloud"]}
    q2 = {"provider": ["fakecloud"], "min_vram": 40, "gpu": ["A100", "H100"]}
    r1 = gpuhub.search(**q1)  # type: ignore[arg-type]
    r2 = gpuhub.search(**q2)  # type: ignore[arg-type]
    assert global_engine.fetch_count == {"fakecloud": 1}
    assert r1.query == r2.query and hash(r1.query) == hash(r2.query)
    assert [o.instance_type for o in r1] == [o.instance_type for o in r2] == ["h100x8", "h100x8", "a100x1"]


def test_c19_walk_broken_half_way_is_a_failure_and_keeps_the_cache(engine: Engine) -> None:
    pages = {1: (fakecloud.FIXTURES / "page1.json").read_bytes()}

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        page = int(request.url.params["page"])
        return httpx.Response(200, content=pages[page]) if page in pages else httpx.Response(503)

    good, _ = run_provider(engine, "fakecloud")
    live = make_engine(engine.registry, transport=CountingTransport(handler), environ={"FAKECLOUD_TOKEN": "t"})
    offers, status = run_provider(live, "fakecloud", mode="live")
    assert status.state == "failed" and "HTTP 503" in (status.reason or "") and offers == ()
    assert len(good) == 7


def test_pagination_loop_is_detected(engine: Engine) -> None:
    body = b'{"offers": [], "next_page": 1}'
    live = make_engine(engine.registry, transport=CountingTransport(lambda r, n: httpx.Response(200, content=body)),
                       environ={"FAKECLOUD_TOKEN": "t"})
    _, status = run_provider(live, "fakecloud", mode="live")
    assert status.state == "failed" and "pagination loop" in (status.reason or "")


def test_mode_and_skip_reasons(engine: Engine) -> None:
    with pytest.raises(gpuhub.QueryError, match=r"mode.*allowed: auto, live, replay, record"):
        engine.collect(["fakecloud"], mode="sideways")  # type: ignore[arg-type]
    provider = engine.registry.providers["fakecloud"]
    assert engine.plan(provider).mode == "replay"  # type: ignore[union-attr]
    live = Engine(engine.registry, environ={"FAKECLOUD_TOKEN": "t"})
    assert live.plan(provider).mode == "live"  # type: ignore[union-attr]
    live.shutdown()


def test_empty_answer_is_reported_not_cached_and_all_skipped_is_called_out() -> None:
    def broken(ctx: ProviderContext) -> list[Offer]:
        for _ in range(3):
            ctx.skip("offer: missing field 'price'")
        return []

    provider = Scripted("renamed", broken)
    engine = make_engine(_registry(provider))
    offers, status = run_provider(engine, "renamed", mode="live")
    assert offers == () and status.state == "ok" and status.skipped_records == 3
    assert "every record was skipped (3): offer: missing field 'price' (×3); the API's answer may have changed " \
           "shape" in status.warnings
    run_provider(engine, "renamed", mode="live")
    assert provider.calls == 2  # an empty answer is never served from the cache


def test_data_its_own_fetch_stored_as_the_time_ran_out_is_served_as_it_is_not_as_stale() -> None:
    # The fetch thread stores its result an instant before it hands it over; a search whose deadline falls in
    # between finds that snapshot as "the last good data". Fetched after the search began, it is the search's own.
    import datetime as dt

    engine = make_engine(_registry(Scripted("a", lambda ctx: _offers("a", ctx, "2.25"))))
    [(offers, status)] = engine.collect(["a"], mode="live")
    assert status.state == "ok" and offers[0].price.amount == Decimal("2.25")
    plan = engine.plan(engine.registry.providers["a"], "live")
    assert not isinstance(plan, str)
    fetched_at = engine._last_good[plan.key].fetched_at
    own = engine._fallback(plan, "timed out after 1 s", own_since=fetched_at - dt.timedelta(seconds=1))
    assert own.status.state == "ok" and own.offers[0].price.amount == Decimal("2.25")
    older = engine._fallback(plan, "timed out after 1 s", own_since=fetched_at + dt.timedelta(seconds=1))
    assert older.status.state == "stale" and "showing the last good data from" in (older.status.reason or "")
