"""An incremental walker over one JSON object that decodes only the members a caller asks for.

Offer files are hundreds of MB, and a GPU search needs about 2 % of them. Building every member (as a generic
streaming parser does) costs most of the time; this walker instead finds the end of each unwanted value with a
regular expression that steps from bracket to bracket (strings are consumed whole inside the regex engine, so a
bracket inside a string never counts) and decodes only the wanted values with the stdlib's C JSON decoder.

The caller routes each member by its path (the keys of the enclosing objects) and key: ``"enter"`` walks into an
object member, ``"decode"`` hands the decoded value to the callback, ``"skip"`` passes over it. Memory holds the
value being decoded plus one read chunk; a skipped value is dropped as it is scanned, whatever its size.
Numbers decode to ``Decimal`` (exact). Malformed JSON raises :class:`JsonStreamError`; :meth:`JsonObjectWalker.close`
raises it when the document ended early.
"""

from __future__ import annotations

import codecs
import functools
import json
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any, Literal

__all__ = ["Action", "JsonObjectWalker", "JsonStreamError"]

Action = Literal["enter", "decode", "skip"]

_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
# From inside a container: everything up to and including the next bracket that is not inside a string.
# One character per repetition (not a run): a run inside a repeated group backtracks exponentially on failure.
_TO_BRACKET = re.compile(r'(?:[^"{}\[\]]|"[^"\\]*(?:\\.[^"\\]*)*")*([{}\[\]])', re.DOTALL)



def _nested(levels: int) -> re.Pattern[str]:
    """A whole object or array nested at most ``levels`` deep, matched in one go (strings consumed whole)."""
    inner = r'(?:[^"{}\[\]]|"[^"\\]*(?:\\.[^"\\]*)*")*'
    for _ in range(levels - 1):
        inner = r'(?:[^"{}\[\]]|"[^"\\]*(?:\\.[^"\\]*)*"|\{' + inner + r"\}|\[" + inner + r"\])*"
    return re.compile(r"\{" + inner + r"\}|\[" + inner + r"\]", re.DOTALL)


# Most values (a product, one SKU's terms) are 3-6 levels deep: one regex call finds their end. Compiled on first
# use: the pattern takes ~150 ms to compile, which every `gpuhub` command would otherwise pay at start-up.
_shallow = functools.lru_cache(maxsize=1)(lambda: _nested(7))
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
_CLOSES = {"}": "{", "]": "["}
_DELIMITER = re.compile(r"[,}\]\s]")
_DECODE = json.JSONDecoder(parse_float=Decimal, parse_int=Decimal).decode


class JsonStreamError(ValueError):
    """The bytes are not one well-formed JSON object (or it ended early)."""


class _Need(Exception):
    """More input is needed to finish the current step."""


class _Frame:
    __slots__ = ("key", "path", "state")

    def __init__(self, path: tuple[str, ...]) -> None:
        self.path = path
        self.state = "first"  # first | next | key | value
        self.key = ""


class JsonObjectWalker:
    """Feed bytes with :meth:`feed`, then call :meth:`close`.

    Args:
        route: ``route(path, key) -> "enter" | "decode" | "skip"`` for each member of each entered object; the
            top-level object has path ``()``. Only object values can be entered (anything else is skipped).
        on_value: called with ``(path, key, value)`` for each decoded member, in document order.
        on_enter: called with the path of each object entered (``("terms", "Reserved")``), when it starts.
    """

    def __init__(self, route: Callable[[tuple[str, ...], str], Action],
                 on_value: Callable[[tuple[str, ...], str, Any], None],
                 on_enter: Callable[[tuple[str, ...]], None] | None = None) -> None:
        self._route, self._on_value, self._on_enter = route, on_value, on_enter
        self._text = codecs.getincrementaldecoder("utf-8")()
        self._buf = ""
        self._pos = 0
        self._stack: list[_Frame] = []
        self._started = False
        self._done = False
        self._skip: tuple[int, str] | None = None  # (scan position, open brackets) of a container being scanned
        self._value_start: int | None = None  # start of a value being decoded
        self.consumed = 0  # characters dropped from the front of the buffer

    # --- public -------------------------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        """Walk as far as ``data`` allows. Raises :class:`JsonStreamError` on malformed input."""
        try:
            self._buf += self._text.decode(data)
        except UnicodeDecodeError as exc:
            raise JsonStreamError(f"not UTF-8: {exc}") from None
        self._run()
        self._compact()

    def close(self) -> None:
        """The input is complete: raise :class:`JsonStreamError` unless one whole object was read."""
        try:
            self._buf += self._text.decode(b"", final=True)
        except UnicodeDecodeError as exc:
            raise JsonStreamError(f"not UTF-8: {exc}") from None
        self._run()
        if not self._done:
            raise JsonStreamError(f"premature end of the document after {self.consumed + len(self._buf)} characters")
        if self._buf[self._pos:].strip():
            raise JsonStreamError("data after the end of the JSON object")

    # --- machinery ----------------------------------------------------------------------------------------
    def _compact(self) -> None:
        keep = self._pos
        if self._value_start is not None:
            keep = min(keep, self._value_start)
        if keep > 65536:
            self._buf = self._buf[keep:]
            self.consumed += keep
            self._pos -= keep
            if self._value_start is not None:
                self._value_start -= keep
            if self._skip is not None:
                self._skip = (self._skip[0] - keep, self._skip[1])

    def _ws(self) -> int:
        match = _WS.match(self._buf, self._pos)
        self._pos = match.end() if match else self._pos
        if self._pos >= len(self._buf):
            raise _Need
        return self._pos

    def _error(self, what: str) -> JsonStreamError:
        near = self._buf[self._pos:self._pos + 40]
        return JsonStreamError(f"{what} at character {self.consumed + self._pos} (near {near!r})")

    def _run(self) -> None:
        try:
            while not self._done:
                self._step()
        except _Need:
            return

    def _step(self) -> None:
        if not self._started:
            if self._buf[self._ws()] != "{":
                raise self._error("expected a JSON object")
            self._pos += 1
            self._started = True
            self._stack.append(_Frame(()))
            return
        frame = self._stack[-1]
        if frame.state == "value":
            self._value(frame)
            return
        char = self._buf[self._ws()]
        if frame.state in ("first", "next") and char == "}":
            self._pos += 1
            self._stack.pop()
            if not self._stack:
                self._done = True
            else:
                self._stack[-1].state = "next"
            return
        if frame.state == "next":
            if char != ",":
                raise self._error("expected ',' or '}'")
            self._pos += 1
            frame.state = "key"
            return
        if char != '"':
            raise self._error("expected a string key")
        match = _STRING.match(self._buf, self._pos)
        if match is None:
            raise _Need
        end = _WS.match(self._buf, match.end())
        colon = end.end() if end else match.end()
        if colon >= len(self._buf):
            raise _Need
        if self._buf[colon] != ":":
            self._pos = colon
            raise self._error("expected ':'")
        raw = match.group()
        frame.key = raw[1:-1] if "\\" not in raw else json.loads(raw)
        frame.state = "value"
        self._pos = colon + 1

    def _value(self, frame: _Frame) -> None:
        start = self._ws() if self._value_start is None and self._skip is None else self._pos
        action = self._route(frame.path, frame.key)
        if action == "enter" and self._buf[start] == "{":
            self._pos = start + 1
            child = _Frame((*frame.path, frame.key))
            self._stack.append(child)
            if self._on_enter is not None:
                self._on_enter(child.path)
            return
        if action == "decode":
            if self._value_start is None:
                self._value_start = start
            end = self._value_end(self._value_start, keep=True)
            text = self._buf[self._value_start:end]
            self._value_start = None
            try:
                value = _DECODE(text)
            except json.JSONDecodeError as exc:
                raise self._error(f"bad JSON value ({exc.msg})") from None
            self._pos = end
            frame.state = "next"
            self._on_value(frame.path, frame.key, value)
            return
        self._pos = self._value_end(start, keep=False)
        frame.state = "next"

    def _value_end(self, start: int, *, keep: bool) -> int:
        """End of the value starting at ``start``; raises _Need (keeping resumable state) when not in the buffer."""
        buf = self._buf
        char = buf[start] if self._skip is None else "{"
        if char == '"':
            match = _STRING.match(buf, start)
            if match is None:
                raise _Need
            return match.end()
        if char not in "{[":
            if _DELIMITER.search(buf, start) is None:
                raise _Need  # a literal or number is complete only once a delimiter follows it
            match = _SCALAR.match(buf, start)
            if match is None:
                raise self._error("expected a JSON value")
            return match.end()
        if self._skip is None:
            whole = _shallow().match(buf, start)
            if whole is not None:
                return whole.end()
        pos, opened = self._skip if self._skip is not None else (start + 1, buf[start])
        while True:
            match = _TO_BRACKET.match(buf, pos)
            if match is None:  # the next bracket (or the end of a string) is in a later chunk
                self._skip = (pos, opened)
                if not keep:
                    self._pos = pos  # what was scanned can be dropped
                raise _Need
            pos = match.end()
            bracket = match.group(1)
            if bracket in "{[":
                opened += bracket
            elif _CLOSES[bracket] != opened[-1]:
                self._pos = pos - 1
                raise self._error(f"'{bracket}' closes '{opened[-1]}'")
            else:
                opened = opened[:-1]
                if not opened:
                    self._skip = None
                    return pos
