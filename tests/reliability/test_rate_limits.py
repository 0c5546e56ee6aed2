"""Rate limits across processes (issue 12): a server's ``Retry-After`` beyond the retry budget is kept in the offer
store, so the next ``gpuhub search`` (a fresh process, e.g. a cron job a minute later) does not ask that provider
before the server's time, ``--refresh`` or not: it serves the last good snapshot, stale, saying until when.

Through the public CLI, each search a separate process, against the loopback fault server replaying Lambda's
bundled recording (live mode, a fake API key), with the store in a temporary directory.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from distplugins import cli_env, run_cli, statuses
from faultserver import Fault, FaultServer
from harness import case_or_skip, live_env, serving

from gpuhub import Registry
from gpuhub.store import open_store
from gpuhub.store.ratelimit import remember_rate_limit, stored_rate_limit

WAIT_S = "86400"
"""The server's ``Retry-After``: a day, far beyond the CLI's retry budget (20 s per wait)."""
PRICE = ("gpu_1x_h100_sxm5", 3.29)
"""An offer of Lambda's bundled recording: 329 cents per hour."""
ISO = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00"


def _env(registry: Registry, server: FaultServer, tmp_path: Path) -> dict[str, str]:
    case = case_or_skip(registry, "lambda")
    # Stored live data is never "fresh" here, so every search would ask the server (as a search an hour later).
    return cli_env(None, tmp_path / "cache", GPUHUB_STORE=str(tmp_path / "store"), GPUHUB_FRESH_ON_DEMAND_S="0",
                   GPUHUB_FRESH_SPOT_S="0", **live_env(registry, case, server))


def _search(env: dict[str, str], *extra: str) -> tuple[list[dict[str, object]], str, str]:
    done, _ = run_cli(["search", "-v", "--provider", "lambda", "--fetch", "live", "--format", "json", "--all-regions",
                       "--limit", "1000", *extra], env)
    offers = json.loads(done.stdout) if done.stdout.strip() else []
    return offers, statuses(done.stderr).get("lambda", ""), done.stderr


def _has_price(offers: list[dict[str, object]]) -> bool:
    return any(o["instance_type"] == PRICE[0] and o["price_per_hour"] == PRICE[1] for o in offers)


def test_retry_after_is_kept_across_processes_and_the_last_good_offers_are_served(
        rel_registry: Registry, tmp_path: Path) -> None:
    case = case_or_skip(rel_registry, "lambda")
    with serving(rel_registry, case) as server:
        env = _env(rel_registry, server, tmp_path)
        offers, line, err = _search(env)  # 1: a good live fetch, stored
        assert line.startswith("lambda: ok"), err
        assert _has_price(offers), offers[:3]
        server.inject(Fault.http_status(429, WAIT_S), match=case.fault_match)
        asked = server.count()

        offers, line, err = _search(env, "--refresh")  # 2: the server answers 429, Retry-After a day
        assert server.count() == asked + 1, "asked more than once after a Retry-After beyond the budget"
        assert line.startswith("lambda: stale"), err
        assert "rate limited (HTTP 429)" in line and f"wait {WAIT_S} s" in line, line
        when = re.search(rf"retry after ({ISO})", line)
        assert when, line
        assert _has_price(offers), "the last good offers must be served while rate limited"

        for extra in ((), ("--refresh",)):  # 3, 4: later processes do not ask before the server's time
            asked = server.count()
            offers, line, err = _search(env, *extra)
            assert server.count() == asked, f"asked lambda again before {when.group(1)}: {line}"
            assert line.startswith("lambda: stale"), err
            assert f"rate limited until {when.group(1)}" in line, line
            assert ("--refresh does not override the server's request" in line) == bool(extra), line
            assert _has_price(offers), offers[:3]


def test_retry_after_with_nothing_stored_says_there_is_no_data(rel_registry: Registry, tmp_path: Path) -> None:
    case = case_or_skip(rel_registry, "lambda")
    with serving(rel_registry, case) as server:
        server.inject(Fault.http_status(429, WAIT_S), match=case.fault_match)
        env = _env(rel_registry, server, tmp_path)
        offers, line, err = _search(env)
        assert server.count() == 1 and offers == [], err
        assert line.startswith("lambda: failed") and "rate limited (HTTP 429)" in line, err
        when = re.search(rf"retry after ({ISO})", line)
        assert when, line
        offers, line, err = _search(env)
        assert server.count() == 1, f"asked lambda again before {when.group(1)}"
        assert offers == [] and line.startswith("lambda: failed"), err
        assert f"rate limited until {when.group(1)}" in line, line
        assert "no earlier data of lambda is stored, so there is none to show" in line, line


@pytest.mark.parametrize("after", ["0", "past"])
def test_a_retry_time_that_has_passed_does_not_hold_the_provider_back(after: str, rel_registry: Registry,
                                                                      tmp_path: Path) -> None:
    """A rate limit is kept only until the server's time: once it has passed the provider is asked again."""
    case = case_or_skip(rel_registry, "lambda")
    with serving(rel_registry, case) as server:
        env = _env(rel_registry, server, tmp_path)
        store = open_store(env["GPUHUB_STORE"])
        assert store is not None
        now = dt.datetime.now(dt.timezone.utc)
        endpoint = env["GPUHUB_LAMBDA_BASE_URL"].rstrip("/")
        until = now if after == "0" else now - dt.timedelta(hours=1)
        remember_rate_limit(store, "lambda", endpoint, until, "rate limited (HTTP 429)")
        assert stored_rate_limit(store, "lambda", endpoint) is None
        remember_rate_limit(store, "lambda", endpoint, now + dt.timedelta(hours=1), "rate limited (HTTP 429)")
        assert stored_rate_limit(store, "lambda", endpoint) is not None
        remember_rate_limit(store, "lambda", endpoint, until, "rate limited (HTTP 429)")  # the server's latest word
        store.close()
        offers, line, err = _search(env)
        assert server.count() >= 1 and line.startswith("lambda: ok"), err
        assert _has_price(offers)
