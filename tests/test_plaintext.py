"""Text and tables written without rich (:mod:`gpuhub.cli.plaintext`) are byte for byte what rich writes, and
everything the module cannot be sure of is left to rich."""

from __future__ import annotations

import io
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from gpuhub.cli.plaintext import PlainTable, plain_mode, styled_lines, text_width
from gpuhub.cli.table import TextConsole

Mode = Literal["plain", "terminal"]

_CELL = st.text(alphabet=st.sampled_from("ab XYZ09.-_/:×éü+()@…"), max_size=14)


def _rich(obj: Any, width: int, mode: Mode, **kwargs: Any) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=mode == "terminal",
                      color_system="truecolor" if mode == "terminal" else None, markup=False, emoji=False,
                      highlight=False, _environ={}, **kwargs)
    console.print(obj, **({"style": kwargs.pop("style")} if "style" in kwargs else {}))
    return buffer.getvalue()


@st.composite
def tables(draw: Any) -> PlainTable:
    columns = draw(st.integers(1, 7))
    overflow = draw(st.lists(st.sampled_from(["fold", "ellipsis", "whole"]), min_size=columns, max_size=columns))
    table = PlainTable(draw(st.lists(_CELL, min_size=columns, max_size=columns)),
                       draw(st.lists(st.booleans(), min_size=columns, max_size=columns)), overflow)
    for _ in range(draw(st.integers(0, 6))):
        table.add_row(*draw(st.lists(_CELL, min_size=columns, max_size=columns)))
    return table


@settings(max_examples=300, deadline=None)
@given(tables(), st.integers(20, 140), st.sampled_from(["plain", "terminal"]))
def test_a_table_is_written_as_rich_writes_it_or_left_to_rich(table: PlainTable, width: int, mode: Mode) -> None:
    text = table.render(width, mode)
    if text is not None:
        assert text == _rich(table.to_rich(), width, mode)


def test_the_answer_table_of_a_search_renders_itself_at_its_natural_width() -> None:
    table = PlainTable(["provider", "per hour", "vCPUs"], [False, True, True], ["fold", "whole", "fold"])
    table.add_row("verda via spheron", "0.8015 USD", "32")
    table.add_row("aws", "1.00 USD", "8")
    assert table.render(40, "plain") == ("provider          ┃   per hour ┃ vCPUs\n"
                                         "━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━\n"
                                         "verda via spheron │ 0.8015 USD │    32\n"
                                         "aws               │   1.00 USD │     8\n")
    assert table.render(37, "plain") is None  # 38 columns wide: rich narrows the folding columns
    assert table.render(38, "terminal", ).startswith("\x1b[1mprovider         \x1b[0m\x1b[1m \x1b[0m┃")


def test_wide_and_combining_characters_go_to_rich() -> None:
    assert text_width("H100 × 8 é") == 10
    assert text_width("東京") is None and text_width("e\u0301") is None and text_width("a\tb") is None
    table = PlainTable(["region"], [False], ["fold"], [["東京"]])
    assert table.render(80, "plain") is None


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab Z9.:;-\n"), max_size=40),
       st.sampled_from([None, "red", "green", "yellow", "dim", "bold"]))
def test_a_line_of_text_is_written_as_rich_writes_it(text: str, style: str | None) -> None:
    for mode in ("plain", "terminal"):
        ours = styled_lines(text, style, mode)
        assert ours is not None
        assert ours + "\n" == _rich(text, 80, mode, soft_wrap=True, style=style)
    assert styled_lines("x", "blink magenta", "terminal") is None  # a style this module does not know: rich


def test_plain_mode_follows_the_stream_and_leaves_forced_colour_to_rich(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "NO_COLOR", "JUPYTER_COLUMNS", "JUPYTER_LINES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert plain_mode(io.StringIO()) == "plain" and plain_mode(Tty()) == "terminal"
    monkeypatch.setenv("TERM", "dumb")
    assert plain_mode(Tty()) is None
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert plain_mode(io.StringIO()) is None


def test_the_console_writes_a_table_itself_when_piped(capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    table = PlainTable(["gpu", "offers"], [False, True], ["ellipsis", "ellipsis"], [["H100", "992"]])
    console = TextConsole(width=240)
    console.print(table)
    console.print("1 provider ok", style="green")  # not soft-wrapped: rich decides
    TextConsole(stderr=True, soft_wrap=True).print("gcp: ok\u0007", style="red")
    out, err = capsys.readouterr()
    assert out == "gpu  ┃ offers\n━━━━━╇━━━━━━━\nH100 │    992\n1 provider ok\n"
    assert err == "gcp: ok\\x07\n"  # text as text: the control character escaped, no colour in a pipe
    assert console._console is not None  # the plain line went through rich, made on first need
    assert TextConsole(width=240).width == 240
