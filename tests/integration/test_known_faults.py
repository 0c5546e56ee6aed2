"""Known faults C26, C27, C28, C29, C31 (../shared/cases/known-faults.md), each with its whole kind, through the
CLI with every plugin installed."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

from tests.integration.conftest import Run, search_json

REPO = Path(__file__).resolve().parents[2]


def _recording(target: Path, provider: str, exchanges: list[tuple[dict[str, Any], dict[str, Any], bytes]],
               **fields: Any) -> Path:
    """Write ``target/<provider>/manifest.json`` and body files: a recording the user points ``--fixtures`` at."""
    directory = target / provider
    directory.mkdir(parents=True)
    manifest: dict[str, Any] = {"format": 1, "provider": provider, "recorded_at": "2026-12-01",
                                "kind": "reconstructed", "source": "known-faults.md", "exchanges": [], **fields}
    for n, (request, response, body) in enumerate(exchanges, 1):
        (directory / f"{n:04d}.body").write_bytes(body)
        manifest["exchanges"].append({"request": request, "response": {**response, "body_file": f"{n:04d}.body"}})
    (directory / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return target


def test_c26_total_vram_is_never_multiplied_twice(every_offer: tuple[list[dict[str, Any]], str]) -> None:
    g6 = [r for r in every_offer[0] if r["instance_type"] == "g6.48xlarge"]
    assert g6 and {(r["gpu_count"], r["gpu_memory_gib"], r["gpu_memory_total_gib"]) for r in g6} == {(8, 24.0, 192.0)}
    # The whole kind: for every provider, total = per-GPU x count, and no GPU claims more than any GPU has.
    for r in every_offer[0]:
        if r["gpu_memory_gib"] is not None and not r["fractional"]:
            assert r["gpu_memory_total_gib"] == r["gpu_memory_gib"] * r["gpu_count"], r
            assert r["gpu_memory_gib"] <= 288, r


def test_c27_cpu_only_lambda_type_is_skipped_and_the_rest_published(gpuhub_cli: Run, tmp_path: Path) -> None:
    answer = {"data": {
        "cpu_4x_generalx": {"instance_type": {"name": "cpu_4x_generalx", "description": "4x vCPU general",
                                              "price_cents_per_hour": 100,
                                              "specs": {"vcpus": 4, "memory_gib": 16, "storage_gib": 100}},
                            "regions_with_capacity_available": []},
        "gpu_1x_a10": {"instance_type": {"name": "gpu_1x_a10", "description": "1x A10 (24 GB PCIe)",
                                         "gpu_description": "A10 (24 GB PCIe)", "price_cents_per_hour": 75,
                                         "specs": {"vcpus": 30, "memory_gib": 200, "storage_gib": 1400, "gpus": 1}},
                       "regions_with_capacity_available": [{"name": "us-east-1", "description": "Virginia"}]},
        "gpu_2x_zx9": {"instance_type": {"name": "gpu_2x_zx9", "description": "2x ZX9 (64 GB)",
                                         "gpu_description": "ZX9 (64 GB)", "price_cents_per_hour": 300,
                                         "specs": {"vcpus": 16, "memory_gib": 128, "storage_gib": 500, "gpus": 2}},
                       "regions_with_capacity_available": []}}}
    fixtures = _recording(tmp_path, "lambda", [(
        {"method": "GET", "url": "https://cloud.lambdalabs.com/api/v1/instance-types", "body": None},
        {"status": 200, "headers": {"content-type": "application/json"}}, json.dumps(answer).encode())])
    records, stderr = search_json(gpuhub_cli, "--provider", "lambda", "--fixtures", str(fixtures))
    types = {r["instance_type"] for r in records}
    assert "cpu_4x_generalx" not in types and {"gpu_1x_a10", "gpu_2x_zx9"} <= types
    a10 = next(r for r in records if r["instance_type"] == "gpu_1x_a10" and r["region"] == "us-east-1")
    assert (a10["price_per_hour"], a10["gpu_name"], a10["gpu_count"], a10["vcpus"]) == (0.75, "A10", 1, 30)
    zx9 = next(r for r in records if r["instance_type"] == "gpu_2x_zx9")  # a new GPU stays visible, unknown
    assert (zx9["gpu_known"], zx9["gpu_count"], zx9["price_per_hour"]) == (False, 2, 3.0)
    assert "lambda: ok" in stderr and "records skipped" in stderr


def test_c28_gcp_types_google_sells_only_as_spot_have_no_on_demand(
        every_offer: tuple[list[dict[str, Any]], str]) -> None:
    gcp = [r for r in every_offer[0] if r["provider"] == "gcp"]
    purchases: dict[str, set[str]] = {}
    for r in gcp:
        purchases.setdefault(r["instance_type"], set()).add(r["purchase"])
    assert "on_demand" not in purchases["a3-highgpu-1g"] and "spot" in purchases["a3-highgpu-1g"]
    assert {"on_demand", "spot"} <= purchases["a3-highgpu-8g"]
    # The whole kind: no on-demand offer for any type Google does not sell on demand.
    spot_only = [t for t in purchases if t in ("a3-highgpu-1g", "a3-highgpu-2g", "a3-highgpu-4g")
                 or t.startswith(("a3-ultragpu-", "a4-", "a4x-"))]
    assert spot_only and all("on_demand" not in purchases[t] for t in spot_only), {t: purchases[t]
                                                                                 for t in spot_only}


def test_c29_gcp_a4_priced_from_a_gpu_slice_sku(gpuhub_cli: Run, tmp_path: Path) -> None:
    sku = {"name": "services/6F81-5844-456A/skus/A4-SLICE-SPOT", "skuId": "A4-SLICE-SPOT",
           "description": "Spot Preemptible A4 Nvidia B200 (1 gpu slice)",
           "category": {"serviceDisplayName": "Compute Engine", "resourceFamily": "Compute", "resourceGroup": "GPU",
                        "usageType": "Preemptible"},
           "serviceRegions": ["us-east4"],
           "pricingInfo": [{"pricingExpression": {"usageUnit": "h", "tieredRates": [
               {"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": "5", "nanos": 0}}]}}]}
    fixtures = _recording(tmp_path, "gcp", [(
        {"method": "GET", "url": "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus?pageSize=5000",
         "body": None},
        {"status": 200, "headers": {"content-type": "application/json"}},
        json.dumps({"skus": [sku], "nextPageToken": ""}).encode())])
    records, stderr = search_json(gpuhub_cli, "--provider", "gcp", "--fixtures", str(fixtures))
    a4 = [r for r in records if r["instance_type"] == "a4-highgpu-8g"]
    assert [(r["region"], r["purchase"], Decimal(str(r["price_per_hour"])), r["gpu_name"], r["gpu_count"])
            for r in a4] == [("us-east4", "spot", Decimal("40"), "B200", 8)], stderr


def test_c31_one_rejected_instance_type_does_not_cost_the_batch(gpuhub_cli: Run, tmp_path: Path) -> None:
    bundled = REPO / "plugins" / "gpuhub-aws" / "gpuhub_aws" / "recording"
    manifest = json.loads((bundled / "manifest.json").read_text(encoding="utf-8"))
    target = tmp_path / "aws"
    target.mkdir()
    for file in bundled.iterdir():
        if file.is_file() and file.name != "manifest.json":
            (target / file.name).write_bytes(file.read_bytes())
    first = next(e for e in manifest["exchanges"] if "Action=DescribeInstanceTypes" in (e["request"]["body"] or ""))
    fields = parse_qsl(first["request"]["body"])
    rejected = next(v for k, v in fields if k.startswith("Filter.1.Value.") and v.startswith("g4ad."))
    kept = [v for k, v in fields if k.startswith("Filter.1.Value.") and v != rejected]
    error = (f'<?xml version="1.0" encoding="UTF-8"?><Response><Errors><Error><Code>InvalidInstanceType</Code>'
             f"<Message>The following supplied instance types do not exist: [{rejected}]</Message></Error>"
             "</Errors><RequestID>c31</RequestID></Response>")
    (target / "c31-error.xml").write_text(error, encoding="utf-8")
    retry = [(k, v) for k, v in fields if not k.startswith("Filter.1.Value.")]
    retry[3:3] = [(f"Filter.1.Value.{i}", t) for i, t in enumerate(kept, 1)]
    answer = dict(first["response"])
    first["response"] = {"status": 400, "headers": {"content-type": "text/xml"}, "body_file": "c31-error.xml"}
    manifest["exchanges"].append({"request": {**first["request"], "body": urlencode(retry)}, "response": answer})
    (target / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    records, stderr = search_json(gpuhub_cli, "--provider", "aws", "-v", "--fixtures", str(tmp_path))
    assert "aws: ok" in stderr and f"DescribeInstanceTypes rejected {rejected}" in stderr
    bundled_records, _ = search_json(gpuhub_cli, "--provider", "aws")
    assert len(records) == len(bundled_records)  # every type still published
    p5 = next(r for r in records if r["instance_type"] == "p5.48xlarge" and r["purchase"] == "on_demand")
    assert (p5["vcpus"], p5["memory_gib"], p5["gpu_count"], p5["price_per_hour"]) == (192, 2048.0, 8, 55.04)
