"""The real AWS samples in ../shared/reference/provider-samples/aws parsed by the plugin (skipped when absent)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from gpuhub_aws.parse import (
    ec2_error,
    latest_spot_prices,
    on_demand_price,
    parse_offer_file,
    parse_spot_history,
    product_rejection,
    reserved_prices,
)

from gpuhub.plugin import ProviderError

SAMPLES = Path(__file__).resolve().parents[3] / ".." / "shared" / "reference" / "provider-samples" / "aws"


def _sample(name: str) -> bytes:
    path = SAMPLES / name
    if not path.is_file():
        pytest.skip("../shared is absent")
    return path.read_bytes()


def _everything(itype: str, attrs: Any) -> bool:
    return True


def test_opencost_us_east_2_excerpt_windows_byol_row_is_not_linux_on_demand() -> None:
    data = _sample("price-list-bulk.AmazonEC2.us-east-2.excerpt.opencost-test.json")
    result = parse_offer_file([data[i:i + 1000] for i in range(0, len(data), 1000)], "us-east-2", _everything)
    assert result.products == 3 and result.publication_date == "2023-03-22T14:56:51Z"
    assert result.filtered == {"operating system Windows": 1}  # gp3 storage has no instance type: not counted
    # m5.large is Linux: its only term is a reserved one, turned into an effective hourly price
    [price] = result.prices["m5.large"].reserved
    assert (price.purchase, price.term_hours, price.payment_option) == ("reserved_3y", 26280,
                                                                       "All Upfront (convertible)")
    assert price.upfront == Decimal("1161") and price.amount == Decimal("0.0441780822")  # 1161 / 26280
    assert result.prices["m5.large"].on_demand is None


def test_opencost_p3_windows_price_is_read_exactly_when_asked_for() -> None:
    doc = json.loads(_sample("price-list-bulk.AmazonEC2.us-east-2.excerpt.opencost-test.json"))
    assert product_rejection(doc["products"]["9ZEEN7WWWQKAG292"]) == "operating system Windows"
    price = on_demand_price(doc["terms"]["OnDemand"]["9ZEEN7WWWQKAG292"])
    assert (price.amount, price.currency) == (Decimal("12.24"), "USD")


def test_china_excerpt_prices_are_cny_and_storage_is_not_an_instance() -> None:
    doc = json.loads(_sample("price-list-bulk.AmazonEC2.cn-northwest-1.excerpt.opencost-test.json"))
    terms = doc["terms"]["OnDemand"]["R83VXG9NAPDASEGN"]
    with pytest.raises(ValueError, match="Hrs"):
        on_demand_price(terms)  # GB-Mo storage, never an hourly instance price
    [term] = terms.values()
    [dim] = term["priceDimensions"].values()
    hourly = {"T": {"priceDimensions": {"D": dict(dim, unit="Hrs")}}}
    price = on_demand_price(hourly)
    assert (price.currency, price.amount) == ("CNY", Decimal("0.5312"))
    result = parse_offer_file([json.dumps(doc).encode()], "cn-northwest-1", _everything)
    assert result.prices == {} and result.products == 1 and result.malformed == {}


def test_reserved_sample_term_alone() -> None:
    doc = json.loads(_sample("price-list-bulk.AmazonEC2.us-east-2.excerpt.opencost-test.json"))
    [price] = reserved_prices(doc["terms"]["Reserved"]["8D49XP354UEYTHGM"])
    assert price.currency == "USD" and price.amount * 26280 == pytest.approx(Decimal("1161"), abs=Decimal("0.01"))


def test_moto_spot_answer_shape_with_zone_names() -> None:
    name = "ec2-describe-spot-price-history.moto-rendered-wire.PLACEHOLDER-VALUES.xml"
    items, token = parse_spot_history(_sample(name))
    assert token is None and [i.zone for i in items] == ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"]
    assert {i.instance_type for i in items} == {"p4d.24xlarge"}
    assert len(latest_spot_prices(items)) == 4  # "Linux/UNIX (Amazon VPC)" counts as Linux


def test_moto_error_envelope() -> None:
    body = _sample("ec2-error.invalid-instance-type.moto-rendered-wire.xml")
    assert ec2_error(body) == ("InvalidInstanceType", "The following supplied instance types do not exist: [p9.bogus]")
    with pytest.raises(ProviderError, match="InvalidInstanceType"):
        parse_spot_history(body)
