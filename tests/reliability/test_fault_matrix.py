"""The fault matrix: every provider x every fault, the real provider through the Engine in live mode over loopback.

Each cell runs three searches against the provider's fault server:

A. a fresh engine, the fault active, every installed provider asked (the target live, the others from their
   bundled recordings): the target's exact state and reason words, the requests the server saw (retries follow
   the policy), every other provider's offers all there, nothing partial published, the time bound kept;
B. the fault cleared: a refresh gives the full catalog (nothing partial was cached); when the server asked to wait
   beyond the retry budget (``Retry-After``), it is not asked again before its time, refresh or not;
C. the fault back: the last good data is kept, marked ``stale``, with the reason.

Known faults exercised here: C17 (timeouts and connection errors retried), C19 (a walk broken half-way is a failure,
never a smaller catalog; a pagination loop is an error), C12's kind (one bad record or page never aborts the
rest silently; an empty page is reported).
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from faultserver import Fault, FaultServer, http_date
from harness import (
    ATTEMPTS,
    MATRIX_RETRY,
    SEARCH_TIMEOUT_S,
    STALL_S,
    Baseline,
    LoopbackOnly,
    case_or_skip,
    live_baseline,
    live_engine,
    live_env,
    offer_keys,
    serving,
)
from provider_cases import CASES, ProviderCase

from gpuhub import Engine, Offer, Registry
from gpuhub.fetch.provider import ProviderStatus


@dataclass(frozen=True)
class FaultSpec:
    """One column of the matrix.

    ``where``: ``fault`` (the case's fault_match request), ``first`` (the walk's first request), ``all`` (every
    request), ``loop`` (the case's loop_match page). ``times``: how many matching requests get the fault (None:
    all). ``outcome``: ``failed``, ``recovered`` (ok after retries), ``empty`` (ok, no offers, warned),
    ``renamed`` (ok, no offers, every record skipped naming the field), ``partial`` (ok, one record skipped).
    ``hits``: requests the faulted URL must see in search A.
    """

    id: str
    make: Callable[[ProviderCase], Fault]
    outcome: str
    words: tuple[str, ...] = ()
    where: str = "fault"
    times: int | None = None
    hits: int | None = None


FAULTS: tuple[FaultSpec, ...] = (
    # Retry-After within the budget (cap 0.1 s): honoured exactly, then retried; beyond it (seconds or an HTTP
    # date): stop at once, saying when to retry (the server's time), never asking early.
    FaultSpec("429_retry_after_seconds", lambda c: Fault.http_status(429, "0.1"), "failed",
              ("HTTP 429", "after retries", "retry after"), hits=ATTEMPTS),
    FaultSpec("429_retry_after_beyond_budget", lambda c: Fault.http_status(429, "86400"), "failed",
              ("rate limited (HTTP 429)", "wait 86400 s", "retry after"), hits=1),
    FaultSpec("429_retry_after_date_once", lambda c: Fault.http_status(429, http_date(600)), "failed",
              ("rate limited (HTTP 429)", "retry after"), times=1, hits=1),
    FaultSpec("500", lambda c: Fault.http_status(500), "failed", ("HTTP 500", "after retries"), hits=ATTEMPTS),
    FaultSpec("502", lambda c: Fault.http_status(502), "failed", ("HTTP 502", "after retries"), hits=ATTEMPTS),
    FaultSpec("503", lambda c: Fault.http_status(503), "failed", ("HTTP 503", "after retries"), hits=ATTEMPTS),
    FaultSpec("503_once", lambda c: Fault.http_status(503), "recovered", times=1, hits=2),
    FaultSpec("stall", lambda c: Fault.stall(STALL_S), "failed", ("ReadTimeout", "after retries"), hits=ATTEMPTS),
    FaultSpec("stall_once", lambda c: Fault.stall(STALL_S), "recovered", times=1, hits=2),
    FaultSpec("stall_mid_body", lambda c: Fault.stall_mid_body(STALL_S), "failed",
              ("ReadTimeout", "after retries"), hits=ATTEMPTS),
    FaultSpec("closed_mid_body", lambda c: Fault.close_mid_body(), "failed",
              ("RemoteProtocolError", "after retries"), hits=ATTEMPTS),
    FaultSpec("closed_mid_body_once", lambda c: Fault.close_mid_body(), "recovered", times=1, hits=2),
    FaultSpec("truncated_body", lambda c: Fault.truncate(), "failed", ("did not return JSON",), hits=1),
    FaultSpec("invalid_body", lambda c: Fault.invalid(), "failed", ("did not return JSON",), hits=1),
    FaultSpec("html_instead_of_json", lambda c: Fault.html(), "failed", ("did not return JSON", "text/html"), hits=1),
    FaultSpec("empty_body", lambda c: Fault.empty(), "failed", ("did not return JSON",), hits=1),
    FaultSpec("empty_page", lambda c: Fault.raw(c.empty_page), "empty", where="first"),
    FaultSpec("pagination_loop", lambda c: c.loop if isinstance(c.loop, Fault) else Fault.json_transform(c.loop),
              "failed", ("loop",), where="loop"),
    FaultSpec("page_cap", lambda c: c.forever or Fault.empty(), "failed", ("page cap",), where="forever"),
    FaultSpec("shape_field_renamed", lambda c: Fault.json_transform(c.rename_all), "renamed", where="all"),
    FaultSpec("shape_field_missing_in_one", lambda c: Fault.json_transform(c.drop_one), "partial"),
)
FAULT_IDS = [f.id for f in FAULTS]
STALE_WORDS = "showing the last good data"
NEIGHBOURS = ("fakecloud", "lambda", "coreweave")
"""Providers asked alongside the target in every cell (cheap to replay); test_isolation asks every provider."""


def _params() -> list[object]:
    out: list[object] = []
    for case in CASES:
        for spec in FAULTS:
            marks = []
            if spec.id in case.xfail:
                marks.append(pytest.mark.xfail(strict=True, reason=case.xfail[spec.id]))
            out.append(pytest.param(case.name, spec, id=f"{case.name}-{spec.id}", marks=marks))
    return out


def _match(case: ProviderCase, spec: FaultSpec) -> str | None:
    return {"fault": case.fault_match, "first": case.first_match, "all": None, "loop": case.loop_match,
            "forever": case.forever_match}[spec.where]


def _words(case: ProviderCase, spec: FaultSpec) -> tuple[str, ...]:
    if spec.id.startswith("closed_mid_body") and case.streamed:
        return ("peer closed connection",)
    return case.words.get(spec.id, spec.words)


def _hits(case: ProviderCase, spec: FaultSpec) -> int | None:
    if spec.id == "closed_mid_body" and case.streamed:
        return 1  # a body lost mid-stream is not retried (ProviderContext.stream)
    return spec.hits


def _search(engine: Engine, names: list[str], *, refresh: bool = True) -> tuple[
        dict[str, tuple[tuple[Offer, ...], ProviderStatus]], float]:
    """One collect (the target live: only it has credentials; the others replay their bundled recordings)."""
    started = time.monotonic()
    results = engine.collect(names, mode="auto", refresh=refresh)
    return {s.provider: (o, s) for o, s in results}, time.monotonic() - started


@pytest.mark.parametrize(("provider", "spec"), _params())
def test_fault_matrix(provider: str, spec: FaultSpec, rel_registry: Registry, live_baselines: dict[str, Baseline],
                      replay_baselines: dict[str, tuple[tuple[Offer, ...], ProviderStatus]],
                      transport: LoopbackOnly) -> None:
    run_cell(provider, spec, rel_registry, live_baselines, replay_baselines, transport)


Baselines = dict[str, tuple[tuple[Offer, ...], ProviderStatus]]
HELD_BACK = ("429_retry_after_beyond_budget", "429_retry_after_date_once")
"""Cells whose server asks to wait beyond the retry budget: later searches must not ask before its time."""
OUTCOMES: list[dict[str, object]] = []
"""What each cell saw (provider, fault, state of search A and of search C, requests), for the README's table."""


def run_cell(provider: str, spec: FaultSpec, rel_registry: Registry, live_baselines: dict[str, Baseline],
             replay_baselines: Baselines, transport: LoopbackOnly) -> None:
    """One matrix cell (see the module docstring); also used by the named known-fault tests."""
    case = case_or_skip(rel_registry, provider)
    if (spec.where == "loop" and case.loop is None) or (spec.where == "forever" and case.forever is None):
        pytest.skip(f"{provider}'s API has no pagination")
    base = live_baseline(rel_registry, live_baselines, case)
    match = _match(case, spec)
    words = _words(case, spec)
    with serving(rel_registry, case) as server:
        env = live_env(rel_registry, case, server)
        if spec.where == "forever":
            env.update(case.cap_env)
        engine = live_engine(rel_registry, env, transport)
        try:
            server.inject(spec.make(case), match=match, times=spec.times)
            # --- A: fresh engine, the target live, its neighbours from their recordings ---------------------------
            names = sorted({provider, *NEIGHBOURS} & set(rel_registry.providers))
            results, elapsed = _search(engine, names)
            offers, status = results[provider]
            assert status.mode == "live", status.to_dict()
            # bounded by the search deadline (a 200-page walk on a loaded 2-core machine takes seconds; the
            # outcome words below say it was the fault, not the deadline, that ended it)
            assert elapsed < SEARCH_TIMEOUT_S + 5.0, elapsed
            for other, (other_offers, other_status) in results.items():
                if other == provider:
                    continue
                want_offers, want_status = replay_baselines[other]
                assert other_status.state == want_status.state, other_status.line()
                assert offer_keys(other_offers) == offer_keys(want_offers), f"{other}'s offers changed"
            assert not server.misses, server.misses
            assert not transport.escapes, transport.escapes
            _check_first(case, spec, base, server, offers, status, words, match)
            outcome: dict[str, object] = {"provider": provider, "fault": spec.id, "state": status.state,
                                          "reason": status.reason or "", "offers": f"{len(offers)}/{len(base.offers)}",
                                          "requests": server.count(match), "later": "-"}
            OUTCOMES.append(outcome)
            if spec.outcome in ("recovered", "partial") or spec.where == "forever":
                return  # (page_cap: hundreds of pages per walk; stale-after-failure is covered by the others)
            if spec.outcome == "failed" and not spec.id.startswith(("stall", "429")):  # (those wait: skipped)
                # --- A2: asked again without refresh: the failure was not cached, the provider is asked again ----
                seen = server.count()
                results, _ = _search(engine, [provider], refresh=False)
                assert results[provider][1].state == "failed" and results[provider][0] == ()
                assert server.count() > seen, "a failed fetch must not be served from the cache"
            if spec.id in HELD_BACK:
                # --- B': the server asked to wait beyond the retry budget: even with the fault cleared and a
                # refresh, it is not asked again before its time (nothing good to show yet: failed, saying so) ---
                server.clear()
                results, _ = _search(engine, [provider])
                offers, status = results[provider]
                outcome["later"] = "held back"
                assert server.count() == 0, [s.target for s in server.log]
                assert status.state == "failed" and offers == (), status.line()
                assert "rate limited until" in (status.reason or "") and "--refresh does not override" in (
                    status.reason or ""), status.line()
                return
            # --- B: the fault cleared: the full catalog comes back (nothing partial was cached) ------------------
            server.clear()
            results, _ = _search(engine, [provider])
            offers, status = results[provider]
            assert status.state == "ok", status.line()
            assert offer_keys(offers) == offer_keys(base.offers)
            # --- C: the fault again: the last good data, marked stale, with the reason ---------------------------
            server.inject(spec.make(case), match=match, times=spec.times)
            results, _ = _search(engine, [provider])
            offers, status = results[provider]
            outcome["later"] = status.state
            if spec.outcome == "empty" and not all(case.empty_lost(o) for o in base.offers):
                # one empty region or file among others is data (C12): fresh, smaller, with the warning
                assert status.state == "ok", status.line()
                assert case.empty_warning in status.warnings, status.to_dict()
                assert offer_keys(offers) == offer_keys([o for o in base.offers if not case.empty_lost(o)])
                return
            assert status.state == "stale", status.line()
            assert STALE_WORDS in (status.reason or ""), status.line()
            if spec.outcome == "failed":
                for word in words:
                    assert word in (status.reason or ""), status.line()
            else:
                assert f"answered with no offers where it had {len(base.offers)} before" in (status.reason or "")
            assert offer_keys(offers) == offer_keys(base.offers)
        finally:
            engine.shutdown()


def _check_first(case: ProviderCase, spec: FaultSpec, base: Baseline, server: FaultServer,
                 offers: tuple[Offer, ...], status: ProviderStatus, words: tuple[str, ...], match: str | None) -> None:
    hits = _hits(case, spec)
    if spec.outcome == "failed":
        assert status.state == "failed", status.line()
        for word in words:
            assert word in (status.reason or ""), status.line()
        assert offers == (), "a broken walk must publish nothing"
        assert status.offers == 0
        if spec.where == "loop":
            assert server.distinct(match) == case.loop_requests, [s.target for s in server.log]
        if spec.where == "forever":  # the cap is reached, then the walk stops with an error
            # Outcome: exactly the cap's number of different pages; a page retried under load counts once.
            assert server.distinct(match) == case.page_cap, server.distinct(match)
            assert case.page_cap <= server.count(match) <= case.page_cap * ATTEMPTS, server.count(match)
        if hits is not None and match is not None:
            assert server.count(match) == hits, [s.target for s in server.log]
            if spec.where == "fault":  # the walk stops at the failing request
                # bounds: a request before the fault may be retried once more under load, never skipped
                before = base.before(match)
                assert before + hits <= server.count() <= before * ATTEMPTS + hits, [s.target for s in server.log]
                assert {s.target for s in server.log} == set(base.targets[:before + 1]), [s.target for s in server.log]
        if spec.id.startswith("429"):
            at = server.times(match)
            gaps = [b - a for a, b in itertools.pairwise(at)]
            assert all(g >= MATRIX_RETRY.max_wait_s * 0.9 for g in gaps), f"Retry-After not honoured: {gaps}"
    elif spec.outcome == "recovered":
        assert status.state == "ok", status.line()
        assert offer_keys(offers) == offer_keys(base.offers)
        assert match is not None and hits is not None
        # bounds: on a loaded machine a request of the walk (the faulted one's retry too) may time out (0.3 s) and
        # be retried once more; every request of the clean walk was made, and no other
        assert base.count(match) + hits - 1 <= server.count(match) <= base.count(match) + ATTEMPTS - 1, \
            [s.target for s in server.log]
        assert len(base.targets) + hits - 1 <= server.count() <= len(base.targets) * ATTEMPTS + hits - 1, \
            [s.target for s in server.log]
        assert {s.target for s in server.log} == set(base.targets), [s.target for s in server.log]
        if spec.id.startswith("429"):
            at = server.times(match)
            assert at[1] - at[0] >= MATRIX_RETRY.max_wait_s * 0.9, f"Retry-After (HTTP date) not honoured: {at}"
    elif spec.outcome == "empty":
        assert status.state == "ok", status.line()
        assert offer_keys(offers) == offer_keys([o for o in base.offers if not case.empty_lost(o)])
        assert case.empty_warning in status.warnings, status.to_dict()
    elif spec.outcome == "renamed":
        assert status.state == "ok", status.line()
        assert offers == (), "records without a required field must be skipped"
        assert status.skipped_records > base.status.skipped_records, status.to_dict()
        assert any(case.renamed_field in reason for reason in status.skipped_reasons), status.to_dict()
        assert "the provider returned no offers" in status.warnings, status.to_dict()
    elif spec.outcome == "partial":
        assert status.state == "ok", status.line()
        want = [o for o in base.offers if not case.drop_one_lost(o)]
        assert len(want) < len(base.offers), "the broken record gave no offers in the baseline"
        assert offer_keys(offers) == offer_keys(want)
        assert status.skipped_records == base.status.skipped_records + 1, status.to_dict()
    else:  # pragma: no cover
        raise AssertionError(spec.outcome)


def test_matrix_covers_every_installed_provider(rel_registry: Registry) -> None:
    """A provider installed without a row would silently escape the matrix."""
    covered = {case.name for case in CASES}
    live = {name for name, p in rel_registry.providers.items() if not p.static}
    assert live <= covered, f"providers without a fault-matrix row: {sorted(live - covered)}"


@pytest.fixture(scope="module", autouse=True)
def matrix_report() -> Iterator[None]:
    """With ``GPUHUB_MATRIX_REPORT=path``, write the cells' outcomes as a markdown table after the module."""
    yield
    target = os.environ.get("GPUHUB_MATRIX_REPORT")
    if target and OUTCOMES:
        Path(target).write_text(markdown_table(OUTCOMES), encoding="utf-8")


def markdown_table(outcomes: list[dict[str, object]]) -> str:
    """Provider x fault: ``state [offers/baseline offers] (requests matching the faulted request)``, then
    ``→ state`` of the same fault after a good fetch."""
    providers = list(dict.fromkeys(str(o["provider"]) for o in outcomes))
    cells = {(o["provider"], o["fault"]): o for o in outcomes}
    lines = ["| fault | " + " | ".join(providers) + " |", "|---|" + "---|" * len(providers)]
    for spec in FAULTS:
        row = []
        for provider in providers:
            o = cells.get((provider, spec.id))
            if o is None:
                row.append("n/a")
                continue
            text = f"{o['state']}"
            if o["state"] == "ok":
                text += f" {o['offers']}"
            text += f" ({o['requests']} req)"
            if o["later"] != "-":
                text += f" → {o['later']}"
            row.append(text)
        lines.append(f"| {spec.id} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def _spec(fault_id: str) -> FaultSpec:
    return next(s for s in FAULTS if s.id == fault_id)


# --- the known faults of issue 9, by name (each a matrix cell of the provider it is about) -----------------------
def test_c12_azure_empty_region_is_a_warning_not_an_abort(rel_registry: Registry, live_baselines: dict[str, Baseline],
                                                          replay_baselines: Baselines, transport: LoopbackOnly) -> None:
    """C12: westeurope answers an empty price list: its offers are gone, with a warning; every other region's stay."""
    run_cell("azure", _spec("empty_page"), rel_registry, live_baselines, replay_baselines, transport)


@pytest.mark.parametrize("fault", ["stall_once", "closed_mid_body_once"])
def test_c17_timeouts_and_dropped_connections_are_retried(fault: str, rel_registry: Registry,
                                                          live_baselines: dict[str, Baseline],
                                                          replay_baselines: Baselines,
                                                          transport: LoopbackOnly) -> None:
    """C17: a read timeout or a connection dropped mid-body is retried per the policy (3 attempts)."""
    run_cell("gcp", _spec(fault), rel_registry, live_baselines, replay_baselines, transport)


@pytest.mark.parametrize("fault", ["503", "pagination_loop", "truncated_body"])
def test_c19_walk_broken_half_way_publishes_nothing(fault: str, rel_registry: Registry,
                                                    live_baselines: dict[str, Baseline], replay_baselines: Baselines,
                                                    transport: LoopbackOnly) -> None:
    """C19: page 2 of Azure's westeurope walk fails (or loops): no partial catalog; the previous one stays, stale."""
    run_cell("azure", _spec(fault), rel_registry, live_baselines, replay_baselines, transport)
