"""The core's credential redaction (gpuhub/fetch/recording.py ``redact``/``remember_secret``, gpuhub/fetch/provider.py
log record factory and error messages): unit checks with exact outputs."""

from __future__ import annotations

import logging

import fakecloud
import httpx
import pytest

from gpuhub.errors import ProviderError
from gpuhub.fetch.plugins import Registry
from gpuhub.fetch.provider import Provider, ProviderContext
from gpuhub.fetch.recording import REDACTED, known_secrets, redact, remember_secret
from gpuhub.kit.testing import make_engine
from gpuhub.model import Source


def test_redact_query_parameters_bearer_and_header_lines() -> None:
    text = ("GET http://h/v1/skus?pageSize=5000&key=AIzaFAKE123&pageToken=p2 sent Bearer tok.en-12345\n"
            "Authorization: AWS4-HMAC-SHA256 Credential=AKIAFAKE/x, Signature=abcdef0123\n"
            "x-amz-security-token:FwoGFAKE\nmonkey=3 keyboard=4 form token=t0k3n&a=1")
    assert redact(text) == (f"GET http://h/v1/skus?pageSize=5000&key={REDACTED}&pageToken=p2 sent Bearer {REDACTED}\n"
                            f"Authorization: {REDACTED} Credential=AKIAFAKE/x, Signature={REDACTED}\n"
                            f"x-amz-security-token:{REDACTED}\nmonkey=3 keyboard=4 form token={REDACTED}&a=1")


def test_prose_is_not_redacted() -> None:
    """Log lines and messages that only mention credentials stay readable."""
    for text in ("EC2 answer is not XML: unclosed token: line 157, column 80",
                 "set LAMBDA_API_KEY (a Lambda Cloud API key, sent as a Bearer token)",
                 "the monkey=3 and the keyboard: 4", "no api-key: configured"):
        assert redact(text) == text


def test_remembered_values_are_blanked_anywhere() -> None:
    remember_secret("fake-redaction-value-9f8e")
    remember_secret("abc")  # too short to blank safely: ignored
    text = "path /subscriptions/fake-redaction-value-9f8e/skus abc"
    assert redact(text) == f"path /subscriptions/{REDACTED}/skus abc"


def test_log_records_are_redacted_at_creation(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    remember_secret("fake-log-secret-77aa")
    logging.getLogger("some.signer").debug("canonical request:\nx-amz-security-token:%s\n", "fake-log-secret-77aa")
    logging.getLogger("httpx").info("HTTP Request: %s %s", "GET", httpx.URL("http://h/x?key=AIzaLOG&a=1"))
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [f"canonical request:\nx-amz-security-token:{REDACTED}\n",
                        f"HTTP Request: GET http://h/x?key={REDACTED}&a=1"]


class _Echo(Provider):
    name = "echo"
    kind = "internal"


def test_error_body_echoing_a_secret_is_redacted_in_the_message() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, text=f"bad request, you sent {request.headers['authorization']} and "
                                        f"{request.url.params['key']}")

    client = httpx.Client(transport=httpx.MockTransport(handler))
    ctx = ProviderContext(_Echo(), client, mode="live", source=Source(mode="live"), gpus=Registry().gpus,
                          environ={"ECHO_TOKEN": "fake-echo-token-31c4"})
    token = ctx.secret("ECHO_TOKEN")
    assert token is not None
    with pytest.raises(ProviderError) as caught:
        ctx.request("GET", "http://echo.invalid/x", params={"key": "fake-echo-key-0d9e"},
                    headers={"Authorization": f"Bearer {token.get_secret_value()}"})
    client.close()
    # the token was read through ctx.secret(); the key only travelled in the query: both are blanked
    assert str(caught.value) == (f"HTTP 400 from GET http://echo.invalid/x: bad request, you sent Bearer "
                                 f"{REDACTED} and {REDACTED}")
    assert "fake-echo-token-31c4" not in (caught.value.body or "")


def test_a_short_bearer_token_is_not_registered_as_header_text() -> None:
    """Of ``Authorization: Bearer <token>`` only the token is kept as a credential (and only from 4 characters):
    registering the whole value ``Bearer t`` (a fetch with a 1-character token) turned every later "a Bearer
    token" in the process into "a REDACTEDoken"; a long token is still blanked, header and all."""
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("authorization", ""))
        return httpx.Response(200, json={"offers": [], "next": None})

    registry = Registry(entry_points=[], extra_plugins=[fakecloud.PLUGIN])
    for token in ("t", "long-bearer-token-5c2e"):
        engine = make_engine(registry, transport=httpx.MockTransport(answer), environ={"FAKECLOUD_TOKEN": token})
        try:
            engine.collect(["fakecloud"], mode="live")
        finally:
            engine.shutdown()
    assert seen[0] == "Bearer t" and seen[-1] == "Bearer long-bearer-token-5c2e", seen
    assert "Bearer t" not in known_secrets() and "long-bearer-token-5c2e" in known_secrets()
    assert redact("sent as a Bearer token") == "sent as a Bearer token"
    assert redact("the API echoed long-bearer-token-5c2e back") == f"the API echoed {REDACTED} back"


def test_a_traceback_that_cannot_be_formatted_still_gives_a_redacted_record(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    # CPython 3.11 formats a traceback with the ast module, which is not thread-safe (gh-106905): the record
    # factory must not raise from a log call (it would break the fetch that logged), and must not leak.
    remember_secret("sk-live-formatting-5678")

    def broken(self: logging.Formatter, exc_info: object) -> str:
        raise SystemError("AST constructor recursion depth mismatch")

    monkeypatch.setattr(logging.Formatter, "formatException", broken)
    log = logging.getLogger("gpuhub.test.redaction")
    with caplog.at_level(logging.DEBUG, logger="gpuhub.test.redaction"):
        try:
            raise ProviderError("rejected key sk-live-formatting-5678")
        except ProviderError:
            log.debug("fetch failed", exc_info=True)
    [record] = [r for r in caplog.records if r.name == "gpuhub.test.redaction"]
    assert record.exc_info is None
    assert record.exc_text == f"ProviderError: rejected key {REDACTED} (traceback could not be formatted)"
