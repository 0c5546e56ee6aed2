"""Network, fabric, local disks, multi-node offers and egress (issue 28), with every plugin installed.

Facts asserted against their sources: AWS from the DescribeInstanceTypes data in the AWS recording (moto 5.2.1's
copy of AWS's answers: ``NetworkInfo``, ``EfaInfo``, ``InstanceStorageInfo``), Azure from Microsoft's size series
pages (``gpuhub_azure/data/network.csv`` names each), GCP's fabrics from Google's and dstack's documentation.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from gpuhub import QueryError
from tests.integration.conftest import Run, search_json

GB_TO_GIB = 10**9 / 2**30


@pytest.fixture(scope="module")
def fabrics(gpuhub_cli: Run) -> list[dict[str, Any]]:
    """Every offer that has an RDMA fabric, all plugins installed."""
    return search_json(gpuhub_cli, "--fabric", "any")[0]


def _one(records: list[dict[str, Any]], provider: str, instance_type: str) -> dict[str, Any]:
    return next(r for r in records if r["provider"] == provider and r["instance_type"] == instance_type)


def test_aws_network_efa_and_nvme_from_describe_instance_types(fabrics: list[dict[str, Any]]) -> None:
    p5 = _one(fabrics, "aws", "p5.48xlarge")
    assert (p5["fabric"], p5["fabric_interfaces"], p5["fabric_gbps"], p5["network_gbps"]) == ("EFA", 32, 3200, 3200)
    assert (p5["local_disks"], p5["local_disk_kind"]) == (8, "NVMe")
    assert p5["local_disk_gib"] == pytest.approx(8 * 3800 * GB_TO_GIB, abs=0.1)  # 8 x 3800 GB
    assert p5["network_source"].startswith("EC2 DescribeInstanceTypes")
    p4d = _one(fabrics, "aws", "p4d.24xlarge")  # "4x 100 Gigabit", 4 EFA, 8 x 1000 GB NVMe
    assert (p4d["network_gbps"], p4d["fabric_interfaces"], p4d["local_disks"]) == (400, 4, 8)
    assert p4d["local_disk_gib"] == pytest.approx(8000 * GB_TO_GIB, abs=0.1)
    g6e = _one(fabrics, "aws", "g6e.48xlarge")  # AWS's published 400 Gigabit wins over its four cards' sum
    assert (g6e["network_gbps"], g6e["fabric_interfaces"]) == (400, 4)


def test_burst_bandwidth_keeps_baseline_and_peak_apart(gpuhub_cli: Run) -> None:
    records, _ = search_json(gpuhub_cli, "--provider", "aws", "--instance-type", "g5.xlarge")
    g5 = records[0]
    # "Up to 10 Gigabit": 10 is the burst; the card's baseline is 2.5; no EFA on this size
    assert (g5["network_gbps"], g5["network_peak_gbps"], g5["fabric"]) == (2.5, 10, None)
    assert (g5["local_disks"], g5["local_disk_kind"]) == (1, "NVMe")
    assert g5["local_disk_gib"] == pytest.approx(250 * GB_TO_GIB, abs=0.1)


def test_azure_infiniband_from_the_size_documentation(fabrics: list[dict[str, Any]]) -> None:
    h100 = _one(fabrics, "azure", "Standard_ND96isr_H100_v5")
    assert (h100["fabric"], h100["fabric_gbps"], h100["fabric_interfaces"]) == ("InfiniBand", 3200, 8)
    assert (h100["network_gbps"], h100["local_disk_gib"]) == (80, 28000)
    assert "ND-H100-v5" in h100["network_source"]
    a100 = _one(fabrics, "azure", "Standard_ND96amsr_A100_v4")
    assert (a100["fabric_gbps"], a100["network_gbps"], a100["local_disk_gib"]) == (1600, 24, 6400)
    v100 = _one(fabrics, "azure", "Standard_ND40rs_v2")
    assert (v100["fabric"], v100["fabric_gbps"], v100["fabric_interfaces"]) == ("InfiniBand", 100, 1)


def test_gcp_fabrics_by_machine_type(fabrics: list[dict[str, Any]]) -> None:
    kinds = {r["instance_type"]: r["fabric"] for r in fabrics if r["provider"] == "gcp"}
    assert kinds["a3-highgpu-8g"] == "GPUDirect-TCPX"
    assert kinds["a3-megagpu-8g"] == "GPUDirect-TCPXO"
    assert kinds["a3-ultragpu-8g"] == "RoCE"
    assert "a3-highgpu-1g" not in kinds and "a2-highgpu-8g" not in kinds  # no documented fabric: unknown
    bandwidth = {r["fabric_gbps"] for r in fabrics if r["provider"] == "gcp"}
    assert bandwidth == {None}  # the sources disagree on it: unknown stays unknown


def test_unknown_network_never_passes_a_network_filter(gpuhub_cli: Run) -> None:
    records, _ = search_json(gpuhub_cli, "--min-network-gbps", "1")
    providers = {r["provider"] for r in records}
    assert "aws" in providers and "azure" in providers
    assert "lambda" not in providers and "runpod" not in providers  # their APIs say nothing about the network
    assert all(r["network_gbps"] >= 1 for r in records)
    nvme, _ = search_json(gpuhub_cli, "--local-nvme", "--min-local-disk-gib", "20000")
    assert nvme and {r["local_disk_kind"] for r in nvme} == {"NVMe"}
    assert all(r["local_disk_gib"] >= 20000 for r in nvme)
    assert "p5.48xlarge" in {r["instance_type"] for r in nvme}


def test_h100_over_infiniband_includes_a_neocloud_with_its_fabric_and_source(gpuhub_cli: Run) -> None:
    """Issue 28: the public CLI with every plugin installed finds an H100 node on InfiniBand beyond the three
    hyperscalers: CoreWeave's HGX H100 (CKS type gd-8xh100ib-i128), its fabric named and its source CoreWeave's
    documentation; no rate is published there, so none is claimed."""
    records = json.loads(gpuhub_cli("search", "--gpu", "H100", "--fabric", "infiniband", "--format", "json",
                                    "--limit", "1000").stdout)
    assert records and {r["fabric"] for r in records} == {"InfiniBand"}
    others = [r for r in records if r["provider"] not in ("aws", "azure", "gcp")]
    assert {r["provider"] for r in others} == {"coreweave"}
    hgx = next(r for r in others if r["instance_type"] == "HGX H100" and r["purchase"] == "on_demand")
    assert (hgx["fabric"], hgx["fabric_gbps"], hgx["gpu_count"], hgx["price_per_hour"]) == ("InfiniBand", None, 8,
                                                                                         49.24)
    assert hgx["network_source"].startswith("CoreWeave docs") and "gd-8xh100ib-i128" in hgx["network_source"]


def test_two_nodes_over_infiniband_name_the_fabric_and_the_cluster_price(gpuhub_cli: Run) -> None:
    done = gpuhub_cli("search", "--gpu", "H100", "--nodes", "2", "--fabric", "infiniband", "--min-gpus", "8",
                      "--purchase", "on_demand", "--limit", "3", "--explain")
    first = next(line for line in done.stdout.splitlines() if "Standard_ND96isr_H100_v5" in line)
    assert "InfiniBand 3,200" in first and "196.64 USD" in first  # 2 x 98.32
    assert "2 nodes: 16 GPUs at 196.64 USD/h, InfiniBand 3,200 Gbps (8 interfaces) between them" in done.stderr
    records = json.loads(gpuhub_cli("search", "--gpu", "H100", "--nodes", "2", "--fabric", "efa", "--format",
                                    "json", "--limit", "50", "--purchase", "on_demand").stdout)
    assert records and {r["fabric"] for r in records} == {"EFA"}
    for r in records:
        assert r["nodes"] == 2 and r["cluster_gpus"] == 2 * r["gpu_count"]
        assert Decimal(str(r["cluster_price_per_hour"])) == 2 * Decimal(str(r["price_per_hour"]))
    p5 = next(r for r in records if r["instance_type"] == "p5.48xlarge" and r["region"] == "us-east-1")
    assert p5["cluster_price_per_hour"] == 110.08  # 2 x 55.04


def test_nodes_without_a_fabric_are_left_out_and_counted(python_search: Any) -> None:
    result = python_search(gpu="H100", nodes=2, limit=5)
    assert result.removed_by["nodes"] > 0
    assert all(o.instance.fabric is not None for o in result.offers)
    single = python_search(gpu="H100", limit=5)
    assert "nodes" not in single.removed_by
    with pytest.raises(QueryError, match=r"nodes.*whole number from 1 to 4096"):
        python_search(gpu="H100", nodes=1.5)


def test_a_model_too_big_for_one_node_names_the_fabric_between_nodes(gpuhub_cli: Run) -> None:
    done = gpuhub_cli("search", "--model", "405b", "--mode", "training", "--provider", "aws", "--limit", "3",
                      "--explain", check=False)
    assert "p5" in done.stderr or "p6" in done.stderr, done.stderr
    assert "between them" in done.stderr and "EFA" in done.stderr


@pytest.mark.parametrize(("args", "message"), [
    (("--nodes", "0"), "--nodes: must be a whole number from 1 to 4096, got 0"),
    (("--nodes", "1.5"), "Invalid value for '--nodes'"),  # typer's integer check names it too
    (("--fabric", "banana"), "--fabric: 'banana' is not allowed; allowed values: efa, infiniband, roce, gpudirect, "
                             "any"),
    (("--min-network-gbps", "-1"), "--min-network-gbps"),
])
def test_bad_network_arguments_name_the_argument(gpuhub_cli: Run, args: tuple[str, ...], message: str) -> None:
    done = gpuhub_cli("search", *args, check=False)
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_estimate_adds_egress_with_its_source(gpuhub_cli: Run) -> None:
    done = gpuhub_cli("estimate", "--instance-type", "p5.48xlarge", "--hours", "10", "--egress-gb", "500",
                      "--region", "us-east-1", "--region", "us-west-2", "--format", "json")
    jobs = {j["region"]: j for j in json.loads(done.stdout)["jobs"]}
    east = jobs["us-east-1"]
    assert (east["egress_cost"], east["cost"]) == (45.0, 595.40)  # 10 h x 55.04 + 500 GB x 0.09
    assert any("egress 500 GB" in n and "0.09 USD/GB = 45.00 USD" in n and "re:Post" in n for n in east["notes"])
    west = jobs["us-west-2"]
    assert west["egress_cost"] is None and west["cost"] == 550.40
    assert any("no published egress price known for aws in us-west-2" in n for n in west["notes"])
    bad = gpuhub_cli("estimate", "--instance-type", "p5.48xlarge", "--hours", "10", "--egress-gb", "-5", check=False)
    assert bad.returncode == 2 and "--egress-gb" in bad.stderr
