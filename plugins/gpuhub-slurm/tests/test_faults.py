"""gpuhub-slurm under faults, through the HTTP seam: slurmrestd answering 401, 500, nothing (a timeout) or JSON
that is not its shape, after a good read: each refresh fails with the reason named, the last good offers are served
marked stale, and the token appears in no status."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from gpuhub.plugin import CountingTransport, Registry, ReplayTransport, load_manifest, make_engine, run_provider

RECORDING = Path(__file__).resolve().parents[1] / "gpuhub_slurm" / "recording"
TOKEN = "fault-matrix-slurm-jwt-0123456789abcdef"
ENVIRON = {"GPUHUB_SLURM_URL": "https://slurm.hpc-west.example.internal:6820", "SLURM_JWT": TOKEN,
           "GPUHUB_SLURM_USER": "gpuhub", "GPUHUB_SLURM_CLUSTER_NAME": "hpc-west",
           "GPUHUB_SLURM_SETTINGS": str(RECORDING / "settings.toml")}


def _unauthorized(request: httpx.Request) -> httpx.Response:
    return httpx.Response(401, json={"errors": [{"error": "Authentication failure", "error_number": 1007,
                                                 "description": "Authentication failure", "source": ""}]})


def _server_error(request: httpx.Request) -> httpx.Response:
    return httpx.Response(500, json={"errors": [{"error": "Unspecified error", "error_number": 1,
                                                 "description": "slurmctld not responding", "source": ""}]})


def _timeout(request: httpx.Request) -> httpx.Response:
    raise httpx.ReadTimeout("timed out", request=request)


def _not_json(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, content=b'{"nodes": [{"name": "h100-01", "gres": ', headers={
        "content-type": "application/json"})


def _wrong_shape(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"meta": {}, "errors": [], "warnings": []})


def _slurm_errors(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"nodes": [], "errors": [{"error": "Unable to query nodes",
                                                               "description": "slurmctld is busy"}]})


@pytest.mark.parametrize(("fault", "reason"), [
    (_unauthorized, "SLURM_JWT"),
    (_server_error, "500"),
    (_timeout, "ReadTimeout"),
    (_not_json, "did not return JSON"),
    (_wrong_shape, "not slurmrestd's shape"),
    (_slurm_errors, "slurmctld is busy"),
], ids=["401", "500", "timeout", "malformed-json", "wrong-shape", "slurm-errors"])
def test_a_failed_refresh_keeps_the_last_good_offers(fault: object, reason: str) -> None:
    replay = ReplayTransport(load_manifest(RECORDING))
    state = {"fail": False}

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        if state["fail"]:
            return fault(request)  # type: ignore[operator]
        return replay.handle_request(request)

    engine = make_engine(Registry(), transport=CountingTransport(handler), environ=ENVIRON)
    try:
        good, first = run_provider(engine, "slurm", mode="live")
        assert first.state == "ok" and good, first.line()
        state["fail"] = True
        offers, status = run_provider(engine, "slurm", mode="live", refresh=True)
    finally:
        engine.shutdown()
    assert status.state == "stale", status.line()
    assert reason in (status.reason or ""), status.line()
    assert [(o.instance_type, o.available_count) for o in offers] == [(o.instance_type, o.available_count)
                                                                       for o in good]
    assert TOKEN not in json.dumps(status.to_dict())


@pytest.mark.parametrize("fault", [_unauthorized, _server_error, _timeout, _not_json],
                         ids=["401", "500", "timeout", "malformed-json"])
def test_without_good_data_the_failure_is_named(fault: object) -> None:
    engine = make_engine(Registry(), transport=CountingTransport(lambda request, n: fault(request)),  # type: ignore[operator]
                         environ=ENVIRON)
    try:
        offers, status = run_provider(engine, "slurm", mode="live")
    finally:
        engine.shutdown()
    assert status.state == "failed" and offers == ()
    assert status.reason and TOKEN not in status.reason
