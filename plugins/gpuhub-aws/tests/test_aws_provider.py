"""The AWS provider's walk: facts from the bundled recording, the CLI, signing, pagination, retries, settings."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qsl

import httpx
from gpuhub_aws.parse import is_accelerated, parse_offer_file
from gpuhub_aws.provider import DEFAULT_REGIONS, AwsProvider
from gpuhub_aws.synthetic import offer_document, on_demand_terms, product

import gpuhub
from gpuhub.plugin import (
    CountingTransport,
    Offer,
    ProviderStatus,
    Registry,
    ReplayTransport,
    load_manifest,
    make_engine,
    run_provider,
)

KEYS = {"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"}
NS = "http://ec2.amazonaws.com/doc/2016-11-15"
Handler = Callable[[httpx.Request, int], httpx.Response]


def _replay() -> tuple[tuple[Offer, ...], ProviderStatus]:
    return run_provider(make_engine(Registry()), "aws", mode="replay")


def _live(handler: Handler, environ: dict[str, str] | None = None
          ) -> tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]:
    transport = CountingTransport(handler)
    engine = make_engine(Registry(), transport=transport, environ=dict(KEYS) if environ is None else environ)
    offers, status = run_provider(engine, "aws", mode="live")
    return offers, status, transport


def _form(request: httpx.Request) -> dict[str, str]:
    return dict(parse_qsl(request.content.decode()))


def _small_offer_file(region: str = "us-east-1", currency: str = "USD") -> bytes:
    products = {"P5": product("P5", "p5.48xlarge", region=region), "G6": product("G6", "g6.xlarge", region=region)}
    on_demand = {"P5": on_demand_terms("P5", "55.0400000000", currency),
                 "G6": on_demand_terms("G6", "0.8048000000", currency)}
    return json.dumps(offer_document(products, on_demand)).encode()


def _spot_page(items: list[tuple[str, str, str]], token: str = "") -> bytes:
    body = "".join(f"<item><availabilityZoneId>{zone}</availabilityZoneId><instanceType>{itype}</instanceType>"
                   f"<productDescription>Linux/UNIX</productDescription><spotPrice>{price}</spotPrice>"
                   "<timestamp>2026-11-30T01:00:00.000Z</timestamp></item>" for itype, zone, price in items)
    return (f'<DescribeSpotPriceHistoryResponse xmlns="{NS}"><spotPriceHistorySet>{body}</spotPriceHistorySet>'
            f"<nextToken>{token}</nextToken></DescribeSpotPriceHistoryResponse>").encode()


def _types_page() -> bytes:
    return (f'<DescribeInstanceTypesResponse xmlns="{NS}"><instanceTypeSet><item><instanceType>g6.xlarge'
            "</instanceType><vCpuInfo><defaultVCpus>4</defaultVCpus></vCpuInfo><memoryInfo><sizeInMiB>16384"
            "</sizeInMiB></memoryInfo><gpuInfo><gpus><item><name>L4</name><manufacturer>NVIDIA</manufacturer>"
            "<count>1</count><memoryInfo><sizeInMiB>22888</sizeInMiB></memoryInfo></item></gpus></gpuInfo>"
            "</item><item><vCpuInfo><defaultVCpus>1</defaultVCpus></vCpuInfo></item></instanceTypeSet>"
            "</DescribeInstanceTypesResponse>").encode()


def _small_cloud(spot_pages: dict[str | None, bytes], types: bytes | None = None,
                 offer: bytes | None = None) -> Handler:
    """A one-region AWS: an offer file, DescribeInstanceTypes, and spot pages keyed by the NextToken sent."""

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        if request.method == "GET" and request.url.host == "spot-bid-advisor.s3.amazonaws.com":
            feed = {"ranges": [{"index": 0, "label": "<5%", "max": 5, "dots": 0}],
                    "spot_advisor": {"us-east-1": {"Linux": {"g6.xlarge": {"r": 0, "s": 60}}}}}
            return httpx.Response(200, json=feed)
        if request.method == "GET":
            return httpx.Response(200, content=offer or _small_offer_file(),
                                  headers={"content-type": "application/json"})
        if request.url.host.startswith("servicequotas."):
            return httpx.Response(200, json={"Quotas": []})
        form = _form(request)
        if form["Action"] == "DescribeCapacityBlockOfferings":
            return httpx.Response(200, content=f'<DescribeCapacityBlockOfferingsResponse xmlns="{NS}">'
                                  "<capacityBlockOfferingSet/></DescribeCapacityBlockOfferingsResponse>".encode())
        if form["Action"] == "DescribeInstanceTypes":
            return httpx.Response(200, content=types or _types_page(), headers={"content-type": "text/xml"})
        return httpx.Response(200, content=spot_pages[form.get("NextToken")], headers={"content-type": "text/xml"})

    return handler


ONE_REGION = {**KEYS, "GPUHUB_AWS_REGIONS": "us-east-1"}


# --- facts -------------------------------------------------------------------------------------------------
def test_facts_p5_and_p4d_in_us_east_1() -> None:
    offers, status = _replay()
    assert status.state == "ok" and status.offers > 2000
    p5 = {(o.price.purchase, o.region.zone): o for o in offers
          if o.instance_type == "p5.48xlarge" and o.region.code == "us-east-1"}
    od = p5[("on_demand", None)]
    assert (od.price.amount, od.price.currency) == (Decimal("55.04"), "USD")
    assert (od.gpu_name, od.gpu_count, od.instance.gpu_memory_gib) == ("H100", 8, 80.0)
    assert (od.instance.vcpus, od.instance.memory_gib) == (192, 2048.0)
    assert p5[("spot", "use1-az3")].price.amount == Decimal("14.582")
    assert p5[("spot", "use1-az5")].price.amount == Decimal("14.246")
    assert len([k for k in p5 if k[0] == "spot"]) == 6
    p4d = [o for o in offers if o.instance_type == "p4d.24xlarge" and o.region.code == "us-east-1"
           and o.price.purchase == "on_demand"]
    assert len(p4d) == 1 and p4d[0].price.amount == Decimal("21.957642")
    assert (p4d[0].gpu_name, p4d[0].gpu_count, p4d[0].instance.gpu_memory_gib) == ("A100", 8, 40.0)


def test_cli_search_json_gives_the_facts() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "GPUHUB_AWS_"))}
    cmd = [sys.executable, "-m", "gpuhub.cli", "search", "--provider", "aws",
           "--region", "us-east-1", "--gpu", "H100", "--format", "json", "--limit", "50", "--all-regions"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, check=True)
    records = json.loads(out.stdout)
    p5 = {(r["purchase"], r["zone"]): r for r in records if r["instance_type"] == "p5.48xlarge"}
    assert p5[("on_demand", None)]["price_per_hour"] == 55.04 and p5[("on_demand", None)]["vcpus"] == 192
    assert p5[("on_demand", None)]["gpu_count"] == 8 and p5[("on_demand", None)]["gpu_memory_gib"] == 80.0
    assert p5[("spot", "use1-az3")]["price_per_hour"] == 14.582 and p5[("spot", "use1-az5")]["price_per_hour"] == 14.246
    assert all(r["source"].startswith("replay:aws@") for r in records)


def test_skipped_records_windows_and_fpga_are_counted_in_status() -> None:
    offers, status = _replay()
    assert not any(o.instance_type.startswith("f1.") for o in offers)
    assert status.skipped_reasons == {"instance type: ValueError: left out: FPGA instance type, not a GPU": 6,
                                      "capacity block offering whose start has passed (left out)": 3}
    # us-east-2 also holds the real Windows BYOL p3.8xlarge row: still one on-demand offer, the Linux one
    p3 = [o for o in offers if o.instance_type == "p3.8xlarge" and o.region.code == "us-east-2"
          and o.price.purchase == "on_demand"]
    assert len(p3) == 1 and p3[0].gpu_name == "V100" and p3[0].gpu_count == 4
    # dl2q's Qualcomm AI100 is a known accelerator, not a GPU: counted in a warning, never an unknown GPU
    assert status.unknown_gpus == {}
    assert any(w.startswith("offers of accelerators that are not GPUs, shown only with --include-accelerators: ")
               and "AI100 (4)" in w for w in status.warnings), status.warnings


def test_bundled_recording_parses_well_under_a_second() -> None:
    manifest = load_manifest(AwsProvider().fixtures_dir())
    files = [manifest.directory / e["response"]["body_file"] for e in manifest.exchanges  # type: ignore[operator]
             if e["response"]["body_file"].startswith("offers-")]
    assert sum(f.stat().st_size for f in files) < 3_000_000
    started = time.perf_counter()
    total = sum(len(parse_offer_file([f.read_bytes()], f.stem[7:], is_accelerated).prices) for f in files)
    assert time.perf_counter() - started < 1.0
    assert total == 835  # (type, region) pairs with a price, FPGA types included (left out later)


# --- live walk ---------------------------------------------------------------------------------------------
def test_live_walk_is_signed_and_matches_the_recording() -> None:
    replay = ReplayTransport(load_manifest(AwsProvider().fixtures_dir()))

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        if request.url.host.startswith(("ec2.", "servicequotas.")):
            auth = request.headers["authorization"]
            service = request.url.host.split(".")[0]
            assert auth.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") and f"/{service}/aws4_request" in auth
            assert "x-amz-date" in request.headers
        else:
            assert "authorization" not in request.headers  # the offer files are public
        body = request.content.decode()
        if "DescribeCapacityBlockOfferings" in body and not (  # only the real us-east-2 p4d answer is recorded
                "p4d.24xlarge" in body and request.url.host == "ec2.us-east-2.amazonaws.com"):
            asked.append(request)
            return httpx.Response(200, content=f'<DescribeCapacityBlockOfferingsResponse xmlns="{NS}">'
                                  "<capacityBlockOfferingSet/></DescribeCapacityBlockOfferingsResponse>".encode())
        return replay.handle_request(request)

    asked: list[httpx.Request] = []
    offers, status, transport = _live(handler)
    replayed, _ = _replay()

    # No offering still to come anywhere (the real Feb 2025 ones have passed, the others answered none): live and
    # replayed alike, every covered region and type gets the published-rate windows.
    assert status.state == "ok" and len(offers) == len(replayed)
    blocks = sum("DescribeCapacityBlockOfferings" in (e["request"]["body"] or "") for e in replay.manifest.exchanges)
    assert blocks == 1
    # offer files, DescribeInstanceTypes pages, spot per region, the spot advisor feed, capacity block offerings
    # ... and Service Quotas in every region (recorded for two; the others are misses: quotas unknown)
    assert transport.calls == 23 + 2 + 23 + 1 + len(asked) + blocks + 23 and len(asked) > 40


def test_session_token_is_signed_and_never_recorded(tmp_path: Path) -> None:
    env = {**ONE_REGION, "AWS_SESSION_TOKEN": "FQoGZXIvYXdzEXAMPLETOKEN"}
    pages = {None: _spot_page([("p5.48xlarge", "use1-az3", "14.582000")])}
    _, status, transport = _live(_small_cloud(pages), env)
    assert status.state == "ok"
    ec2 = [r for r in transport.requests if r.method == "POST"]
    assert ec2 and all(r.headers["x-amz-security-token"] == "FQoGZXIvYXdzEXAMPLETOKEN" for r in ec2)


def test_spot_pages_are_followed_one_offer_per_zone() -> None:
    pages = {None: _spot_page([("p5.48xlarge", "use1-az3", "14.582000")], "page-2"),
             "page-2": _spot_page([("p5.48xlarge", "use1-az5", "14.246000"), ("g6.xlarge", "use1-az1", "0.2")])}
    offers, status, transport = _live(_small_cloud(pages), ONE_REGION)
    assert status.state == "ok"
    spot = {(o.instance_type, o.region.zone): o.price.amount for o in offers if o.price.purchase == "spot"}
    assert spot == {("p5.48xlarge", "use1-az3"): Decimal("14.582"), ("p5.48xlarge", "use1-az5"): Decimal("14.246"),
                    ("g6.xlarge", "use1-az1"): Decimal("0.2")}
    spot_requests = [_form(r) for r in transport.requests if r.method == "POST" and
                     _form(r).get("Action") == "DescribeSpotPriceHistory"]
    assert [r.get("NextToken") for r in spot_requests] == [None, "page-2"]
    first = spot_requests[0]
    assert (first["ProductDescription.1"], first["StartTime"]) == ("Linux/UNIX", "2026-11-30T00:00:00Z")
    assert {first["InstanceType.1"], first["InstanceType.2"]} == {"g6.xlarge", "p5.48xlarge"}


def test_spot_pagination_loop_fails_the_provider() -> None:
    pages = {None: _spot_page([], "again"), "again": _spot_page([], "again")}
    offers, status, _ = _live(_small_cloud(pages), ONE_REGION)
    assert status.state == "failed" and "pagination loop" in (status.reason or "") and offers == ()


def test_live_specs_replace_the_bundled_table_and_bad_items_are_skipped() -> None:
    pages = {None: _spot_page([])}
    offers, status, _ = _live(_small_cloud(pages), ONE_REGION)
    g6 = next(o for o in offers if o.instance_type == "g6.xlarge")
    assert (g6.gpu_name, g6.instance.vcpus, g6.instance.memory_gib) == ("L4", 4, 16.0)
    assert status.skipped_reasons == {"instance type spec: missing field 'InstanceType'": 1}


def test_describe_instance_types_not_authorized_falls_back_to_bundled_specs() -> None:
    denied = (b"<Response><Errors><Error><Code>UnauthorizedOperation</Code><Message>not authorized</Message>"
              b"</Error></Errors><RequestID>x</RequestID></Response>")
    inner = _small_cloud({None: _spot_page([("p5.48xlarge", "use1-az3", "14.582000")])})

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        if request.method == "POST" and _form(request).get("Action") == "DescribeInstanceTypes":
            return httpx.Response(403, content=denied, headers={"content-type": "text/xml"})
        return inner(request, n)

    offers, status, _ = _live(handler, ONE_REGION)
    assert status.state == "ok" and any("bundled spec table" in w for w in status.warnings)
    p5 = next(o for o in offers if o.instance_type == "p5.48xlarge" and o.price.purchase == "on_demand")
    assert (p5.gpu_name, p5.instance.vcpus) == ("H100", 192)


class _DropAfter(httpx.SyncByteStream):
    """A body that breaks off after some bytes, like a connection reset mid-download."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __iter__(self) -> Iterator[bytes]:
        yield self.data[: len(self.data) // 2]
        raise httpx.ReadError("connection reset by peer")


def test_offer_file_dropped_mid_stream_is_retried() -> None:
    inner = _small_cloud({None: _spot_page([])})

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        if request.method == "GET" and n == 1:
            return httpx.Response(200, stream=_DropAfter(_small_offer_file()))
        return inner(request, n)

    offers, status, transport = _live(handler, ONE_REGION)
    # offer file twice, specs, spot advisor, service quotas, spot, capacity blocks of p5.48xlarge
    assert status.state == "ok" and transport.calls == 7
    assert {o.instance_type for o in offers if o.price.purchase == "on_demand"} == {"p5.48xlarge", "g6.xlarge"}


def test_truncated_offer_file_fails_instead_of_a_smaller_catalog() -> None:
    data = _small_offer_file()

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        return httpx.Response(200, content=data[: len(data) - 40], headers={"content-type": "application/json"})

    offers, status, _ = _live(handler, ONE_REGION)
    assert status.state == "failed" and "incomplete" in (status.reason or "") and offers == ()


def test_china_region_prices_in_cny_from_the_cn_host() -> None:
    def handler(request: httpx.Request, n: int) -> httpx.Response:
        if request.method == "GET":
            assert request.url.host == "pricing.cn-north-1.amazonaws.com.cn"
            assert request.url.path == "/offers/v1.0/cn/AmazonEC2/current/cn-northwest-1/index.json"
            return httpx.Response(200, content=_small_offer_file("cn-northwest-1", "CNY"))
        assert request.url.host == "ec2.cn-northwest-1.amazonaws.com.cn"
        return _small_cloud({None: _spot_page([("g6.xlarge", "cnw1-az1", "2.1000")])})(request, n)

    offers, status, _ = _live(handler, {**KEYS, "GPUHUB_AWS_REGIONS": "cn-northwest-1"})
    assert status.state == "ok" and offers
    assert {o.price.currency for o in offers} == {"CNY"}
    assert {o.region.code for o in offers} == {"cn-northwest-1"}


def test_public_only_mode_needs_no_credentials_and_asks_only_offer_files() -> None:
    offers, status, transport = _live(_small_cloud({}), {"GPUHUB_AWS_REGIONS": "us-east-1",
                                                          "GPUHUB_AWS_PUBLIC_ONLY": "1"})
    assert status.state == "ok" and transport.calls == 1
    # On-demand from the offer file, and capacity blocks at the published rate (no credentials needed for a price)
    assert {o.price.purchase for o in offers} == {"on_demand", "capacity_block"}
    assert all(o.price.data_origin for o in offers if o.price.purchase == "capacity_block")
    assert any("spot needs credentials" in w for w in status.warnings)


def test_profile_credentials_from_the_shared_file(tmp_path: Path) -> None:
    creds = tmp_path / "credentials"
    creds.write_text("[gpu]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = c2VjcmV0\n")
    env = {"AWS_PROFILE": "gpu", "AWS_SHARED_CREDENTIALS_FILE": str(creds), "AWS_CONFIG_FILE": str(tmp_path / "x"),
           "GPUHUB_AWS_REGIONS": "us-east-1"}
    _, status, transport = _live(_small_cloud({None: _spot_page([])}), env)
    assert status.state == "ok"
    posts = [r for r in transport.requests if r.method == "POST"]
    assert posts and all("Credential=AKIDPROFILE/" in r.headers["authorization"] for r in posts)


def test_invalid_region_setting_is_reported() -> None:
    _, status, transport = _live(_small_cloud({}), {**KEYS, "GPUHUB_AWS_REGIONS": "us-east-1,../etc"})
    assert status.state == "failed" and "GPUHUB_AWS_REGIONS" in (status.reason or "") and transport.calls == 0


def test_auto_mode_without_credentials_replays_the_bundle() -> None:
    engine = make_engine(Registry(), environ={})
    offers, status = run_provider(engine, "aws")
    assert status.state == "ok" and status.mode == "replay" and len(offers) > 2000


def test_regions_are_ec2_region_codes_and_zones_are_zone_ids() -> None:
    offers, _ = _replay()
    regions = {o.region.code for o in offers}
    assert regions == set(DEFAULT_REGIONS)
    assert all(o.region.country and o.region.continent for o in offers)  # known to gpuhub's region table
    prefixes = {"us-east-1": "use1", "eu-central-1": "euc1", "ap-northeast-1": "apne1", "us-west-2": "usw2"}
    for offer in offers:
        if offer.price.purchase == "spot":
            assert re.fullmatch(r"[a-z]+\d-az\d+", offer.region.zone or ""), offer.region
            if offer.region.code in prefixes:
                assert offer.region.zone.startswith(prefixes[offer.region.code] + "-")  # type: ignore[union-attr]
        elif offer.price.purchase == "capacity_block":  # published-rate windows: per region (an API offering
            assert offer.region.zone is None, offer.region  # names its zone, as the account sees it)
        else:
            assert offer.region.zone is None


def test_spot_placement_scores_score_spot_offers_per_zone_when_asked_for() -> None:
    # the awscli documentation's example answer (SingleAvailabilityZone): use1-az1 scores 8
    inner = _small_cloud({None: _spot_page([("p5.48xlarge", "use1-az1", "14.582000"),
                                            ("p5.48xlarge", "use1-az3", "14.246000")])})

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        if request.method == "POST" and _form(request).get("Action") == "GetSpotPlacementScores":
            body = (f'<GetSpotPlacementScoresResponse xmlns="{NS}"><spotPlacementScoreSet><item>'
                    "<region>us-east-1</region><availabilityZoneId>use1-az1</availabilityZoneId><score>8</score>"
                    "</item></spotPlacementScoreSet></GetSpotPlacementScoresResponse>")
            return httpx.Response(200, content=body.encode())
        return inner(request, n)

    transport = CountingTransport(handler)
    engine = make_engine(Registry(), transport=transport,
                         environ={**ONE_REGION, "GPUHUB_AWS_PLACEMENT_SCORES": "1"})
    try:
        found = gpuhub.search(instance_type="p5.48xlarge", purchase="spot", min_placement_score=7, engine=engine,
                              fetch="live")
    finally:
        engine.shutdown()
    assert [(o.region.zone, o.obtain.placement_score if o.obtain else None) for o in found] == [("use1-az1", 8)]
    assert found.removed_by["min_placement_score"] == 1  # use1-az3 has no score: unknown never passes
    asked = [_form(r) for r in transport.requests if r.method == "POST"
             and _form(r).get("Action") == "GetSpotPlacementScores"]
    assert {a["InstanceTypes.1"] for a in asked} == {"p5.48xlarge", "g6.xlarge"}
    assert all(a["SingleAvailabilityZone"] == "true" and a["RegionNames.1"] == "us-east-1" for a in asked)
