"""The bundled recording against its source: every GPU row of the SkyPilot catalog's Lambda file is an offer."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

from gpuhub_lambda.provider import LambdaProvider

from gpuhub.plugin import Offer, ProviderStatus, build_script, load_manifest

PLUGIN = Path(__file__).resolve().parents[1]


def test_manifest_provenance() -> None:
    manifest = load_manifest(LambdaProvider().fixtures_dir())
    assert manifest.provider == "lambda" and manifest.kind == "reconstructed"
    assert "SkyPilot catalog" in manifest.source and "vms.csv" in manifest.source
    [exchange] = manifest.exchanges
    assert exchange["request"] == {"method": "GET", "url": "https://cloud.lambdalabs.com/api/v1/instance-types",
                                   "body": None}


def test_every_catalog_gpu_row_is_an_offer(reference: Callable[..., Path],
                                           replayed: tuple[tuple[Offer, ...], ProviderStatus]) -> None:
    offers, _ = replayed
    index = {(o.instance_type, o.region.code): o for o in offers}
    rows = 0
    with reference("skypilot-catalog", "lambda", "vms.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            if not row["AcceleratorName"]:
                continue
            rows += 1
            offer = index[(row["InstanceType"], row["Region"])]
            assert offer.price.amount == Decimal(row["Price"]), row
            assert offer.instance.gpu_count == float(row["AcceleratorCount"]), row
            assert offer.instance.vcpus == float(row["vCPUs"]) and offer.instance.memory_gib == float(
                row["MemoryGiB"]), row
            assert offer.instance.gpu is not None and offer.instance.gpu.name == row["AcceleratorName"].replace(
                "A6000", "RTXA6000"), row
    assert rows == 340 == len(offers)


def test_build_script_reproduces_the_bundled_recording(reference: Callable[..., Path]) -> None:
    build = build_script(PLUGIN)
    body, regions = build.build(reference("skypilot-catalog", "lambda", "vms.csv"))
    bundled = json.loads((LambdaProvider().fixtures_dir() / "instance-types.json").read_text())
    assert body == bundled
    table = json.loads((PLUGIN / "gpuhub_lambda" / "data" / "regions.json").read_text())
    assert table["instance_types"] == regions
