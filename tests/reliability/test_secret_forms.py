"""Known credential values never reach a log record or a recording, in any form (issue 12, defect 9): the
message, its arguments and the exception text (``exc_info`` tracebacks, every level, the Python API's DEBUG
line of a provider failure), and recorded bodies holding the literal, URL-encoded or base64 copies."""

from __future__ import annotations

import base64
import io
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import httpx
import pytest

from gpuhub import Credential, Provider, Registry, hookimpl
from gpuhub.fetch.recording import remember_secret
from gpuhub.fetch.transports import RecordingTransport
from gpuhub.kit.testing import make_engine

KEY = "secret_lambda+key/42==QxZ"
"""A credential with characters that URL-encoding and base64 change."""


def _forms(value: str) -> list[str]:
    raw = value.encode()
    return [value, quote(value, safe=""), quote_plus(value), base64.b64encode(raw).decode(),
            base64.b64encode(b"user:" + raw).decode(), base64.urlsafe_b64encode(b"ab" + raw).decode()]


def _leaks(text: str, value: str = KEY) -> list[str]:
    """Forms of ``value`` present in ``text`` (the base64 ones by their value-only middle part)."""
    found = [f for f in _forms(value)[:3] if f in text]
    for encoded in _forms(value)[3:]:
        if encoded.rstrip("=")[8:-8] and encoded.rstrip("=")[8:-8] in text:
            found.append(encoded)
    return found


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    old = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield stream
    root.removeHandler(handler)
    root.setLevel(old)


@pytest.mark.parametrize("level", [logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR])
def test_log_records_carry_no_form_of_a_known_credential(level: int, captured: io.StringIO) -> None:
    remember_secret(KEY)
    log = logging.getLogger("some.library")
    try:
        raise RuntimeError("rejected " + " | ".join(_forms(KEY)))
    except RuntimeError:
        log.log(level, "calling with %s and %r", KEY, {"auth": _forms(KEY)[4]}, exc_info=True)
    log.log(level, "plain message with %s", quote_plus(KEY), stack_info=True)
    text = captured.getvalue()
    assert "RuntimeError: rejected REDACTED" in text and "Traceback" in text  # the traceback is still there
    assert _leaks(text) == [], text


class Leaky(Provider):
    name = "leaky"
    kind = "internal"
    credentials = (Credential(("LEAKY_API_KEY",), "an API key"),)

    def fetch(self, ctx: Any) -> list[Any]:
        key = ctx.require_secret("LEAKY_API_KEY").get_secret_value()
        raise ValueError(f"a provider bug echoing {key} and {quote(key, safe='')}")  # reaches exc_info at DEBUG


def test_provider_failure_traceback_at_debug_is_redacted(captured: io.StringIO) -> None:
    class Plugin:
        @hookimpl
        def register_providers(self, register: Any) -> None:
            register(Leaky())

    secret = "leaky-key/with+chars=="
    engine = make_engine(Registry(entry_points=[], extra_plugins=[("leaky", Plugin())]),
                         environ={"LEAKY_API_KEY": secret})
    try:
        [(_, status)] = engine.collect(["leaky"], mode="live")
    finally:
        engine.shutdown()
    assert status.state == "failed" and _leaks(status.reason or "", secret) == [], status.reason
    text = captured.getvalue()
    assert "ValueError: a provider bug echoing REDACTED" in text, text  # the DEBUG traceback was logged
    assert _leaks(text, secret) == [], text


def test_recordings_blank_literal_url_encoded_and_base64_copies(tmp_path: Path) -> None:
    token = "rec0rd-T0ken/with+slash"
    body = ("{" + ", ".join(f'"f{i}": "{form}"' for i, form in enumerate(_forms(token))) + "}").encode()

    def echo(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "application/json"}, content=body)

    recorder = RecordingTransport(httpx.MockTransport(echo), tmp_path / "rec", "lambda", source="test")
    with httpx.Client(transport=recorder) as client:
        client.get("http://127.0.0.1/api/v1/instance-types", headers={"Authorization": f"Bearer {token}"})
    recorder.save()
    written = "".join(p.read_text() for p in (tmp_path / "rec").iterdir())
    assert _leaks(written, token) == [], written
    assert written.count("REDACTED") >= len(_forms(token))
