"""No credential is ever written: record mode with fake credentials of every kind, then scan everything.

Through ``gpuhub record``'s code path (``Engine.collect(mode="record", record_dir=...)``) against the loopback fault
server, with a fake credential of each kind: Bearer tokens (fakecloud, Lambda), an API key in the query string
(GCP), an AWS access key pair with a session token (SigV4-signed requests), Azure service-principal values and an
ARM Bearer token (from a stand-in ``azure.identity``). Scanned: every file written (names and bytes), every log
record at DEBUG (all loggers, httpx and httpcore included), every status, reason and warning, error messages,
and ``repr`` of the engine, registry and provider contexts. Two walks per provider: a clean one, and one where the
server answers a request with a 400 error that echoes back every header, the query and the body it got.
"""

from __future__ import annotations

import logging
import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from faultserver import Fault, FaultServer
from harness import LoopbackOnly, case_or_skip, live_engine, live_env, serving
from provider_cases import CASES, ProviderCase

from gpuhub import Registry
from gpuhub.fetch.provider import ProviderContext, ProviderStatus
from gpuhub.fetch.recording import known_secrets, redact
from gpuhub.model import Source

ARM_BEARER = "fake-azure-arm-bearer-eyJ0eXAiOiJKV1QiLCJhbGciOi.gpuhub"
"""The ARM access token the stand-in azure.identity hands out."""
NOT_SECRET = ("GPUHUB_",)


def secrets_of(case: ProviderCase) -> dict[str, str]:
    """The credential values of a case (settings like GPUHUB_*_REGIONS are not secrets)."""
    values = {k: v for k, v in case.env.items() if v and not k.startswith(NOT_SECRET)}
    if case.name == "azure":
        values["ARM bearer token"] = ARM_BEARER
    return values


@pytest.fixture
def fake_azure_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in ``azure.identity`` whose ClientSecretCredential returns :data:`ARM_BEARER` (no network)."""

    class _Token:
        token = ARM_BEARER

    class ClientSecretCredential:
        def __init__(self, tenant_id: str, client_id: str, client_secret: str) -> None:
            self.args = (tenant_id, client_id, client_secret)

        def get_token(self, *scopes: str) -> _Token:
            return _Token()

    azure = types.ModuleType("azure")
    identity = types.ModuleType("azure.identity")
    identity.ClientSecretCredential = ClientSecretCredential  # type: ignore[attr-defined]
    azure.identity = identity  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "azure", azure)
    monkeypatch.setitem(sys.modules, "azure.identity", identity)


def _scan_files(root: Path, secrets: dict[str, str]) -> list[str]:
    hits = []
    for path in sorted(root.rglob("*")):
        for name, value in secrets.items():
            if value in str(path.relative_to(root)):
                hits.append(f"{name} in file name {path}")
            if path.is_file() and value.encode() in path.read_bytes():
                hits.append(f"{name} in {path.relative_to(root)}")
    return hits


def _scan_text(where: str, text: str, secrets: dict[str, str]) -> list[str]:
    return [f"{name} in {where}: ...{text[max(0, text.find(v) - 60):text.find(v) + len(v) + 20]!r}..."
            for name, v in secrets.items() if v in text]


def _record(registry: Registry, case: ProviderCase, server: FaultServer, record_dir: Path,
            transport: LoopbackOnly) -> tuple[tuple[Any, ...], ProviderStatus, str]:
    env = live_env(registry, case, server)
    if case.name == "azure":
        env["GPUHUB_AZURE_ARM_BASE_URL"] = server.url + "/management.azure.com"
    engine = live_engine(registry, env, transport)
    try:
        [(offers, status)] = engine.collect([case.name], mode="record", record_dir=record_dir)
        reprs = " ".join([repr(engine), repr(registry), str(vars(engine).get("_environ") is not None),
                          repr(engine.registry.providers[case.name])])
    finally:
        engine.shutdown()
    return offers, status, reprs


def _sent(server: FaultServer, value: str) -> bool:
    return any(value in repr(s.headers) or value in s.query or value.encode() in s.body for s in server.log)


@pytest.fixture
def debug_logs(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    caplog.set_level(logging.DEBUG)
    for name in ("httpx", "httpcore", "gpuhub"):
        caplog.set_level(logging.DEBUG, logger=name)
    yield caplog


@pytest.mark.parametrize("provider", [c.name for c in CASES])
@pytest.mark.parametrize("variant", ["clean", "echoed_error"])
@pytest.mark.usefixtures("fake_azure_identity")
def test_no_secret_written(provider: str, variant: str, rel_registry: Registry, tmp_path: Path,
                           transport: LoopbackOnly, debug_logs: pytest.LogCaptureFixture) -> None:
    case = case_or_skip(rel_registry, provider)
    secrets = secrets_of(case)
    if not secrets and not rel_registry.providers[provider].credentials:
        pytest.skip(f"{provider} needs no credentials (a public price list): no secret to leak")
    assert secrets, "a case without credentials checks nothing"
    with serving(rel_registry, case) as server:
        if variant == "echoed_error":
            server.inject(Fault.reflect(400), match=case.secret_match or case.fault_match)
        if case.name == "azure":  # Resource SKUs answer: an empty list (specs then come from the bundled table)
            server.inject(Fault.raw(b'{"value": []}'), match="/subscriptions/")
        offers, status, reprs = _record(rel_registry, case, server, tmp_path, transport)
        assert not transport.escapes, transport.escapes
        sent = {name for name, value in secrets.items() if _sent(server, value)}
    # the test can fail: credentials really went over the wire (the AWS secret key only signs; Azure's
    # service-principal values only go to the identity library)
    must_send = {n for n in secrets if n not in ("AWS_SECRET_ACCESS_KEY", "AZURE_CLIENT_ID", "AZURE_TENANT_ID",
                                                  "AZURE_CLIENT_SECRET", "AZURE_SUBSCRIPTION_ID")}
    assert must_send <= sent, f"never sent: {sorted(must_send - sent)}"
    written = list((tmp_path / case.name).rglob("*"))
    if variant == "clean":
        assert status.state == "ok", status.line()
        assert (tmp_path / case.name / "manifest.json").is_file()
    elif case.name == "azure":  # Resource SKUs are optional: their failure is a warning, not a failed provider
        assert status.state == "ok", status.line()
        assert any("Resource SKUs unavailable" in w and "400" in w for w in status.warnings), status.to_dict()
    else:
        assert status.state == "failed", status.line()
        assert "400" in (status.reason or ""), status.line()
    assert written or variant != "clean"
    hits = _scan_files(tmp_path, secrets)
    hits += _scan_text("status", repr(status) + str(status.to_dict()) + status.line(), secrets)
    hits += _scan_text("offers", repr(offers[:50]), secrets)
    hits += _scan_text("repr", reprs, secrets)
    for record in debug_logs.records:
        hits += _scan_text(f"log {record.name}:{record.levelname}", record.getMessage() + str(record.exc_text or ""),
                           secrets)
    assert not hits, "\n".join(hits)


def test_context_repr_and_secret_types(rel_registry: Registry) -> None:
    """A context built with credentials prints none of them; ``secret()`` hands out a SecretStr that prints stars."""
    environ = {k: v for case in CASES for k, v in secrets_of(case).items()}
    provider = rel_registry.providers["fakecloud"]
    client = httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(200)))
    ctx = ProviderContext(provider, client, mode="live", source=Source(mode="live"), gpus=rel_registry.gpus,
                          environ=environ)
    try:
        value = ctx.secret("FAKECLOUD_TOKEN")
        assert value is not None and value.get_secret_value() == environ["FAKECLOUD_TOKEN"]
        texts = [repr(ctx), str(ctx), repr(value), str(value), f"{value}", repr(ctx.report)]
        for text in texts:
            for name, secret in environ.items():
                assert secret not in text, f"{name} printed by {text[:80]!r}"
    finally:
        client.close()


def test_signed_requests_register_the_credentials_not_each_signature(rel_registry: Registry,
                                                                    transport: LoopbackOnly) -> None:
    """The process-wide registry of credential values (what every log record and message is redacted against)
    holds AWS's access key and session token, not the signature, time stamp and payload hash SigV4 derives for
    each request: those made it grow by ~80 values per AWS walk, so in a long-lived process (a notebook, ``gpuhub
    serve``) every search redacted more slowly than the last (after test_obtain_faults' walks a record run here
    timed out at 20 s with 21 of its 102 requests sent)."""
    case = case_or_skip(rel_registry, "aws")
    walks = []
    for _ in range(2):
        with serving(rel_registry, case) as server:
            engine = live_engine(rel_registry, live_env(rel_registry, case, server), transport, timeout_s=120.0)
            try:
                [(offers, status)] = engine.collect(["aws"], mode="live", refresh=True)
            finally:
                engine.shutdown()
            assert status.state == "ok" and offers, status.line()
            assert any(k.lower() == "authorization" and v.startswith("AWS4-HMAC-SHA256")
                       for seen in server.log for k, v in seen.headers.items())
        walks.append(known_secrets())
    first, second = walks
    assert {case.env["AWS_ACCESS_KEY_ID"], case.env["AWS_SESSION_TOKEN"]} <= first
    assert second == first, sorted(second - first)[:3]
    assert not [v for v in second if "Signature=" in v or re.fullmatch(r"\d{8}T\d{6}Z", v)]
    # ... and the signature is still blanked by name where it could be written
    assert "AKIAFAKEGPUHUB7EXAMPLE" not in redact("Credential=AKIAFAKEGPUHUB7EXAMPLE/20261201/us-east-1/ec2")
