"""Text from a provider is printed as text (issue 23 item 3): markup such as ``[/x]`` or ``[bold]`` and escape
sequences such as ``\\x1b[2J`` in an instance type, a warning or a failure reason are printed verbatim (control
characters escaped) by ``gpuhub search``, ``gpuhub store show``, the web page and the API, and no command crashes on
them, then or afterwards (the failed refresh is stored and shown on every later run)."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from engines import process_wide
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gpuhub import Instance, Offer, Price, Provider, ProviderContext
from gpuhub.cli.commands import app
from gpuhub.display import plain
from gpuhub.errors import ProviderError
from gpuhub.kit.testing import make_engine, registry_of
from gpuhub.store import open_store

runner = CliRunner()
NOW = {"text": ""}
"""What the providers answer with in the current example."""


class Loud(Provider):
    """One 1 x H100 at 2.49 USD per hour whose instance type and warning carry the example's text."""

    name = "loud"
    kind = "specialist"

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        ctx.warn(f"note {NOW['text']}")
        inst = Instance(provider="loud", instance_type=f"it-{NOW['text']}", gpu=ctx.gpu("H100"), gpu_count=1)
        yield Offer(instance=inst, region=ctx.region("us-east-1"), source=ctx.source,
                    price=Price(amount=Decimal("2.49"), currency="USD", purchase="on_demand"))


class Broken(Provider):
    """An API that answers with an error message holding the example's text (as a loopback 404 did)."""

    name = "broken"
    kind = "specialist"

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        raise ProviderError(f"404 {NOW['text']}")


PIECES = st.sampled_from(["[/x]", "[bold]", "\x1b[2J", "[red]", "]", "[", "\\", "\n", "\t", "\x07", "\u202e",
                          "é", "a", " ", "[link=x]", ":smile:"])
TEXTS = st.lists(PIECES, min_size=1, max_size=6).map("".join)


@pytest.fixture
def cli(tmp_path: Path) -> Iterator[dict[str, str]]:
    """The two providers installed process-wide over a store in ``tmp_path``; the CLI's environment."""
    location = str(tmp_path / "store.sqlite")
    with process_wide(make_engine(registry_of(Loud(), Broken()), store=open_store(location))):
        yield {"GPUHUB_STORE": location, "COLUMNS": "400", "GPUHUB_STORE_KEEP": "1000"}


def test_provider_text_with_markup_and_escapes_is_printed_verbatim_everywhere(cli: dict[str, str]) -> None:
    pytest.importorskip("starlette")
    pytest.importorskip("jinja2")
    from starlette.testclient import TestClient

    from gpuhub.web.app import create_app

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(TEXTS)
    def check(text: str) -> None:
        NOW["text"] = text
        run = runner.invoke(app, ["search", "--gpu", "H100", "--refresh", "-v", "--fetch", "live"], env=cli)
        assert run.exception is None or isinstance(run.exception, SystemExit), run.exception
        assert run.exit_code == 0, run.output
        assert "\x1b" not in run.output and "\x07" not in run.output
        assert f"it-{plain(text)}" in run.stdout and "2.49 USD" in run.stdout
        assert f"  warning: note {plain(text)}\n" in run.stderr
        assert f"404 {plain(text)}" in run.stderr
        summary = runner.invoke(app, ["search", "--gpu", "H100", "--fetch", "live"], env=cli)  # by default: one line
        assert summary.exit_code == 0 and "1 provider ok, 1 failed (broken), 1 with warnings (loud); " \
                                          "-v for details" in summary.stderr

        shown = runner.invoke(app, ["store", "show"], env=cli)
        assert shown.exit_code == 0, shown.output
        assert "\x1b" not in shown.output
        assert f"404 {plain(text)}" in shown.stdout
        stored = json.loads(runner.invoke(app, ["store", "show", "--format", "json"], env=cli).stdout)
        assert any(row["reason"] and row["reason"].endswith(f"404 {text}") for row in stored["snapshots"])

        with TestClient(create_app(fetch="live")) as client:
            page = client.get("/", params={"gpu": "H100"})
            assert page.status_code == 200
            assert "\x1b" not in page.text
            assert html.escape(f"it-{plain(text)}", quote=False) in page.text
            assert html.escape(f"note {plain(text)}", quote=False) in page.text
            assert html.escape(f"404 {plain(text)}", quote=False) in page.text
            answer = client.get("/api/result", params={"gpu": "H100"}).json()
            assert [o["instance_type"] for o in answer["offers"]] == [f"it-{text}"]
            statuses = {s["provider"]: s for s in answer["providers"]}
            assert statuses["loud"]["warnings"] == [f"note {text}"]
            assert statuses["broken"]["reason"].endswith(f"404 {text}")

    check()


def test_plain_escapes_control_characters_and_leaves_markup() -> None:
    assert plain("a\x1b[2Jb [/x] [bold]\n\t\x7f\x85\u202e") == "a\\x1b[2Jb [/x] [bold]\\n\\t\\x7f\\x85\\u202e"
    assert plain("two\nlines", newlines=True) == "two\nlines"


def test_an_error_naming_an_extra_keeps_its_brackets() -> None:
    """``pip install 'gpuhub-core[web]'`` is printed whole (rich markup used to eat ``[web]``)."""
    from gpuhub.cli.table import TextConsole

    console = TextConsole(record=True, width=200)
    console.print("pip install 'gpuhub-kubernetes[live]' [/x]", style="red")
    assert console.export_text() == "pip install 'gpuhub-kubernetes[live]' [/x]\n"


def test_log_records_carry_provider_text_escaped(caplog: pytest.LogCaptureFixture) -> None:
    """A provider's text in a log message (the engine logs a failed fetch's reason) reaches a log file or terminal
    with its escape sequences shown, never executed."""
    import logging

    import gpuhub.fetch.provider  # noqa: F401  (installs the record factory)

    with caplog.at_level(logging.WARNING, logger="gpuhub.test"):
        logging.getLogger("gpuhub.test").warning("provider said: %s", "404 \x1b[2J[/x]\n[bold]")
    assert caplog.records[-1].getMessage() == "provider said: 404 \\x1b[2J[/x]\n[bold]"
