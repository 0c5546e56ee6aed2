"""Every command's ``--help`` says what each option takes (``--gpu NAME``, ``--hours HOURS``, ``--max-price
AMOUNT``), never typer's type descriptor (``<list[str]>``, ``<float>``, ``<str>``, ``<path>``) of an option
without a metavar."""

from __future__ import annotations

import re

import pytest
import typer.main
from typer.testing import CliRunner

from gpuhub.cli.commands import app

runner = CliRunner()


def _command_paths(command: object, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every runnable command under ``command`` as its words (``("plan", "arbitrage")``)."""
    subcommands = getattr(command, "commands", None)
    if not subcommands:
        return [path]
    return [p for name, sub in subcommands.items() for p in _command_paths(sub, (*path, name))]


COMMANDS = _command_paths(typer.main.get_command(app))
"""Every command of ``gpuhub``, a group's subcommands included (``store show``, ``catalog publish``...)."""


def _help(*words: str) -> str:
    run = runner.invoke(app, [*words, "--help"])
    assert run.exit_code == 0, run.output
    return run.output


def _metavars(help_text: str) -> dict[str, str]:
    """Option -> the metavar its help line shows (options that take a value only)."""
    shown: dict[str, str] = {}
    for line in help_text.split("Options:", 1)[-1].splitlines():
        names = re.split(r"\s{2,}", line.strip())[0]
        match = re.fullmatch(r"(?:-\w, )?(--[\w-]+) (\S+)", names)
        if match:
            shown[match.group(1)] = match.group(2)
    return shown


def test_every_command_is_walked() -> None:
    assert len(COMMANDS) == 22
    assert {("search",), ("estimate",), ("store", "prune"), ("catalog", "publish"), ("plan", "follow-the-sun"),
            ("plugin", "new")} <= set(COMMANDS)


@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_no_option_shows_a_python_type(words: tuple[str, ...]) -> None:
    options = _help(*words).split("Options:", 1)[1]  # (typer shows an argument's type: an argument is left be)
    for descriptor in ("<list[", "<str>", "<float>", "<int>", "<path>", "<int range>", "<float range>"):
        assert descriptor not in options, (words, descriptor)
    for option, metavar in _metavars(options).items():  # what to give in upper case, or the closed set of choices
        assert re.fullmatch(r"[A-Z][A-Z0-9]*(/[A-Z0-9]+)?|<[a-z-]+(\|[a-z-]+)+>", metavar), (words, option, metavar)


def test_the_options_name_what_to_give_with_its_unit() -> None:
    text = _help("search")
    search = _metavars(text)
    expected = {"--gpu": "NAME", "--region": "CODE", "--max-price": "AMOUNT", "--max-price-per-gpu": "AMOUNT",
                "--min-vram": "GIB", "--near": "PLACE", "--max-rtt": "MS", "--max-age": "DURATION",
                "--timeout": "SECONDS", "--fixtures": "DIR", "--limit": "COUNT", "--max-carbon": "GCO2E/KWH",
                "--format": "<table|json|csv>", "--emit": "<skypilot|dstack|dstack-fleet>", "--emit-file": "FILE"}
    assert {option: search[option] for option in expected} == expected
    assert "  -g, --gpu NAME  " in text and "  -r, --region CODE  " in text
    assert "  --max-price AMOUNT  " in text
    assert "maximum price per instance-hour, in the offer's currency" in " ".join(text.split())
    assert "  --all-regions  " in text and "--all-regions" not in search  # a flag takes no value
    estimate = _metavars(_help("estimate"))
    assert {k: estimate[k] for k in ("--instance-type", "--hours", "--egress-gb", "--disk-gib", "--fetch")} == {
        "--instance-type": "TYPE", "--hours": "HOURS", "--egress-gb": "GB", "--disk-gib": "GIB", "--fetch": "MODE"}
    assert _metavars(_help("serve"))["--port"] == "PORT"
    assert _metavars(_help("store", "show"))["--format"] == "<table|json>"
    assert _metavars(_help("plan", "commitments"))["--hours-per-day"] == "HOURS"
