from __future__ import annotations

import datetime as dt
import time

import fakecloud
import httpx
import pytest

from gpuhub import ProviderContext, ProviderError, RetryPolicy, Source
from gpuhub.fetch.retry import RateLimitedError, parse_retry_after
from gpuhub.kit.testing import CountingTransport

NO_WAIT = RetryPolicy(attempts=3, initial_wait_s=0, max_wait_s=0, total_s=10, jitter_s=0)


def _ctx(transport: httpx.BaseTransport, policy: RetryPolicy = NO_WAIT) -> ProviderContext:
    from gpuhub.facts.gpus import GpuTable

    return ProviderContext(fakecloud.FakeCloud(), httpx.Client(transport=transport), mode="live",
                           source=Source(mode="live"), gpus=GpuTable(), environ={}, retry=policy)


def test_c17_timeouts_are_retried() -> None:
    def handler(request: httpx.Request, n: int) -> httpx.Response:
        if n == 1:
            raise httpx.ReadTimeout("read timed out", request=request)
        if n == 2:
            raise httpx.ConnectTimeout("connect timed out", request=request)
        return httpx.Response(200, json={"data": {}})

    transport = CountingTransport(handler)
    assert _ctx(transport).get_json("https://api.example/x") == {"data": {}}
    assert transport.calls == 3


def test_c17_network_and_protocol_errors_are_retried() -> None:
    errors = [httpx.ReadError("reset"), httpx.RemoteProtocolError("closed mid-body"), None]

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        exc = errors[n - 1]
        if exc is not None:
            raise exc
        return httpx.Response(200, json={"ok": True})

    transport = CountingTransport(handler)
    assert _ctx(transport).get_json("https://api.example/x") == {"ok": True}
    assert transport.calls == 3


def test_c17_client_errors_are_not_retried() -> None:
    transport = CountingTransport(lambda req, n: httpx.Response(400, json={"error": "bad filter"}))
    with pytest.raises(ProviderError, match=r"HTTP 400.*bad filter"):
        _ctx(transport).get_json("https://api.example/x")
    assert transport.calls == 1


@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 504])
def test_transient_statuses_retried_then_reported(status: int) -> None:
    transport = CountingTransport(lambda req, n: httpx.Response(status))
    with pytest.raises(ProviderError, match=f"HTTP {status}.*after retries") as info:
        _ctx(transport).get_json("https://api.example/x?key=SECRET123")
    assert transport.calls == 3
    assert "SECRET123" not in str(info.value)


def test_retry_after_seconds_and_http_date() -> None:
    now = dt.datetime(2026, 11, 30, 12, 0, 0, tzinfo=dt.timezone.utc)
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("Mon, 30 Nov 2026 12:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("Mon, 30 Nov 2026 11:00:00 GMT", now=now) == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_retry_after_is_honoured_exactly_within_the_budget() -> None:
    policy = RetryPolicy(attempts=2, initial_wait_s=0, max_wait_s=5, total_s=10, jitter_s=0)
    transport = CountingTransport(lambda request, n: httpx.Response(429, headers={"Retry-After": "0.3"}) if n == 1
                                  else httpx.Response(200, json={}))
    started = time.monotonic()
    _ctx(transport, policy).get_json("https://api.example/x")
    assert transport.calls == 2 and time.monotonic() - started >= 0.3  # never before the server's time


def test_retry_after_beyond_the_budget_stops_at_once_saying_when() -> None:
    """The audit's case: ``Retry-After: 86400`` was cut to the cap and retried early."""
    policy = RetryPolicy(attempts=4, initial_wait_s=0, max_wait_s=0.2, total_s=10, jitter_s=0)
    transport = CountingTransport(lambda request, n: httpx.Response(429, headers={"Retry-After": "86400"}))
    before = dt.datetime.now(dt.timezone.utc)
    with pytest.raises(RateLimitedError, match=r"rate limited \(HTTP 429\).*wait 86400 s.*retry after") as caught:
        _ctx(transport, policy).get_json("https://api.example/x")
    assert transport.calls == 1  # not asked again before the server's time
    expected = before + dt.timedelta(seconds=86400)
    assert abs((caught.value.retry_at - expected).total_seconds()) < 5
    assert caught.value.retry_at.isoformat()[:13] in str(caught.value)


def test_total_time_is_bounded() -> None:
    policy = RetryPolicy(attempts=100, initial_wait_s=0.05, max_wait_s=0.05, total_s=0.3, jitter_s=0)
    transport = CountingTransport(lambda req, n: httpx.Response(503))
    started = time.monotonic()
    with pytest.raises(ProviderError):
        _ctx(transport, policy).get_json("https://api.example/x")
    assert time.monotonic() - started < 1.5
    assert 2 <= transport.calls < 100


def test_html_instead_of_json_is_a_provider_error() -> None:
    transport = CountingTransport(lambda req, n: httpx.Response(200, text="<html>maintenance</html>",
                                                                headers={"content-type": "text/html"}))
    with pytest.raises(ProviderError, match=r"did not return JSON.*text/html"):
        _ctx(transport).get_json("https://api.example/x")
