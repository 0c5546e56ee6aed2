"""``gpuhub mcp`` driven by the MCP SDK's own client over stdio: the tools are listed with input schemas from the
parameter spec, every tool answers, ``search`` answers exactly what ``/api/search`` answers for the same query, and
a bad argument is a tool error naming it."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed: pip install 'gpuhub-core[mcp]'")
pytest.importorskip("starlette", reason="the web extra is not installed: pip install 'gpuhub-core[web]'")

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from starlette.testclient import TestClient

from gpuhub import Registry
from gpuhub.answer.spec import SEARCH_PARAMS
from gpuhub.kit.testing import make_engine
from gpuhub.store import open_store
from gpuhub.web.app import create_app

SEARCH = {"gpu": ["H100"], "min_gpus": 8, "purchase": ["on_demand"], "limit": 10}
SEARCH_URL = "gpu=H100&min_gpus=8&purchase=on_demand&limit=10"
CALLS: dict[str, dict[str, Any]] = {
    "search": SEARCH,
    "explain": {"gpu": "H100", "provider": ["lambda"], "min_gpus": 8, "all_regions": True, "limit": 3},
    "estimate": {"instance_type": "gpu_8x_h100_sxm5", "hours": 10, "provider": "lambda"},
    "compare": {"instance_type": "p5.48xlarge", "hours": 100, "region": ["us-east-1"]},
    "history": {"provider": ["lambda"], "since": "all"},
    "gpus": {},
    "providers": {},
}
BAD: dict[str, tuple[str, dict[str, Any]]] = {  # a label: (tool, arguments)
    "unknown argument": ("search", {"min_gpu": 8}),
    "wrong type": ("search", {"min_gpus": "eight"}),
    "not allowed": ("search", {"purchase": ["cheap"]}),
    "flag not a bool": ("search", {"mig": "yes please"}),
    "missing": ("estimate", {"instance_type": "p5.48xlarge"}),
    "bad number": ("estimate", {"instance_type": "p5.48xlarge", "hours": "forever"}),
}


async def _session() -> dict[str, Any]:
    env = dict(os.environ)
    server = StdioServerParameters(command=sys.executable, args=["-m", "gpuhub.cli", "mcp", "--fetch", "replay"],
                                   env=env)
    out: dict[str, Any] = {"calls": {}, "bad": {}}
    with open(os.devnull, "w") as errlog:
        async with stdio_client(server, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            out["tools"] = (await session.list_tools()).tools
            for name, arguments in CALLS.items():
                out["calls"][name] = await session.call_tool(name, arguments)
            for label, (name, arguments) in BAD.items():
                out["bad"][label] = await session.call_tool(name, arguments)
    return out


@pytest.fixture(scope="module")
def session() -> dict[str, Any]:
    """One server process for the module: its tool list, each tool's answer, each bad call's answer."""
    return anyio.run(_session)


@pytest.fixture(scope="module")
def api() -> Iterator[TestClient]:
    """The web API over the same store as the server process (the default store of this test process's
    environment), so their histories are the same."""
    engine = make_engine(Registry(), store=open_store())
    with TestClient(create_app(engine, fetch="replay")) as client:
        yield client
    engine.shutdown()


def _json(result: Any) -> Any:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def test_the_seven_tools_are_listed_with_schemas_from_the_spec(session: dict[str, Any]) -> None:
    tools = {t.name: t for t in session["tools"]}
    assert list(tools) == ["search", "explain", "estimate", "compare", "history", "gpus", "providers"]
    search = tools["search"].input_schema
    assert list(search["properties"]) == [p.url_name for p in SEARCH_PARAMS]  # one spec, every surface
    assert search["additionalProperties"] is False
    assert search["properties"]["min_gpus"] == {"type": "number", "minimum": 0,
                                                "description": "minimum GPUs per instance"}
    assert search["properties"]["limit"]["default"] == 20
    assert "spot" in search["properties"]["purchase"]["items"]["enum"]
    assert {"aws", "gcp", "lambda"} <= set(search["properties"]["provider"]["items"]["enum"])
    assert tools["estimate"].input_schema["required"] == ["instance_type", "hours"]
    assert tools["estimate"].input_schema["properties"]["disk_gib"]["type"] == "number"  # attached storage, issue 28
    assert all(len(t.description) > 200 for t in tools.values())  # enough for an agent to pick the right one


def test_search_answers_what_api_search_answers(session: dict[str, Any], api: TestClient) -> None:
    offers = _json(session["calls"]["search"])
    response = api.get(f"/api/search?{SEARCH_URL}")
    assert response.status_code == 200, response.text
    assert offers == response.json()
    assert len(offers) == 10 and all(o["gpu_name"] == "H100" and o["gpu_count"] == 8 for o in offers)


def test_every_tool_answers_with_the_api_json(session: dict[str, Any], api: TestClient) -> None:
    calls = session["calls"]
    explained = _json(calls["explain"])
    assert [(o["instance_type"], o["region"], o["price_per_hour"]) for o in explained["offers"]] == [
        ("gpu_8x_h100_sxm5", r, 23.92) for r in ("asia-northeast-1", "asia-northeast-2", "asia-south-1")]
    expected = api.get("/api/result?gpu=H100&provider=lambda&min_gpus=8&all_regions=1&limit=3").json()
    states = [(s["provider"], s["state"]) for s in explained.pop("providers")]  # times differ between processes
    assert states == [(s["provider"], s["state"]) for s in expected.pop("providers")]
    assert explained == expected
    estimate = _json(calls["estimate"])
    assert estimate == api.get("/api/estimate?instance_type=gpu_8x_h100_sxm5&hours=10&provider=lambda").json()
    assert estimate["jobs"][0]["cost"] == 239.2 and estimate["jobs"][0]["currency"] == "USD"
    compare = _json(calls["compare"])
    assert compare == api.get("/api/compare?instance_type=p5.48xlarge&hours=100&region=us-east-1").json()
    assert compare["hours"] == 100 and {"on_demand", "spot"} <= {o["purchase"] for o in compare["options"]}
    history = _json(calls["history"])
    assert history == api.get("/api/history?provider=lambda&since=all").json()
    assert history["snapshots"] >= 1 and {s["provider"] for s in history["series"]} == {"lambda"}
    assert history["series"][0]["instance_type"] == "gpu_1x_rtx6000"  # cheapest last price first
    gpus = _json(calls["gpus"])
    assert gpus == api.get("/api/gpus").json() and any(g["name"] == "H100" for g in gpus)
    providers = _json(calls["providers"])
    assert [p["provider"] for p in providers] == [p["provider"] for p in api.get("/api/providers").json()]


@pytest.mark.parametrize(("label", "argument", "words"), [
    ("unknown argument", "min_gpu", "did you mean min_gpus"),
    ("wrong type", "min_gpus", "eight"),
    ("not allowed", "purchase", "allowed values"),
    ("flag not a bool", "mig", "expected true or false"),
    ("missing", "hours", "is required"),
    ("bad number", "hours", "expected a number"),
])
def test_a_bad_argument_is_a_tool_error_naming_it(session: dict[str, Any], label: str, argument: str,
                                                  words: str) -> None:
    result = session["bad"][label]
    assert result.is_error
    error = json.loads(result.content[0].text)["error"]
    assert error["parameter"] == argument and words in error["message"], error
