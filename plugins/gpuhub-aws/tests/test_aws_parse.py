"""Parsing rules of the AWS plugin: offer-file selection, reserved terms, streaming, spot XML, specs."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from gpuhub_aws.parse import (
    OfferFileParser,
    build_instance,
    bundled_specs,
    ec2_error,
    is_accelerated,
    latest_spot_prices,
    on_demand_price,
    parse_describe_instance_types,
    parse_offer_file,
    parse_spot_history,
    reserved_prices,
    spec_from_api,
)
from gpuhub_aws.synthetic import offer_document, on_demand_terms, product, reserved_terms

from gpuhub.plugin import ProviderError, Registry

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared" / "reference" / "provider-samples" / "aws"
NS = "http://ec2.amazonaws.com/doc/2016-11-15"


def _gpu(raw: str, memory_gib: float | None):  # type: ignore[no-untyped-def]
    return Registry().gpus.to_gpu(raw, memory_gib)


def _parse(doc: dict, chunk: int | None = None):  # type: ignore[no-untyped-def,type-arg]
    data = json.dumps(doc).encode()
    size = chunk or len(data)
    return parse_offer_file([data[i:i + size] for i in range(0, len(data), size)], "us-east-1", is_accelerated)


def _mixed_document() -> dict:  # type: ignore[type-arg]
    variants = {
        "LINUX": {}, "WIN": {"operatingSystem": "Windows"}, "RHEL": {"operatingSystem": "RHEL"},
        "DEDI": {"tenancy": "Dedicated"}, "HOST": {"tenancy": "Host"}, "SQL": {"preInstalledSw": "SQL Std"},
        "BYOL": {"licenseModel": "Bring your own license"}, "UNUSED": {"capacitystatus": "UnusedCapacityReservation"},
        "ALLOC": {"capacitystatus": "AllocatedCapacityReservation"}, "BLOCK": {"marketoption": "CapacityBlock"},
    }
    products = {sku: product(sku, "p5.48xlarge", **attrs) for sku, attrs in variants.items()}
    products["CPU"] = product("CPU", "m5.large", instanceFamily="General purpose")
    products["EBS"] = product("EBS", "p5.48xlarge", productFamily="Storage")
    on_demand = {sku: on_demand_terms(sku, "55.0400000000" if sku == "LINUX" else "60.0000000000")
                 for sku in products}
    on_demand["ALLOC"] = on_demand_terms("ALLOC", "0.0000000000")
    reserved = {"LINUX": reserved_terms("LINUX", [("1yr", "standard", "No Upfront", "", "34.6700000000"),
                                                  ("3yr", "standard", "All Upfront", "657000", "0.0000000000")])}
    return offer_document(products, on_demand, reserved)


def test_selection_keeps_only_linux_shared_plain_used_on_demand() -> None:
    result = _parse(_mixed_document())
    assert list(result.prices) == ["p5.48xlarge"]
    prices = result.prices["p5.48xlarge"]
    assert prices.on_demand is not None and prices.on_demand.amount == Decimal("55.04")
    assert result.filtered == {
        "operating system Windows": 1, "operating system RHEL": 1, "tenancy Dedicated": 1, "tenancy Host": 1,
        "pre-installed software SQL Std": 1, "license model Bring your own license": 1,
        "capacity status UnusedCapacityReservation": 1, "capacity status AllocatedCapacityReservation": 1,
        "market option CapacityBlock": 1, "product family Storage": 1}
    assert result.products == 12 and result.publication_date == "2026-11-30T00:00:00Z"


def test_reserved_terms_become_effective_hourly_prices_with_term_and_option() -> None:
    terms = reserved_terms("S", [
        ("1yr", "standard", "No Upfront", "", "10.0000000000"),
        ("1yr", "standard", "Partial Upfront", "43800", "5.0000000000"),
        ("3yr", "standard", "All Upfront", "262800", "0.0000000000"),
        ("3yr", "convertible", "Partial Upfront", "100000", "2.5000000000"),
    ])
    got = {(p.purchase, p.payment_option): p for p in reserved_prices(terms)}
    assert got[("reserved_1y", "No Upfront")].amount == Decimal("10")
    partial = got[("reserved_1y", "Partial Upfront")]
    assert (partial.amount, partial.upfront, partial.term_hours) == (Decimal("10"), Decimal("43800"), 8760)
    all_upfront = got[("reserved_3y", "All Upfront")]
    assert (all_upfront.amount, all_upfront.upfront) == (Decimal("10"), Decimal("262800"))
    assert all_upfront.term_hours == 26280
    convertible = got[("reserved_3y", "Partial Upfront (convertible)")]
    assert convertible.amount == Decimal("6.3051750381")  # 100000 / 26280 + 2.5, to 10 decimal places
    assert all(p.currency == "USD" for p in got.values())


def test_reserved_zero_term_is_dropped_and_unknown_lease_is_an_error() -> None:
    assert reserved_prices(reserved_terms("S", [("1yr", "standard", "No Upfront", "", "0.0000000000")])) == []
    with pytest.raises(ValueError, match="lease"):
        reserved_prices(reserved_terms("S", [("5yr", "standard", "No Upfront", "", "1.0")]))


def test_reserved_terms_reach_offers_of_the_offer_file() -> None:
    prices = _parse(_mixed_document()).prices["p5.48xlarge"]
    assert sorted((p.purchase, p.amount) for p in prices.reserved) == [
        ("reserved_1y", Decimal("34.67")), ("reserved_3y", Decimal("25"))]  # 657000 / 26280


@pytest.mark.parametrize("chunk", [1, 7, 333, 4096])
def test_stream_in_any_chunk_size_gives_the_same_result(chunk: int) -> None:
    whole = _parse(_mixed_document())
    pieces = _parse(_mixed_document(), chunk)
    assert pieces.prices == whole.prices and pieces.filtered == whole.filtered


def test_terms_before_products_cannot_be_streamed() -> None:
    doc = _mixed_document()
    reordered = {"formatVersion": "v1.0", "terms": doc["terms"], "products": doc["products"]}
    with pytest.raises(ProviderError, match="products after terms"):
        _parse(reordered, 512)


def test_truncated_or_non_json_offer_file_raises() -> None:
    data = json.dumps(_mixed_document()).encode()
    parser = OfferFileParser("us-east-1", is_accelerated)
    parser.feed(data[: len(data) // 2])
    with pytest.raises(ProviderError, match="incomplete"):
        parser.finish()
    with pytest.raises(ProviderError, match=r"not valid JSON|incomplete"):
        parse_offer_file([b"<html><body>Service Unavailable</body></html>"], "us-east-1", is_accelerated)


def test_zero_and_ambiguous_on_demand_prices_are_not_offers() -> None:
    with pytest.raises(ValueError, match="zero"):
        on_demand_price(on_demand_terms("S", "0.0000000000"))
    two = {**on_demand_terms("S", "1.0"), "S.OTHER": on_demand_terms("S", "2.0")["S.JRTCKXETXF"]}
    with pytest.raises(ValueError, match="ambiguous"):
        on_demand_price(two)
    with pytest.raises(ValueError, match="Hrs"):
        on_demand_price(on_demand_terms("S", "0.08", unit="GB-Mo"))


def test_two_plain_linux_products_for_one_type_are_dropped_not_guessed() -> None:
    products = {"A": product("A", "g6.xlarge"), "B": product("B", "g6.xlarge")}
    on_demand = {"A": on_demand_terms("A", "0.8048"), "B": on_demand_terms("B", "0.9000")}
    result = _parse(offer_document(products, on_demand))
    assert result.prices == {} and result.malformed == {"two on-demand Linux products for g6.xlarge": 1}


def test_china_partition_prices_are_cny() -> None:
    products = {"CN": product("CN", "g5.xlarge", region="cn-northwest-1", location="China (Ningxia)")}
    result = parse_offer_file([json.dumps(offer_document(products, {"CN": on_demand_terms(
        "CN", "8.3520000000", currency="CNY")})).encode()], "cn-northwest-1", is_accelerated)
    price = result.prices["g5.xlarge"].on_demand
    assert price is not None and (price.currency, price.amount) == ("CNY", Decimal("8.352"))
    assert result.prices["g5.xlarge"].region == "cn-northwest-1"


def test_malformed_terms_are_counted_not_raised() -> None:
    products = {"A": product("A", "g6.xlarge"), "B": product("B", "g5.xlarge")}
    on_demand = {"A": on_demand_terms("A", "abc"), "B": on_demand_terms("B", "1.006")}
    on_demand["A"]["A.JRTCKXETXF"]["priceDimensions"]["A.JRTCKXETXF.6YS6EN2CT7"]["pricePerUnit"] = {"USD": "abc"}
    result = _parse(offer_document(products, on_demand))
    assert list(result.prices) == ["g5.xlarge"]
    assert sum(result.malformed.values()) == 1


def _spot_xml(items: list[tuple[str, str | None, str | None, str, str, str]], token: str = "") -> bytes:
    body = "".join(
        "<item>" + (f"<availabilityZone>{name}</availabilityZone>" if name else "")
        + (f"<availabilityZoneId>{zid}</availabilityZoneId>" if zid else "")
        + f"<instanceType>{itype}</instanceType><productDescription>{desc}</productDescription>"
        f"<spotPrice>{price}</spotPrice><timestamp>{when}</timestamp></item>"
        for itype, name, zid, desc, price, when in items)
    return (f'<DescribeSpotPriceHistoryResponse xmlns="{NS}"><requestId>r</requestId>'
            f"<spotPriceHistorySet>{body}</spotPriceHistorySet><nextToken>{token}</nextToken>"
            "</DescribeSpotPriceHistoryResponse>").encode()


def test_spot_latest_price_per_zone_linux_only() -> None:
    body = _spot_xml([
        ("p5.48xlarge", "us-east-1c", "use1-az3", "Linux/UNIX", "15.000000", "2026-11-29T10:00:00.000Z"),
        ("p5.48xlarge", "us-east-1c", "use1-az3", "Linux/UNIX", "14.582000", "2026-11-30T01:00:00.000Z"),
        ("p5.48xlarge", "us-east-1c", "use1-az3", "Windows", "1.000000", "2026-11-30T02:00:00.000Z"),
        ("p5.48xlarge", "us-east-1d", None, "Linux/UNIX (Amazon VPC)", "14.246000", "2026-11-30T00:00:00.000Z"),
    ])
    items, token = parse_spot_history(body)
    assert token is None and len(items) == 4
    latest = latest_spot_prices(items)
    assert {k: v.price for k, v in latest.items()} == {
        ("p5.48xlarge", "use1-az3"): Decimal("14.582"), ("p5.48xlarge", "us-east-1d"): Decimal("14.246")}


def test_spot_page_token_and_malformed_item() -> None:
    body = _spot_xml([("g6.xlarge", None, "use1-az1", "Linux/UNIX", "abc", "2026-11-30T00:00:00Z"),
                      ("g6.xlarge", None, "use1-az2", "Linux/UNIX", "0.2271", "2026-11-30T00:00:00Z")], "tok-2")
    skipped: list[str] = []
    items, token = parse_spot_history(body, skipped.append)
    assert token == "tok-2" and [i.zone for i in items] == ["use1-az2"] and len(skipped) == 1


def test_ec2_error_envelope_is_a_provider_error() -> None:
    body = (b'<Response><Errors><Error><Code>UnauthorizedOperation</Code><Message>You are not authorized'
            b"</Message></Error></Errors><RequestID>x</RequestID></Response>")
    assert ec2_error(body) == ("UnauthorizedOperation", "You are not authorized")
    with pytest.raises(ProviderError, match="UnauthorizedOperation"):
        parse_spot_history(body)
    with pytest.raises(ProviderError, match="UnauthorizedOperation"):
        parse_describe_instance_types(body)
    with pytest.raises(ProviderError, match="not XML"):
        parse_spot_history(b"{}")


def test_fractional_gpu_is_a_fractional_offer() -> None:
    specs = bundled_specs()
    for itype, count, vram in (("g6f.large", 0.125, 3.0), ("g6f.2xlarge", 0.25, 6.0), ("g6f.4xlarge", 0.5, 12.0),
                               ("gr6f.4xlarge", 0.5, 12.0)):
        inst = build_instance(specs[itype], {}, itype, _gpu, lambda m: None)
        assert (inst.gpu.name, inst.gpu_count, inst.fractional, inst.gpu_memory_gib) == ("L4", count, True, vram)


def test_the_ai100_is_registered_with_its_maker() -> None:
    inst = build_instance(bundled_specs()["dl2q.24xlarge"], {}, "dl2q.24xlarge", _gpu, lambda m: None)
    assert (inst.gpu.name, inst.gpu.known, inst.gpu.vendor, inst.gpu_count) == ("AI100", True, "Qualcomm", 8)
    assert float(inst.gpu.memory_gib) == pytest.approx(15.625)  # 16000 MiB, as AWS reports it


def test_b300_is_the_gpu_tables_card() -> None:
    inst = build_instance(bundled_specs()["p6-b300.48xlarge"], {}, "p6-b300.48xlarge", _gpu, lambda m: None)
    assert (inst.gpu.name, inst.gpu.known, inst.gpu.vendor, inst.gpu_count) == ("B300", True, "NVIDIA", 8)
    assert float(inst.gpu.memory_gib) == 288  # the marketed 288 GB; AWS reports 275040 MiB (268.6 GiB)


def test_spec_fields_and_memory_fallback_from_offer_attributes() -> None:
    spec = bundled_specs()["p5.48xlarge"]
    assert (spec.vcpus, spec.memory_gib, spec.cpu_arch) == (192, 2048.0, "x86_64")
    assert bundled_specs()["g5g.xlarge"].cpu_arch == "arm64" and bundled_specs()["g4dn.metal"].bare_metal is True
    bare = spec_from_api({"InstanceType": "g9.xlarge", "GpuInfo": {"Gpus": [
        {"Name": "L4", "Manufacturer": "NVIDIA", "Count": 1, "MemoryInfo": {"SizeInMiB": 22888}}]}})
    inst = build_instance(bare, {"vcpu": "16", "memory": "1,152 GiB"}, "g9.xlarge", _gpu, lambda m: None)
    assert (inst.vcpus, inst.memory_gib) == (16, 1152.0)


def test_accelerated_predicate() -> None:
    assert is_accelerated("p5.48xlarge", {})
    assert is_accelerated("g9.xlarge", {"gpu": "4"})
    assert is_accelerated("trn9.xlarge", {"instanceFamily": "Machine Learning ASIC Instances"})
    assert not is_accelerated("m5.large", {"gpu": "NA", "instanceFamily": "General purpose"})
    assert not is_accelerated("c5.large", {"gpu": "0"})


def test_describe_instance_types_xml_pages() -> None:
    body = (f'<DescribeInstanceTypesResponse xmlns="{NS}"><instanceTypeSet><item><instanceType>g6f.4xlarge'
            "</instanceType><vCpuInfo><defaultVCpus>16</defaultVCpus></vCpuInfo><memoryInfo><sizeInMiB>65536"
            "</sizeInMiB></memoryInfo><gpuInfo><gpus><item><name>L4</name><manufacturer>NVIDIA</manufacturer>"
            "<count>0</count><gpuPartitionSize>0.5</gpuPartitionSize><workloadSet><item>ml-ai</item></workloadSet>"
            "<memoryInfo><sizeInMiB>11444</sizeInMiB></memoryInfo></item></gpus></gpuInfo></item>"
            "</instanceTypeSet><nextToken>next</nextToken></DescribeInstanceTypesResponse>").encode()
    items, token = parse_describe_instance_types(body)
    assert token == "next"
    spec = spec_from_api(items[0])
    assert spec.accelerator is not None and spec.accelerator.gpu_count == 0.5 and spec.memory_gib == 64.0
    assert items[0]["GpuInfo"]["Gpus"][0]["Workloads"] == ["ml-ai"]


def test_real_moto_wire_xml_matches_real_json_specs() -> None:
    xml_path = SHARED / "ec2-describe-instance-types.gpu-examples.moto-rendered-wire.xml"
    json_path = SHARED / "ec2-describe-instance-types.gpu-accel-subset.moto-5.2.1.json"
    if not xml_path.is_file() or not json_path.is_file():
        pytest.skip("../shared is absent")
    items, token = parse_describe_instance_types(xml_path.read_bytes())
    assert token is None
    from_json = {t["InstanceType"]: spec_from_api(t) for t in json.loads(json_path.read_text())["InstanceTypes"]}
    from_xml = {s.instance_type: s for s in map(spec_from_api, items)}
    assert set(from_xml) == {"p4d.24xlarge", "p5.48xlarge", "g5.xlarge", "g6e.xlarge", "inf2.xlarge", "m5.large"}
    for name, spec in from_xml.items():
        assert spec == from_json[name], name
    assert from_xml["p5.48xlarge"].accelerator.memory_mib == 81920  # type: ignore[union-attr]
    assert from_xml["inf2.xlarge"].accelerator.kind == "neuron"  # type: ignore[union-attr]
