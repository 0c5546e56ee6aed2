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
    (("--nodes", "1.5"), "--nodes: '1.5' is not a whole number"),
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
    assert any("no published egress price known for aws in this region" in n for n in west["notes"])
    bad = gpuhub_cli("estimate", "--instance-type", "p5.48xlarge", "--hours", "10", "--egress-gb", "-5", check=False)
    assert bad.returncode == 2 and "--egress-gb" in bad.stderr


def _ranked(records: list[dict[str, Any]], region: str) -> list[str]:
    """Instance types in rank order, each once (its first offer in ``region``)."""
    seen: list[str] = []
    for r in records:
        if r["region"] == region and r["instance_type"] not in seen:
            seen.append(r["instance_type"])
    return seen


def test_training_across_nodes_weighs_the_fabric_per_gpu(gpuhub_cli: Run) -> None:
    # p5.4xlarge sells one H100 at 6.88 USD/h, p5.48xlarge eight at 55.04: the same 6.88 per GPU-hour. One node:
    # they tie on 55.04 / (8 x 989.5 BF16 TFLOPS) and the cheaper instance goes first. Two nodes: p5.4xlarge has
    # 100 Gbps of EFA for its GPU, a quarter of the 400 needed: x (1 - 0.25 x 0.75) = 0.8125, and p5.48xlarge
    # (3,200 Gbps for 8) goes first.
    args = ("--gpu", "H100", "--purchase", "on_demand", "--workload", "training", "--provider", "aws")
    one, _ = search_json(gpuhub_cli, *args)
    two, _ = search_json(gpuhub_cli, *args, "--nodes", "2")
    single = {r["instance_type"]: r["score"] for r in one if r["region"] == "us-east-1"}
    assert single["p5.4xlarge"] == single["p5.48xlarge"] == pytest.approx(55.04 / (8 * 989.5), rel=1e-12)
    assert _ranked(one, "us-east-1").index("p5.4xlarge") < _ranked(one, "us-east-1").index("p5.48xlarge")
    double = {r["instance_type"]: r for r in two if r["region"] == "us-east-1"}
    assert double["p5.48xlarge"]["score"] == pytest.approx(55.04 / (8 * 989.5), rel=1e-12)
    assert double["p5.4xlarge"]["score"] == pytest.approx(6.88 / (989.5 * 0.8125), rel=1e-12)
    assert _ranked(two, "us-east-1")[:2] == ["p5.48xlarge", "p5.4xlarge"]
    assert "data path × 0.812: fabric × 0.812 (100 Gbps per GPU of 400 needed)" in double["p5.4xlarge"]["explanation"]
    assert "data path" not in double["p5.48xlarge"]["explanation"]


def test_training_on_one_node_weighs_network_and_local_disk(gpuhub_cli: Run) -> None:
    # g5.xlarge: 1 x A10G (70 BF16 TFLOPS) at 1.006 USD/h, 2.5 Gbps baseline and 250 GB (232.8 GiB) of NVMe.
    # g6.8xlarge: 1 x L4 (121 TFLOPS) at 2.0144 USD/h, 25 Gbps, 900 GB. By throughput alone g5.xlarge wins
    # (0.01437 < 0.01665); its data path (network x 0.85, local disk x 0.947) puts g6.8xlarge first.
    records, _ = search_json(gpuhub_cli, "--instance-type", "g5.xlarge", "--instance-type", "g6.8xlarge", "--region",
                             "us-east-1", "--purchase", "on_demand", "--workload", "training")
    assert 1.006 / 70 < 2.0144 / 121
    assert _ranked(records, "us-east-1") == ["g6.8xlarge", "g5.xlarge"]
    g5 = next(r for r in records if r["instance_type"] == "g5.xlarge")
    assert g5["local_disk_gib"] == 232.8
    factor = (1 - 0.2 * (1 - 2.5 / 10)) * (1 - 0.1 * (1 - 232.8 / 500))
    assert g5["score"] == pytest.approx(1.006 / (70 * factor), rel=1e-12)
    assert ("data path × 0.805: network × 0.85 (2.5 Gbps per GPU of 10 needed), local disk × 0.947 (233 GiB per "
            "GPU of 500 needed)") in g5["explanation"]
    g6 = next(r for r in records if r["instance_type"] == "g6.8xlarge")
    assert g6["score"] == pytest.approx(2.0144 / 121, rel=1e-12) and "data path" not in g6["explanation"]
    science, _ = search_json(gpuhub_cli, "--instance-type", "g5.xlarge", "--region", "us-east-1", "--purchase",
                             "on_demand", "--workload", "data-science")
    # 4 vCPUs and 16 GiB for one GPU: balance 0.5 x 0.25, times the same data path
    assert science[0]["score"] == pytest.approx(1.006 / (0.5 * 0.25 * factor), rel=1e-12)


def test_unknown_network_is_neither_rewarded_nor_punished(gpuhub_cli: Run) -> None:
    records, _ = search_json(gpuhub_cli, "--provider", "lambda", "--instance-type", "gpu_1x_h100_pcie",
                             "--purchase", "on_demand", "--workload", "training")
    assert records and all(r["network_gbps"] is None for r in records)
    for r in records:  # no network figure: the score is price / TFLOPS alone (H100 PCIe, 756 BF16 TFLOPS)
        assert r["score"] == pytest.approx(r["price_per_hour"] / 756, rel=1e-12)
        assert "data path" not in r["explanation"]


def test_explain_says_when_the_cpu_share_starves_the_gpus(gpuhub_cli: Run) -> None:
    note = "16 vCPUs for 8 GPUs (2 per GPU, under 4): data loading and preprocessing would starve the GPUs"
    for workload in ("training", "data-science"):
        done = gpuhub_cli("search", "--instance-type", "n1-standard-16+nvidia-tesla-v100x8", "--region", "us-central1",
                          "--purchase", "on_demand", "--workload", workload, "--explain")
        assert note in done.stderr, done.stderr
    rendering = gpuhub_cli("search", "--instance-type", "n1-standard-16+nvidia-tesla-v100x8", "--region",
                           "us-central1", "--purchase", "on_demand", "--workload", "rendering", "--explain")
    assert "vCPUs for 8 GPUs" not in rendering.stderr


def test_explain_says_a_multi_node_job_without_a_fabric_starves(gpuhub_cli: Run) -> None:
    done = gpuhub_cli("search", "--provider", "lambda", "--gpu", "H100", "--nodes", "2", "--workload", "training",
                      "--explain", check=False)
    assert ("--nodes alone removed" in done.stderr and "lambda gpu_8x_h100_sxm5" in done.stderr
            and "no RDMA fabric known between gpu_8x_h100_sxm5 instances: a 2-node job would exchange gradients over "
                "its network (bandwidth unknown), which starves the GPUs" in done.stderr), done.stderr


@pytest.mark.parametrize(("provider", "instance_type", "region", "price"), [
    ("lambda", "gpu_1x_h100_pcie", "asia-northeast-1", 2.49),
    ("runpod", "1x_H100-SXM_SECURE", "CA", 2.69),
    ("hyperstack", "n3-H100x1", "CANADA-1", 1.9),
])
def test_neoclouds_publish_free_egress(gpuhub_cli: Run, provider: str, instance_type: str, region: str,
                                       price: float) -> None:
    done = gpuhub_cli("estimate", "--instance-type", instance_type, "--provider", provider, "--region", region,
                      "--hours", "10", "--egress-gb", "500", "--format", "json")
    [job] = json.loads(done.stdout)["jobs"]
    assert (job["egress_cost"], job["cost_complete"], job["cost"]) == (0.0, True, round(price * 10, 2))
    assert any(n.startswith(f"egress 500 GB × 0.00 USD/GB = 0.00 USD ({provider}, ") for n in job["notes"])


@pytest.mark.parametrize(("provider", "instance_type", "region", "disk", "note"), [
    # 1000 GiB = 1073.741824 GB
    ("aws", "p5.48xlarge", "us-east-2", 1073.741824 * 0.08 * 10 / 730,
     "disk 1000 GiB = 1073.7 GB × 0.08 USD/GB-month × 10 h / 730 h = 1.18 USD (EBS gp3, aws in us-east-2, AWS Price "
     "List, AmazonEC2 us-east-2, 2023-03-01)"),
    ("runpod", "1x_H100-SXM_SECURE", "CA", 1073.741824 * 0.10 * 10 / 730,
     "disk 1000 GiB = 1073.7 GB × 0.10 USD/GB-month × 10 h / 730 h = 1.47 USD (pod volume and container disk (running "
     "pod), runpod, RunPod docs, billing information, undated)"),
    ("hyperstack", "n3-H100x1", "CANADA-1", 1073.741824 * 0.000096774 * 10,
     "disk 1000 GiB = 1073.7 GB × 0.000096774 USD/GB-hour × 10 h = 1.04 USD (Cloud-SSD volume, hyperstack, Hyperstack "
     "GPU pricing page, 2026-08-26)"),
    ("coreweave", "HGX H100", "RNO2", 1073.741824 * 0.07 * 10 / 730,
     "disk 1000 GiB = 1073.7 GB × 0.07 USD/GB-month × 10 h / 730 h = 1.03 USD (Distributed File Storage, coreweave, "
     "CoreWeave pricing page, 2026-09-20)"),
])
def test_estimate_adds_the_attached_disk_with_its_source(gpuhub_cli: Run, provider: str, instance_type: str,
                                                         region: str, disk: float, note: str) -> None:
    done = gpuhub_cli("estimate", "--instance-type", instance_type, "--provider", provider, "--region", region,
                      "--hours", "10", "--disk-gib", "1000", "--format", "json")
    [job] = json.loads(done.stdout)["jobs"]
    assert job["disk_cost"] == pytest.approx(disk, rel=1e-12) and job["cost_complete"] is True
    assert job["cost"] == round(job["price_per_hour"] * 10 + disk, 2)
    assert note in job["notes"]


def test_a_disk_without_a_published_price_leaves_the_cost_incomplete(gpuhub_cli: Run) -> None:
    # Lambda gives its filesystem rate only as an example that "might not reflect current pricing"; AWS us-east-1
    # has no row (the Price List excerpt in the reference is us-east-2's)
    done = gpuhub_cli("estimate", "--instance-type", "p5.48xlarge", "--hours", "10", "--egress-gb", "500",
                      "--disk-gib", "1000", "--region", "us-east-1", "--format", "json")
    [job] = json.loads(done.stdout)["jobs"]
    assert (job["egress_cost"], job["disk_cost"], job["cost_complete"], job["cost"]) == (45.0, None, False, 595.40)
    assert "no published attached-disk price known for aws in this region: 1000 GiB of disk not priced" in job["notes"]
    table = gpuhub_cli("estimate", "--instance-type", "gpu_1x_h100_pcie", "--provider", "lambda", "--hours", "10",
                       "--disk-gib", "1000", "--region", "asia-northeast-1")
    assert "24.90 USD + disk ?" in table.stdout
    assert "asia-northeast-1 │ on_demand │     2.49" in table.stdout.replace("\n", " ")
    assert "no published attached-disk price known for lambda in this region" in table.stdout.replace("\n", " ")
    bad = gpuhub_cli("estimate", "--instance-type", "p5.48xlarge", "--hours", "10", "--disk-gib", "-1", check=False)
    assert bad.returncode == 2 and "--disk-gib" in bad.stderr
    compare = gpuhub_cli("estimate", "--instance-type", "p5.48xlarge", "--hours", "10", "--disk-gib", "10",
                         "--compare", check=False)
    assert compare.returncode == 2 and "--disk-gib: is not priced by --compare" in compare.stderr


def test_estimate_rows_go_by_the_job_cost_and_each_missing_price_is_said_once(gpuhub_cli: Run) -> None:
    # p5.48xlarge on demand in 11 AWS regions: an egress price is published for us-east-1 (0.09/GB) and
    # ap-southeast-2 (0.114/GB) only, so those two jobs cost 45.00 and 57.00 USD more than their hours
    done = gpuhub_cli("estimate", "--instance-type", "p5.48xlarge", "--hours", "10", "--egress-gb", "500",
                      "--format", "json")
    jobs = json.loads(done.stdout)["jobs"]
    assert [(j["region"], j["cost"], j["cost_complete"]) for j in jobs[:4]] == [
        ("us-east-2", 550.40, False), ("us-west-2", 550.40, False), ("eu-north-1", 588.93, False),
        ("us-east-1", 595.40, True)]
    assert (jobs[-1]["region"], jobs[-1]["cost"], jobs[-1]["egress_cost"]) == ("ap-southeast-2", 772.52, 57.0)
    assert [j["cost"] for j in jobs] == sorted(j["cost"] for j in jobs)
    narrow = gpuhub_cli("estimate", "--instance-type", "p5.48xlarge", "--hours", "10", "--egress-gb", "500",
                        env={"COLUMNS": "100"})
    missing = [line for line in narrow.stderr.splitlines() if "no published egress price" in line]
    assert len(missing) == 1 and missing[0].startswith("aws us-east-2, aws us-west-2, aws eu-north-1, ")
    assert missing[0].count("aws ") == 10  # nine places and the note's own provider
