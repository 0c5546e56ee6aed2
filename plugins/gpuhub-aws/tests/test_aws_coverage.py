"""Coverage of the bundled recording against the SkyPilot AWS catalog in ../shared (issue 13): every region and
zone with a price, every priced row an offer at its price, and p5e (Capacity Blocks only) as spot offers."""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path

import pytest

from gpuhub.plugin import Offer, ProviderStatus, Registry, make_engine, run_provider

CATALOG = Path(__file__).resolve().parents[3] / ".." / "shared" / "reference" / "skypilot-catalog" / "aws" / "vms.csv"


@pytest.fixture(scope="module")
def replayed() -> tuple[tuple[Offer, ...], ProviderStatus]:
    return run_provider(make_engine(Registry()), "aws", mode="replay")


def catalog() -> list[dict[str, str]]:
    if not CATALOG.is_file():
        pytest.skip("../shared is absent")
    with open(CATALOG, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_p5e_is_offered_as_spot_where_the_catalog_has_a_spot_price(replayed: tuple[tuple[Offer, ...],
                                                                                   ProviderStatus]) -> None:
    offers, status = replayed
    p5e = {(o.region.code, o.region.zone, o.price.purchase): o for o in offers if o.instance_type == "p5e.48xlarge"
           and o.price.purchase != "capacity_block"}  # blocks: test_aws_obtain
    assert {k: o.price.amount for k, o in p5e.items()} == {
        ("us-east-2", "use2-az1", "spot"): Decimal("20.3242"), ("us-east-2", "use2-az3", "spot"): Decimal("17.4812"),
        ("us-west-2", "usw2-az3", "spot"): Decimal("24.9358"),
        ("ap-southeast-3", "apse3-az1", "spot"): Decimal("8.7348")}
    inst = next(iter(p5e.values())).instance
    assert inst.gpu is not None
    assert (inst.gpu.name, inst.gpu_count, inst.gpu.memory_gib, inst.vcpus, inst.memory_gib) == (
        "H200", 8, 141, 192, 2048)
    # No source gives p5e an on-demand price: none is invented, and the status says so per region.
    assert "p5e.48xlarge in us-east-2: no on-demand price (listed as Capacity Blocks only); spot offers only" \
        in status.warnings
    assert "p5e.48xlarge in eu-west-2: no on-demand price (listed as Capacity Blocks only); no spot price " \
           "either: not offered" in status.warnings


def test_every_priced_catalog_row_is_an_offer_at_its_price(replayed: tuple[tuple[Offer, ...],
                                                                            ProviderStatus]) -> None:
    offers, _ = replayed
    on_demand = {(o.instance_type, o.region.code): o.price.amount for o in offers if o.price.purchase == "on_demand"}
    spot = {(o.instance_type, o.region.zone): o.price.amount for o in offers if o.price.purchase == "spot"}
    offered_types = {o.instance_type for o in offers}
    rows = [r for r in catalog() if r["InstanceType"] in offered_types]  # FPGA/video types are left out on purpose
    regions, zones = set(), set()
    for row in rows:
        if row["Price"]:
            assert on_demand[(row["InstanceType"], row["Region"])] == Decimal(row["Price"]), row
            regions.add(row["Region"])
        if row["SpotPrice"]:
            assert spot[(row["InstanceType"], row["AvailabilityZone"])] == Decimal(row["SpotPrice"]), row
            zones.add(row["AvailabilityZone"])
    assert len(regions) == 23 and len(zones) == 70
    assert regions == {o.region.code for o in offers}
