"""The web API (``/api/``) against the CLI's JSON, over every installed provider's bundled data."""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")

from starlette.testclient import TestClient
from typer.testing import CliRunner

from gpuhub import Registry
from gpuhub.answer.params import PAGE_EXCLUDED, search_params
from gpuhub.answer.query import build_query
from gpuhub.cli.commands import app as cli_app
from gpuhub.fetch.plugins import reset_registry
from gpuhub.kit.testing import make_engine
from gpuhub.service.searching import reset_default_engine
from gpuhub.web.app import create_app

runner = CliRunner()


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    """The app over the installed plugins' bundled recordings; the same engine serves the CLI."""
    engine = make_engine(Registry())
    reset_registry(engine.registry)
    reset_default_engine(engine)
    with TestClient(create_app(engine)) as test_client:
        yield test_client
    reset_default_engine(None)
    reset_registry(None)
    engine.shutdown()


def cli_json(*args: str) -> object:
    result = runner.invoke(cli_app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize(("cli", "query"), [
    (["--gpu", "H100", "--min-gpus", "8", "--purchase", "on_demand", "--limit", "10"],
     "gpu=H100&min_gpus=8&purchase=on_demand&limit=10"),
    (["--workload", "inference", "--model", "70b", "--precision", "bf16", "--mode", "inference", "--near",
      "Frankfurt", "--max-rtt", "30", "--purchase", "on_demand", "--limit", "3"],
     "workload=inference&model=70b&precision=bf16&mode=inference&near=Frankfurt&max_rtt=30&purchase=on_demand"
     "&limit=3"),
    (["--provider", "aws", "--provider", "gcp", "--continent", "Europe", "--purchase", "spot", "--max-price", "2",
      "--exclude-fractional"],
     "provider=aws&provider=gcp&continent=Europe&purchase=spot&max_price=2&exclude_fractional=1"),
    (["--gpu", "A100", "--gpu", "A100-80GB", "--mig", "--available", "--sort", "price_per_gpu", "--limit", "50"],
     "gpu=A100,A100-80GB&mig=true&available=1&sort=price_per_gpu&limit=50"),
    (["--gpu", "H100", "--all-regions", "--limit", "30"], "gpu=H100&all_regions=1&limit=30"),
    (["--gpu", "H100", "--group-by", "provider"], "gpu=H100&group_by=provider"),
    ([], ""),
])
def test_api_search_equals_the_cli_json(client: TestClient, cli: list[str], query: str) -> None:
    expected = cli_json("search", *cli, "--format", "json")
    response = client.get(f"/api/search?{query}")
    assert response.status_code == 200, response.text
    assert response.json() == expected
    assert len(expected) == (20 if not cli else len(expected))  # the CLI's default limit holds for the API too


def test_the_first_h100_rows_are_the_bundled_prices(client: TestClient) -> None:
    offers = client.get("/api/search?gpu=H100&min_gpus=8&purchase=on_demand&provider=lambda&all_regions=1"
                        "&limit=3").json()
    assert [(o["provider"], o["instance_type"], o["region"], o["price_per_hour"], o["price_per_gpu_hour"])
            for o in offers] == [("lambda", "gpu_8x_h100_sxm5", r, 23.92, 2.99)
                                 for r in ("asia-northeast-1", "asia-northeast-2", "asia-south-1")]


def test_result_carries_statuses_and_filter_report(client: TestClient) -> None:
    data = client.get("/api/result?gpu=H100&min_gpus=8&purchase=on_demand&limit=5").json()
    every = client.get("/api/search?gpu=H100&min_gpus=8&purchase=on_demand&limit=5000").json()
    every = client.get("/api/search?gpu=H100&min_gpus=8&purchase=on_demand&all_regions=1&limit=5000").json()
    assert data["matched"] == len(every) > 5
    assert {p["provider"] for p in data["providers"]} >= {"aws", "azure", "coreweave", "gcp", "lambda"}
    assert data["removed_by"]["gpu"] > 0
    served = [p for p in data["providers"] if p["state"] in ("ok", "stale")]  # an example provider is skipped
    assert data["explain"][0].endswith(f"offers from {len(served)} providers")


def test_estimate_gpus_providers_rankers_equal_the_cli(client: TestClient) -> None:
    assert client.get("/api/estimate?instance_type=p5.48xlarge&hours=100").json() == cli_json(
        "estimate", "--instance-type", "p5.48xlarge", "--hours", "100", "--format", "json")
    spot = client.get("/api/estimate?instance_type=p5.48xlarge&hours=10&purchase=spot&region=us-east-1").json()
    assert spot == cli_json("estimate", "--instance-type", "p5.48xlarge", "--hours", "10", "--purchase", "spot",
                            "--region", "us-east-1", "--format", "json")
    first = client.get("/api/estimate?instance_type=p5.48xlarge&hours=100").json()["jobs"][0]
    assert (first["region"], first["cost"]) == ("us-east-1", 5504.0)
    disk = client.get("/api/estimate?instance_type=p5.48xlarge&hours=10&region=us-east-2&disk_gib=1000").json()
    assert disk == cli_json("estimate", "--instance-type", "p5.48xlarge", "--hours", "10", "--region", "us-east-2",
                            "--disk-gib", "1000", "--format", "json")
    [job] = disk["jobs"]  # 1000 GiB = 1073.741824 GB x 0.08 USD/GB-month (EBS gp3, us-east-2) x 10 h / 730 h
    assert job["disk_cost"] == pytest.approx(1073.741824 * 0.08 * 10 / 730, rel=1e-12)
    assert (job["cost"], job["cost_complete"]) == (551.58, True)
    for name in ("gpus", "providers", "rankers"):
        assert client.get(f"/api/{name}").json() == cli_json(name, "--format", "json")


@pytest.mark.parametrize(("query", "parameter", "message"), [
    ("purchase=cheap", "purchase", "'cheap' is not allowed; allowed values: on_demand, spot"),
    ("gpu=H1000", "gpu", "H100"),
    ("min_gpus=lots", "min_gpus", "expected a number, got 'lots'"),
    ("min_gpu=8", "min_gpu", "unknown parameter; did you mean min_gpus"),
    ("available=maybe", "available", "expected true or false, got 'maybe'"),
    ("max_rtt=20", "max_rtt", "needs a place to measure from"),
    ("limit=5001", "limit", "at most 5000 offers per request"),
    ("limit=0", "limit", "must be a whole number from 1 to 1000000"),
    ("near=Atlantis", "near", "Atlantis"),
    ("workload=gaming", "workload", "'gaming' is not a workload"),
    ("currency=usd1", "currency", "usd1"),
    ("sort=a&sort=b", "sort", "takes one value"),
    ("gpu=" + ",".join(["H100"] * 65), "gpu", "at most 64 values"),
])
def test_bad_parameters_are_400_naming_the_parameter(client: TestClient, query: str, parameter: str,
                                                     message: str) -> None:
    response = client.get(f"/api/search?{query}")
    assert response.status_code == 400, response.text[:300]
    error = response.json()["error"]
    assert error["parameter"] == parameter and message in error["message"], error


def test_cli_and_api_say_the_same_error(client: TestClient) -> None:
    cli = runner.invoke(cli_app, ["search", "--purchase", "cheap"])
    api = client.get("/api/search?purchase=cheap").json()["error"]
    assert f"--purchase: {api['message']}" in cli.stderr
    bad = client.get("/api/estimate?instance_type=p5.48xlarge&hours=-1").json()["error"]
    assert bad["parameter"] == "hours" and "positive" in bad["message"]
    assert client.get("/api/estimate?hours=1").json()["error"]["parameter"] == "instance_type"


def test_request_limits(client: TestClient) -> None:
    long = client.get("/api/search?region=" + "x" * 5000)
    assert long.status_code == 414 and long.json()["error"]["parameter"] == "query string"
    body = client.request("GET", "/api/search", content=b"x" * 10)
    assert body.status_code == 413
    assert client.post("/api/search").status_code == 405


def test_every_query_argument_is_a_web_parameter_and_in_openapi(client: TestClient) -> None:
    """A filter added to the parameter spec (gpuhub.answer.spec) reaches the form, the API and OpenAPI with no web
    code; this fails when build_query takes an argument the spec does not list."""
    arguments = set(inspect.signature(build_query).parameters) - {"gpus", "providers", "sellers", "rankers"}
    assert {p.argument for p in search_params()} - {"columns", "wide"} == arguments  # those two choose columns
    spec = client.get("/api/openapi.json").json()
    names = {p["name"] for p in spec["paths"]["/api/search"]["get"]["parameters"]}
    assert names == {p.name for p in search_params()} and {"gpu", "min_gpus", "near", "mode", "mig"} <= names
    assert spec["openapi"].startswith("3.1") and "/api/estimate" in spec["paths"]


def test_page_has_a_control_per_parameter_and_reports_errors(client: TestClient) -> None:
    page = client.get("/?gpu=H100&purchase=on_demand&all_regions=1")
    assert page.status_code == 200
    for param in search_params():
        assert f'name="{param.name}"' in page.text or param.name in PAGE_EXCLUDED, param.name
    matched = client.get("/api/result?gpu=H100&purchase=on_demand&limit=1").json()["matched"]
    assert matched > 100 and page.text.count('<tr data-key="') == 100 and f"{matched} of" in page.text
    assert 'value="on_demand" checked' in page.text and 'value="H100"' in page.text
    distinct = client.get("/?gpu=H100&purchase=on_demand")
    choices = len(client.get("/api/search?gpu=H100&purchase=on_demand&limit=5000").json())
    assert choices < matched and f"{choices} distinct choices" in distinct.text and " regions</span>" in distinct.text
    # the distinct choices are paged like the offers: 100 a page, every one on some page
    shown, page = [distinct.text.count('<tr data-key="')], 1
    while 'rel="next"' in distinct.text:
        page += 1
        distinct = client.get(f"/?gpu=H100&purchase=on_demand&page={page}")
        shown.append(distinct.text.count('<tr data-key="'))
    assert sum(shown) == choices and all(n == 100 for n in shown[:-1]) and 0 < shown[-1] <= 100, shown
    second = client.get("/?gpu=H100&purchase=on_demand&all_regions=1&page=2")
    assert second.text.count('<tr data-key="') == min(100, matched - 100) and 'rel="prev"' in second.text
    bad = client.get("/?min_gpus=lots")
    assert bad.status_code == 400 and "expected a number, got &#39;lots&#39;" in bad.text and 'role="alert"' in bad.text
