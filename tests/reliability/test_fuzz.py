"""Fuzzed payloads: real recorded records, mutated by hypothesis, served by the fault server to the real provider.

Per provider, one page of its bundled recording (the case's ``fuzz_match``) is rewritten: one to three of its
records get mutations drawn by hypothesis (a field removed, a value replaced by null, a boolean, a huge, negative
or zero number, NaN or infinity, an unknown GPU name, odd unicode, a list or object, a number turned into a
string). The provider runs live through the Engine. It must never crash (the status is ``ok``, or ``failed`` with
a reason that comes from a ProviderError, never an unexpected exception), and never emit an offer with a
negative, zero, NaN or infinite price, a non-ISO currency or a GPU count <= 0.
"""

from __future__ import annotations

import copy
import json
import logging
import math
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from faultserver import Fault, FaultServer
from harness import Baseline, LoopbackOnly, base_url_env, case_or_skip, live_engine, serving
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from provider_cases import CASES, ProviderCase

from gpuhub import Registry
from gpuhub.errors import ProviderError
from gpuhub.kit.testing import run_provider
from gpuhub.purchase import check_currency as _check_currency

FUZZ_SETTINGS = settings(max_examples=50, deadline=None, derandomize=True, database=None,
                         suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

ODD_TEXT = ["", " ", "\u202eevil", "𝔸𝟙𝟘𝟘", "H100\x00", "नमस्ते", "🙂" * 3, "NaN", "-1", "1e400", "0x1F", "∞",
            "Quantum QX-9000 (96 GB)", "H100 H100 H100", "null"]
ODD_NUMBERS = [0, -1, -0.01, 10**30, -(10**30), 1e308, 2**63, 0.0000001]
Path_ = tuple[Any, ...]
FOCUS = re.compile(r"(?i)price|gpu|unit|nanos|count|memory|currency|sku|instanceType|description")


def _leaves(node: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    """Every (path, value) inside ``node``: dict members and list elements, containers included."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*path, key), value
            yield from _leaves(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield (*path, i), value
            yield from _leaves(value, (*path, i))


def _set(node: Any, path: Path_, value: Any, delete: bool = False) -> None:
    for step in path[:-1]:
        node = node[step]
    if delete and isinstance(node, dict):
        del node[path[-1]]
    else:
        node[path[-1]] = value


def _replacement(draw: st.DrawFn, old: Any) -> tuple[Any, bool]:
    """A new value for a leaf (or deletion): wrong types, extreme numbers, odd text, numbers as strings."""
    kind = draw(st.sampled_from(["delete", "null", "bool", "number", "nan", "text", "container", "stringify",
                                 "negate", "scale"]))
    if kind == "delete":
        return None, True
    if kind == "null":
        return None, False
    if kind == "bool":
        return draw(st.booleans()), False
    if kind == "number":
        return draw(st.sampled_from(ODD_NUMBERS) | st.integers() | st.floats(allow_nan=False)), False
    if kind == "nan":
        return draw(st.sampled_from([math.nan, math.inf, -math.inf])), False
    if kind == "text":
        return draw(st.sampled_from(ODD_TEXT) | st.text(max_size=12)), False
    if kind == "container":
        return draw(st.sampled_from([[], {}, [1, 2], {"a": None}])), False
    if isinstance(old, (int, float)) and not isinstance(old, bool):
        if kind == "stringify":
            return str(old), False
        if kind == "negate":
            return -old if old else -1, False
        return old * draw(st.sampled_from([0, 10**12, 1e-12, -3])), False
    return draw(st.sampled_from(ODD_TEXT)), False


@st.composite
def mutations(draw: st.DrawFn, items: list[Any]) -> list[tuple[int, Path_, Any, bool]]:
    """One to three (item index, path, new value, delete?) edits of real records."""
    out = []
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(0, len(items) - 1))
        paths = [p for p, _ in _leaves(items[index])]
        if not paths:
            continue
        # prices, GPU names and counts get most of the edits
        paths += [p for p in paths for _ in range(6) if FOCUS.search(str(p[-1]))]
        path = draw(st.sampled_from(paths))
        old = items[index]
        for step in path:
            old = old[step]
        value, delete = _replacement(draw, old)
        out.append((index, path, value, delete))
    return out


def _apply(items: list[Any], edits: list[tuple[int, Path_, Any, bool]]) -> list[Any]:
    items = copy.deepcopy(items)
    for index, path, value, delete in edits:
        try:
            _set(items[index], path, value, delete)
        except (KeyError, IndexError, TypeError):  # an earlier edit removed or replaced the parent
            continue
    return items


class _Crashes(logging.Handler):
    """Collects engine log records carrying a traceback (a provider bug the engine caught)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.records.append(record)


def _env(registry: Registry, case: ProviderCase, server: FaultServer) -> dict[str, str]:
    base = dict(case.fuzz_env) if case.fuzz_env else {k: v for k, v in case.env.items() if v}
    return {**base, **base_url_env(registry, case.name, server)}


_FUZZ_BASELINES: dict[str, Baseline] = {}


@pytest.mark.parametrize("provider", [c.name for c in CASES])
def test_fuzzed_records_never_crash_or_price_badly(provider: str, rel_registry: Registry,
                                                   transport: LoopbackOnly) -> None:
    case = case_or_skip(rel_registry, provider)
    match = case.fuzz_match or case.fault_match
    crashes = _Crashes()
    logging.getLogger("gpuhub.service.engine").addHandler(crashes)
    with serving(rel_registry, case) as server:
        env = _env(rel_registry, case, server)
        # the clean page, as the provider sees it, and a clean run of the narrowed walk
        engine = live_engine(rel_registry, env, transport)
        clean_offers, clean = run_provider(engine, provider, mode="live")
        engine.shutdown()
        assert clean.state == "ok" and clean_offers, clean.line()
        assert not server.misses and not server.loose, (server.misses, server.loose)
        page = json.loads(server.answer_like(match).body)  # type: ignore[union-attr]
        items = case.items(page)
        assert items, f"no records on {match}"
        seen_states: set[str] = set()

        @FUZZ_SETTINGS
        @given(edits=mutations(items))
        def run(edits: list[tuple[int, Path_, Any, bool]]) -> None:
            mutated = case.set_items(page, _apply(items, edits))
            body = json.dumps(mutated, allow_nan=True).encode()
            server.clear()
            server.inject(Fault.raw(body, content_type="application/json"), match=match)
            fuzz_engine = live_engine(rel_registry, env, transport)
            try:
                offers, status = run_provider(fuzz_engine, provider, mode="live")
            finally:
                fuzz_engine.shutdown()
            seen_states.add(status.state)
            assert status.state in ("ok", "failed"), status.line()
            assert not crashes.records, f"provider crashed on {edits}: {crashes.records[-1].getMessage()}"
            if status.state == "failed":
                assert status.reason, status.to_dict()
                assert status.offers == 0 and offers == ()
            for offer in offers:
                amount = offer.price.amount
                assert isinstance(amount, Decimal) and amount.is_finite() and amount > 0, (edits, offer.price)
                assert _check_currency(offer.price.currency) == offer.price.currency
                assert offer.instance.gpu_count is None or offer.instance.gpu_count > 0, offer.instance
                assert offer.instance.provider == provider
            if status.state == "ok" and len(offers) < len(clean_offers):
                assert status.skipped_records or status.warnings, (edits, status.to_dict())

        try:
            run()
        finally:
            logging.getLogger("gpuhub.service.engine").removeHandler(crashes)
        assert "ok" in seen_states, "every fuzzed page failed the whole fetch: the fuzzer tests nothing"


def test_mutation_helpers_edit_real_records() -> None:
    """The fuzzer's edits land where they say (so a passing fuzz run means the provider saw them)."""
    items = [{"a": {"price": 1.5, "gpu": "H100"}, "b": [1, 2]}]
    edited = _apply(items, [(0, ("a", "price"), "1.5", False), (0, ("a", "gpu"), None, True), (0, ("b", 1), -1, False)])
    assert edited == [{"a": {"price": "1.5"}, "b": [1, -1]}]
    assert items[0]["a"]["price"] == 1.5  # the original is untouched
    assert ProviderError.__name__ == "ProviderError"
