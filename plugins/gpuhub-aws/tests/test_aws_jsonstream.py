"""The incremental JSON walker under the offer-file parser: it must agree with the stdlib decoder on any input."""

from __future__ import annotations

import json
import random
import time
from decimal import Decimal
from typing import Any

import pytest
from gpuhub_aws.jsonstream import JsonObjectWalker, JsonStreamError

KEY_TAILS = ["", "}", "\\", "é", '"q"']


def _value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(7 if depth < 12 else 4)
    if kind == 0:
        return rng.choice(["", "plain", 'with "quotes" and \\ slash', "braces {[}]", "ünïcødé ✓", "tab\tnl\n"])
    if kind == 1:
        return rng.choice([0, -12, 3.25, 1e-7, 12345678901234567890])
    if kind == 2:
        return rng.choice([True, False, None])
    if kind == 3:
        return "x" * rng.randrange(0, 300)
    if kind in (4, 5):
        return {"k" + str(i) + rng.choice(KEY_TAILS): _value(rng, depth + 1) for i in range(rng.randrange(4))}
    return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def _walk(data: bytes, chunk: int, enter: set[str]) -> list[tuple[tuple[str, ...], str, Any]]:
    out: list[tuple[tuple[str, ...], str, Any]] = []
    walker = JsonObjectWalker(lambda path, key: "enter" if key in enter else "decode",
                              lambda path, key, value: out.append((path, key, value)))
    for i in range(0, len(data), chunk):
        walker.feed(data[i:i + chunk])
    walker.close()
    return out


def _expected(doc: dict[str, Any], enter: set[str], path: tuple[str, ...] = ()) -> list[Any]:
    out: list[Any] = []
    for key, value in doc.items():
        if key in enter and isinstance(value, dict):
            out.extend(_expected(value, enter, (*path, key)))
        else:
            out.append((path, key, json.loads(json.dumps(value), parse_float=Decimal, parse_int=Decimal)))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_walker_agrees_with_the_stdlib_decoder(seed: int) -> None:
    rng = random.Random(seed)
    doc = {f"top{i}": _value(rng, 0) for i in range(6)}
    doc["section"] = {f"sku{i}": _value(rng, 2) for i in range(5)}
    for separators in ((",", ":"), (", ", " : ")):
        data = json.dumps(doc, separators=separators, ensure_ascii=seed % 2 == 0, indent=seed % 3 or None).encode()
        for chunk in (1, 5, 64, len(data)):
            assert _walk(data, chunk, {"section"}) == _expected(doc, {"section"}), (separators, chunk)


def test_skipped_values_need_not_be_built_and_deep_nesting_works() -> None:
    deep: Any = "bottom"
    for _ in range(40):
        deep = {"d": [deep, "}]"]}
    data = json.dumps({"skip": deep, "keep": deep, "tail": 1}).encode()
    seen: list[str] = []
    walker = JsonObjectWalker(lambda path, key: "skip" if key == "skip" else "decode",
                              lambda path, key, value: seen.append(key))
    for i in range(0, len(data), 3):
        walker.feed(data[i:i + 3])
    walker.close()
    assert seen == ["keep", "tail"]


@pytest.mark.parametrize("text", [
    b'{"a": 1,}', b'{"a" 1}', b'{"a": 1} x', b'{"a": 1', b'["a"]', b'', b'{"a": tru}', b'{"a": "\xff"}',
    b'{"a": {"b": 1}', b'{a: 1}', b'{"data": {"gpu_1x": [1, 2,, }', b'{"s": [{"x": 1]}]}',
])
def test_malformed_documents_raise(text: bytes) -> None:
    walker = JsonObjectWalker(lambda path, key: "decode", lambda path, key, value: None)
    with pytest.raises(JsonStreamError):
        walker.feed(text)
        walker.close()


def test_long_unfinished_value_at_a_chunk_end_is_linear() -> None:
    walker = JsonObjectWalker(lambda path, key: "skip", lambda path, key, value: None)
    walker.feed(b'{"big": {"a": [' + b'{"x": "' + b"y" * 2_000_000)  # ends inside a string, 3 levels deep
    started = time.perf_counter()
    walker.feed(b'"}' + b"]}}")
    walker.close()
    assert time.perf_counter() - started < 2.0
