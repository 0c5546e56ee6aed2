"""``/api/plan/*``: the same records as ``gpuhub plan ... --format json``, on the bundled recordings."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")

from starlette.testclient import TestClient
from typer.testing import CliRunner

from gpuhub import Registry
from gpuhub.cli.commands import app as cli_app
from gpuhub.fetch.plugins import reset_registry
from gpuhub.kit.testing import make_engine
from gpuhub.service.searching import reset_default_engine
from gpuhub.web.app import create_app

runner = CliRunner()


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    registry = Registry()
    if "aws" not in registry.providers:
        pytest.skip("gpuhub-aws is not installed")
    engine = make_engine(registry)
    reset_registry(engine.registry)
    reset_default_engine(engine)
    with TestClient(create_app(engine)) as test_client:
        yield test_client
    reset_default_engine(None)
    reset_registry(None)
    engine.shutdown()


def test_arbitrage_api_answers_as_the_cli(client: TestClient) -> None:
    query = "instance_type=p5.48xlarge&gpus=8&hours_per_day=12&days_per_week=5&from=ap-southeast-3"
    api = client.get(f"/api/plan/arbitrage?{query}")
    assert api.status_code == 200, api.text
    cli = runner.invoke(cli_app, ["plan", "arbitrage", "--instance-type", "p5.48xlarge", "--gpus", "8",
                                  "--hours-per-day", "12", "--days-per-week", "5", "--from", "ap-southeast-3",
                                  "--format", "json"])
    assert cli.exit_code == 0, cli.output
    assert api.json() == json.loads(cli.stdout)
    assert api.json()["best_saving_per_month"] == 5452.90


def test_commitments_and_follow_the_sun_api(client: TestClient) -> None:
    plan = client.get("/api/plan/commitments?gpu=A100-80GB&gpus=2&months=12&provider=azure&gpus_per_instance=2")
    assert plan.status_code == 200, plan.text
    body = plan.json()
    assert body["total_per_month"] == round(sum(r["cost_per_month"] for r in body["rows"] if r["option"] == "mix"), 2)
    spans = ((0, 8), (8, 16), (16, 24))
    teams = "&".join(f"team=tz%3DUTC%2Cplace%3DLondon%2Chours%3D{a}-{b}%2Cgpus%3D8%2Cname%3Dt{a}" for a, b in spans)
    sun = client.get(f"/api/plan/follow-the-sun?gpu=H100&{teams}&week=2027-01-04&gpus_per_instance=8")
    assert sun.status_code == 200, sun.text
    shared = next(r for r in sun.json()["rows"] if r["option"] == "shared")
    assert shared["utilization_working_days"] == 1.0 and shared["gpus"] == 8


@pytest.mark.parametrize(("query", "parameter"), [
    ("plan/commitments?gpu=H100&gpus=-1", "gpus"),
    ("plan/commitments?gpu=H100&gpus=8&months=99", "months"),
    ("plan/commitments?gpu=H100&gpus=eight", "gpus"),
    ("plan/follow-the-sun?gpu=H100&team=tz%3DNowhere%2FLand%2Chours%3D9-17%2Cgpus%3D8", "team"),
    ("plan/arbitrage?instance_type=p5.48xlarge&from=mars-1", "from"),
    ("plan/arbitrage?instance_type=p5.48xlarge&colour=red", "colour"),
])
def test_plan_api_names_the_bad_parameter(client: TestClient, query: str, parameter: str) -> None:
    answer = client.get(f"/api/{query}")
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["parameter"] == parameter


def test_plan_routes_are_in_openapi(client: TestClient) -> None:
    paths = client.get("/api/openapi.json").json()["paths"]
    assert {"/api/plan/commitments", "/api/plan/follow-the-sun", "/api/plan/arbitrage"} <= set(paths)
