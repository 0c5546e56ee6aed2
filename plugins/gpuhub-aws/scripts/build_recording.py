"""Rebuild the AWS plugin's bundled recording and spec table from the facts in ../shared/reference.

Run from anywhere: ``python plugins/gpuhub-aws/scripts/build_recording.py``. Deterministic: the same inputs give
byte-identical outputs.

Inputs (read only):
* ``shared/reference/skypilot-catalog/aws/vms.csv``: every accelerator row of SkyPilot's AWS catalog (one row per
  instance type, region and availability-zone ID, with the on-demand ``Price`` and the zone's ``SpotPrice``, USD/h);
* ``shared/reference/provider-samples/aws/ec2-describe-instance-types.gpu-accel-subset.moto-5.2.1.json``: AWS's
  DescribeInstanceTypes data for accelerator types, as shipped by moto 5.2.1;
* ``shared/reference/provider-samples/aws/price-list-bulk.AmazonEC2.us-east-2.excerpt.opencost-test.json``: a
  real offer-file excerpt (a Windows BYOL p3.8xlarge row at 12.24 USD/h and an m5.large reserved term), whose
  facts are carried into the us-east-2 file;
* ``gpuhub/data/regions.csv``: region display names for the ``location`` attribute.

Outputs (under ``gpuhub_aws/``):
* ``specs.json``: the bundled spec table (botocore PascalCase subset of DescribeInstanceTypes: accelerators, vCPUs,
  memory, network bandwidth, EFA and instance storage), moto's accelerator
  types plus p3/f1 rows from the SkyPilot catalog's ``GpuInfo``/accelerator columns (moto lacks them);
* ``recording/offers-<region>.json``: offer files in the bulk-file shape, one Linux/Shared/Used/OnDemand product
  per instance type with the catalog's on-demand price; us-east-1 also has capacity-reservation rows (Unused at the
  on-demand price, Allocated at 0) and a capacity-block row at 0; us-east-2 the real
  Windows BYOL row and the m5.large product with its reserved term. No GPU reserved terms: no source gives them;
* ``recording/spot-<region>.xml``: DescribeSpotPriceHistory answers, one item per zone ID with the catalog's
  ``SpotPrice`` (zones without one are absent);
* ``recording/describe-instance-types-<n>.xml``: DescribeInstanceTypes answers in us-east-1 rendered from moto's
  data for the types the catalog offers there;
* ``recording/manifest.json``: the exchanges and their provenance.
"""

from __future__ import annotations

import ast
import csv
import datetime as dt
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import urlencode
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
PLUGIN = HERE.parent
PACKAGE = PLUGIN / "gpuhub_aws"
REPO = PLUGIN.parent.parent
SHARED = REPO.parent / "shared" / "reference"
sys.path.insert(0, str(PLUGIN))

from gpuhub_aws.capacity_blocks import is_capacity_block_type  # noqa: E402
from gpuhub_aws.provider import (  # noqa: E402
    DEFAULT_REGIONS,
    SPEC_BATCH,
    AwsProvider,
    describe_instance_types_params,
    spot_history_params,
)

RECORDED_AT = "2026-11-30"
DATA_DATE_NOTE = ("SkyPilot AWS catalog v8 snapshot (skypilot-org/skypilot-catalog@e385a0d, commit date not known); "
                  "its content (p6-b200) dates it 2025 or later; the advisor feed is of 2025-06-28")
PUBLICATION = "2026-11-30T00:00:00Z"
VERSION = "20261130000000"
SPOT_TIMESTAMP = "2026-11-29T23:00:00.000Z"
ON_DEMAND_TERM = "JRTCKXETXF"
RATE = "6YS6EN2CT7"
NS = "http://ec2.amazonaws.com/doc/2016-11-15"
SPEC_KEYS = ("InstanceType", "VCpuInfo", "MemoryInfo", "GpuInfo", "NeuronInfo", "InferenceAcceleratorInfo",
             "FpgaInfo", "MediaAcceleratorInfo", "ProcessorInfo", "BareMetal", "NetworkInfo", "InstanceStorageInfo")
# NetworkInfo parts the bundled spec table keeps (gpuhub_aws/network.py reads them)
NETWORK_KEYS = ("NetworkPerformance", "EfaSupported", "EfaInfo")
CARD_KEYS = ("BaselineBandwidthInGbps", "PeakBandwidthInGbps")
ACCEL_KEYS = ("GpuInfo", "NeuronInfo", "InferenceAcceleratorInfo", "FpgaInfo", "MediaAcceleratorInfo")
# usagetype prefixes of EC2 regions (us-east-1 has none)
USAGE_PREFIX = {
    "us-east-1": "", "us-east-2": "USE2-", "us-west-1": "USW1-", "us-west-2": "USW2-", "ca-central-1": "CAN1-",
    "eu-central-1": "EUC1-", "eu-west-1": "EU-", "eu-west-2": "EUW2-", "eu-west-3": "EUW3-", "eu-north-1": "EUN1-",
    "eu-south-1": "EUS1-", "eu-south-2": "EUS2-", "ap-northeast-1": "APN1-", "ap-northeast-2": "APN2-",
    "ap-northeast-3": "APN3-", "ap-south-1": "APS3-", "ap-southeast-1": "APS1-", "ap-southeast-2": "APS2-",
    "ap-southeast-3": "APS4-", "ap-east-1": "APE1-", "me-central-1": "MEC1-", "me-south-1": "MES1-",
    "af-south-1": "AFS1-",
}


def sku(*parts: str) -> str:
    """A stable 16-character SKU-like code for a reconstructed product."""
    digest = hashlib.sha256("|".join(parts).encode()).digest()
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return "".join(alphabet[b % len(alphabet)] for b in digest[:16])


def load_catalog() -> list[dict[str, str]]:
    with open(SHARED / "skypilot-catalog" / "aws" / "vms.csv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def load_moto() -> dict[str, dict[str, Any]]:
    path = SHARED / "provider-samples" / "aws" / "ec2-describe-instance-types.gpu-accel-subset.moto-5.2.1.json"
    return {t["InstanceType"]: t for t in json.loads(path.read_text(encoding="utf-8"))["InstanceTypes"]}


def region_names() -> dict[str, str]:
    with open(REPO / "gpuhub" / "data" / "regions.csv", newline="", encoding="utf-8") as fh:
        return {r["region"]: r["region_name"] for r in csv.DictReader(fh) if r["provider"] == "aws"}


def build_specs(moto: dict[str, dict[str, Any]], rows: list[dict[str, str]]) -> list[dict[str, Any]]:
    """Spec table: moto's accelerator types (subset of fields), plus catalog rows for types moto lacks."""
    out: dict[str, dict[str, Any]] = {}
    for name, item in moto.items():
        if not any(k in item for k in ACCEL_KEYS):
            continue
        entry = {k: item[k] for k in SPEC_KEYS if k in item}
        if "ProcessorInfo" in entry:
            entry["ProcessorInfo"] = {"SupportedArchitectures": entry["ProcessorInfo"]["SupportedArchitectures"]}
        if "NetworkInfo" in entry:
            network = entry["NetworkInfo"]
            entry["NetworkInfo"] = {k: network[k] for k in NETWORK_KEYS if k in network}
            if network.get("NetworkCards"):
                entry["NetworkInfo"]["NetworkCards"] = [{k: c[k] for k in CARD_KEYS if k in c}
                                                        for c in network["NetworkCards"]]
        out[name] = entry
    for row in rows:
        name = row["InstanceType"]
        if name in out:
            continue
        entry = {"InstanceType": name, "VCpuInfo": {"DefaultVCpus": int(float(row["vCPUs"]))},
                 "MemoryInfo": {"SizeInMiB": int(float(row["MemoryGiB"]) * 1024)},
                 "ProcessorInfo": {"SupportedArchitectures": [row["Arch"] or "x86_64"]}, "BareMetal": False}
        if row["GpuInfo"]:
            entry["GpuInfo"] = ast.literal_eval(row["GpuInfo"])
        elif name.startswith("f1."):
            entry["FpgaInfo"] = {"Fpgas": [{"Name": row["AcceleratorName"], "Manufacturer": "Xilinx",
                                            "Count": int(float(row["AcceleratorCount"]))}]}
        else:
            continue
        out[name] = entry
    return [out[k] for k in sorted(out)]


def instance_family(spec: dict[str, Any] | None) -> str:
    if spec is None or "GpuInfo" in spec:
        return "GPU instance"
    if "FpgaInfo" in spec:
        return "FPGA Instances"
    return "Machine Learning ASIC Instances"


def product(region: str, name: str, row: dict[str, str], spec: dict[str, Any] | None, names: dict[str, str],
            **override: str) -> tuple[str, dict[str, Any]]:
    """One Compute Instance product; ``override`` changes attributes (operatingSystem, capacitystatus, ...)."""
    attrs = {
        "servicecode": "AmazonEC2", "location": names.get(region, region), "locationType": "AWS Region",
        "instanceType": name, "currentGeneration": "Yes", "instanceFamily": instance_family(spec),
        "vcpu": str(int(float(row["vCPUs"]))), "memory": f"{float(row['MemoryGiB']):g} GiB",
        "processorArchitecture": "64-bit", "tenancy": "Shared", "operatingSystem": "Linux",
        "licenseModel": "No License required", "usagetype": f"{USAGE_PREFIX.get(region, '')}BoxUsage:{name}",
        "operation": "RunInstances", "availabilityzone": "NA", "capacitystatus": "Used",
        "marketoption": "OnDemand", "preInstalledSw": "NA", "regionCode": region,
        "servicename": "Amazon Elastic Compute Cloud",
    }
    count = float(row["AcceleratorCount"] or 0)
    if spec is not None and "GpuInfo" in spec and count >= 1:
        attrs["gpu"] = str(int(count))
        attrs["gpuMemory"] = "NA"
    attrs.update(override)
    code = sku(region, name, *(f"{k}={v}" for k, v in sorted(override.items())))
    return code, {"sku": code, "productFamily": "Compute Instance", "attributes": attrs}


def on_demand_term(code: str, price: str, description: str, currency: str = "USD") -> dict[str, Any]:
    term = f"{code}.{ON_DEMAND_TERM}"
    return {term: {"offerTermCode": ON_DEMAND_TERM, "sku": code, "effectiveDate": "2026-11-01T00:00:00Z",
                   "priceDimensions": {f"{term}.{RATE}": {
                       "rateCode": f"{term}.{RATE}", "description": description, "beginRange": "0",
                       "endRange": "Inf", "unit": "Hrs", "pricePerUnit": {currency: f"{float(price):.10f}"},
                       "appliesTo": []}},
                   "termAttributes": {}}}


def offer_file(region: str, rows: dict[str, dict[str, str]], specs: dict[str, dict[str, Any]],
               names: dict[str, str]) -> dict[str, Any]:
    products: dict[str, Any] = {}
    on_demand: dict[str, Any] = {}
    reserved: dict[str, Any] = {}
    for name in sorted(rows):
        row = rows[name]
        code, prod = product(region, name, row, specs.get(name), names)
        products[code] = prod
        on_demand[code] = on_demand_term(code, row["Price"], f"${float(row['Price']):g} per On Demand Linux "
                                                             f"{name} Instance Hour")
    extras: list[tuple[str, dict[str, str], str, str]] = []
    if region == "us-east-1":
        for name in ("p4d.24xlarge", "p5.48xlarge"):
            row = rows[name]
            extras.append((name, {"capacitystatus": "UnusedCapacityReservation",
                                  "usagetype": f"UnusedBox:{name}"}, row["Price"],
                           f"${float(row['Price']):g} per Unused Reservation Linux {name} Instance Hour"))
            extras.append((name, {"capacitystatus": "AllocatedCapacityReservation",
                                  "usagetype": f"Reservation:{name}"}, "0",
                           f"$0.00 per Reservation Linux {name} Instance Hour"))
        extras.append(("p5.48xlarge", {"marketoption": "CapacityBlock", "usagetype": "CapacityBlock:p5.48xlarge"},
                       "0", "$0.00 per Capacity Block Linux p5.48xlarge Instance Hour"))
    for name, override, price, description in extras:
        code, prod = product(region, name, rows[name], specs.get(name), names, **override)
        products[code] = prod
        on_demand[code] = on_demand_term(code, price, description)
    if region == "us-east-2":
        add_opencost_facts(products, on_demand, reserved, rows, specs, names)
    return {"formatVersion": "v1.0",
            "disclaimer": "Reconstructed by gpuhub-aws scripts/build_recording.py from the SkyPilot AWS catalog "
                          "(on-demand prices); not an AWS publication.",
            "offerCode": "AmazonEC2", "version": VERSION, "publicationDate": PUBLICATION,
            "products": products, "terms": {"OnDemand": on_demand, "Reserved": reserved}, "attributesList": {}}


def add_opencost_facts(products: dict[str, Any], on_demand: dict[str, Any], reserved: dict[str, Any],
                       rows: dict[str, dict[str, str]], specs: dict[str, dict[str, Any]],
                       names: dict[str, str]) -> None:
    """The real us-east-2 facts of the opencost excerpt: Windows BYOL p3.8xlarge 12.24 USD/h; m5.large with a
    3-year convertible All Upfront reserved term of 1161 USD."""
    path = SHARED / "provider-samples" / "aws" / "price-list-bulk.AmazonEC2.us-east-2.excerpt.opencost-test.json"
    sample = json.loads(path.read_text(encoding="utf-8"))
    for code, prod in sample["products"].items():
        attrs = prod["attributes"]
        if attrs.get("instanceType") == "p3.8xlarge":
            products[code] = prod
            on_demand[code] = sample["terms"]["OnDemand"][code]
        elif attrs.get("instanceType") == "m5.large":
            products[code] = prod
            reserved[code] = sample["terms"]["Reserved"][code]


def spot_xml(items: list[tuple[str, str, str]]) -> str:
    parts = [f'<?xml version="1.0" encoding="UTF-8"?>\n<DescribeSpotPriceHistoryResponse xmlns="{NS}">'
             f"<requestId>{sku('spot', str(len(items)))}</requestId><spotPriceHistorySet>"]
    for name, zone_id, price in items:
        parts.append(f"<item><availabilityZoneId>{zone_id}</availabilityZoneId><instanceType>{name}</instanceType>"
                     f"<productDescription>Linux/UNIX</productDescription><spotPrice>{price}</spotPrice>"
                     f"<timestamp>{SPOT_TIMESTAMP}</timestamp></item>")
    parts.append("</spotPriceHistorySet><nextToken/></DescribeSpotPriceHistoryResponse>\n")
    return "\n".join(parts)


def _xml_value(name: str, value: Any) -> str:
    tag = name[:1].lower() + name[1:]
    tag = {"workloads": "workloadSet", "vCpuInfo": "vCpuInfo"}.get(tag, tag)
    if isinstance(value, dict):
        return f"<{tag}>" + "".join(_xml_value(k, v) for k, v in value.items()) + f"</{tag}>"
    if isinstance(value, list):
        inner = "".join(("<item>" + "".join(_xml_value(k, v) for k, v in x.items()) + "</item>")
                        if isinstance(x, dict) else f"<item>{escape(str(x))}</item>" for x in value)
        return f"<{tag}>{inner}</{tag}>"
    if isinstance(value, bool):
        value = "true" if value else "false"
    return f"<{tag}>{escape(str(value))}</{tag}>"


def instance_types_xml(items: list[dict[str, Any]], page: int) -> str:
    body = "".join("<item>" + "".join(_xml_value(k, v) for k, v in item.items()) + "</item>" for item in items)
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<DescribeInstanceTypesResponse xmlns="{NS}">'
            f"<requestId>{sku('types', str(page))}</requestId><instanceTypeSet>{body}</instanceTypeSet>"
            "</DescribeInstanceTypesResponse>\n")


# --- obtainability (issue 17): separate from the offer exchanges above ----------------------------------------
ADVISOR_LAST_MODIFIED = "Sat, 28 Jun 2025 00:00:00 GMT"
"""The date the advisor snapshot last changed (alexei-led/spotinfo commit 5eedf20a, 2025-06-28)."""


def advisor_feed(types: set[str]) -> dict[str, Any]:
    """The Spot Instance Advisor feed cut to the accelerator types of the recording (all regions, both OSes),
    values unchanged, ``ranges`` and ``global_rate`` whole."""
    path = SHARED / "obtainability" / "aws" / "spot-advisor-data.full.2025-06.spotinfo.json"
    feed = json.loads(path.read_text(encoding="utf-8"))
    advisor = {region: {os_name: {t: row for t, row in sorted(rows.items()) if t in types}
                        for os_name, rows in sorted(by_os.items())}
               for region, by_os in sorted(feed["spot_advisor"].items())}
    return {"global_rate": feed["global_rate"],
            "instance_types": {t: v for t, v in sorted(feed["instance_types"].items()) if t in types},
            "ranges": feed["ranges"], "spot_advisor": advisor}


CAPACITY_BLOCK_SAMPLE = "capacity-block-offerings-p4d-cli-output.aws-samples-HOWTO-excerpt.md"


def capacity_block_sample() -> list[dict[str, Any]]:
    """The real p4d.24xlarge offerings (us-east-2a, Feb 2025) of the aws-samples HOW-TO's CLI output."""
    text = (SHARED / "obtainability" / "aws" / CAPACITY_BLOCK_SAMPLE).read_text(encoding="utf-8")
    start = text.index("```json") + len("```json")
    items: list[dict[str, Any]] = json.loads(text[start:text.index("```", start)])
    return items


def capacity_block_xml(region: str, itype: str, offerings: list[dict[str, Any]]) -> str:
    parts = []
    for item in offerings:
        start = dt.datetime.fromisoformat(item["StartDate"])
        end = start + dt.timedelta(hours=item["CapacityBlockDurationHours"])
        parts.append(
            f"<item><capacityBlockOfferingId>{item['CapacityBlockOfferingId']}</capacityBlockOfferingId>"
            f"<instanceType>{itype}</instanceType><availabilityZone>{item['AvailabilityZone']}</availabilityZone>"
            f"<instanceCount>1</instanceCount><startDate>{start.strftime('%Y-%m-%dT%H:%M:%S.000Z')}</startDate>"
            f"<endDate>{end.strftime('%Y-%m-%dT%H:%M:%S.000Z')}</endDate>"
            f"<capacityBlockDurationHours>{item['CapacityBlockDurationHours']}</capacityBlockDurationHours>"
            f"<upfrontFee>{item['UpfrontFee']}</upfrontFee><currencyCode>USD</currencyCode>"
            f"<tenancy>default</tenancy><capacityBlockDurationMinutes>0</capacityBlockDurationMinutes></item>")
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<DescribeCapacityBlockOfferingsResponse xmlns="{NS}">'
            f"<requestId>{sku('cb', region, itype)}</requestId><capacityBlockOfferingSet>{''.join(parts)}"
            "</capacityBlockOfferingSet></DescribeCapacityBlockOfferingsResponse>\n")


def capacity_block_exchanges(out: Path, exchanges: list[dict[str, Any]],
                             offer_types: dict[str, list[str]]) -> int:
    """The one real DescribeCapacityBlockOfferings answer: the p4d.24xlarge us-east-2 sample as answered (the
    published rates of every other region and type are the plugin's ``data/capacity_block_rates.csv``)."""
    from gpuhub_aws.capacity_blocks import DEFAULT_HOURS, capacity_block_params, is_capacity_block_type

    count = 0
    for region, types in offer_types.items():
        for itype in types:
            if not is_capacity_block_type(itype):
                continue
            # Only the real answer is recorded: a block offering is for one start time, so a made-up answer
            # would go stale; replayed, the plugin makes windows for the fetch's own time from the published
            # rates (gpuhub_aws/data/capacity_block_rates.csv), and the real Feb 2025 offerings are left out
            # (their start has passed) and counted.
            if (region, itype) != ("us-east-2", "p4d.24xlarge"):
                continue
            offerings = capacity_block_sample()
            name = f"capacity-blocks-{region}-{itype}.xml"
            (out / name).write_text(capacity_block_xml(region, itype, offerings), encoding="utf-8")
            body = urlencode(capacity_block_params(itype, DEFAULT_HOURS))
            exchanges.append({"request": {"method": "POST", "url": f"https://ec2.{region}.amazonaws.com/",
                                          "body": body},
                              "response": {"status": 200, "headers": {"content-type": "text/xml;charset=UTF-8"},
                                           "body_file": name}})
            count += len(offerings)
    return count


QUOTA_SAMPLES = {"us-east-1": "service-quotas-ListServiceQuotas-ec2-us-east-1.cloudsploit-fixture.json",
                 "me-south-1": "service-quotas-ListServiceQuotas-ec2-me-south-1-with-spot.cloudsploit-fixture.json"}


def quota_exchanges(out: Path, exchanges: list[dict[str, Any]]) -> list[str]:
    """One ListServiceQuotas page per region with a real fixture, ARNs' account ids sanitised."""
    import re

    from gpuhub_aws.quotas import list_quotas_body

    for region, sample in QUOTA_SAMPLES.items():
        data = json.loads((SHARED / "obtainability" / "aws" / sample).read_text(encoding="utf-8"))
        quotas = [{**q, "QuotaArn": re.sub(r":\d{12}:", ":000011112222:", q["QuotaArn"])} if "QuotaArn" in q
                  else q for q in data["Quotas"]]
        name = f"service-quotas-{region}.json"
        (out / name).write_text(json.dumps({"Quotas": quotas}, separators=(",", ":")) + "\n", encoding="utf-8")
        exchanges.append({"request": {"method": "POST", "url": f"https://servicequotas.{region}.amazonaws.com/",
                                      "body": list_quotas_body()},
                          "response": {"status": 200, "headers": {"content-type": "application/x-amz-json-1.1"},
                                       "body_file": name}})
    return list(QUOTA_SAMPLES)


def add_obtain_exchanges(out: Path, exchanges: list[dict[str, Any]], types: set[str],
                         offer_types: dict[str, list[str]]) -> str:
    """Add the obtainability exchanges (spot advisor feed, capacity block offerings); return manifest notes."""
    from gpuhub_aws.advisor import ADVISOR_URL

    name = "spot-advisor.json"
    (out / name).write_text(json.dumps(advisor_feed(types), separators=(",", ":")) + "\n", encoding="utf-8")
    exchanges.append({"request": {"method": "GET", "url": ADVISOR_URL, "body": None},
                      "response": {"status": 200, "headers": {"content-type": "application/json",
                                                              "last-modified": ADVISOR_LAST_MODIFIED},
                                   "body_file": name}})
    notes = ("Spot Instance Advisor: the June 2025 feed (spotinfo snapshot, last changed 2025-06-28, the "
             "Last-Modified header) cut to the recording's accelerator types, values unchanged. ")
    quota_regions = quota_exchanges(out, exchanges)
    blocks = capacity_block_exchanges(out, exchanges, offer_types)
    notes += (f"Capacity Blocks for ML ({blocks} offerings): only the real p4d.24xlarge us-east-2a answer of Feb "
              "2025 (aws-samples HOW-TO: 24 h 283 USD, 19 h 228 USD, 43 h 511 USD) as it was answered; its starts "
              "have passed, so replayed they are left out and counted; the plugin makes windows for the fetch's "
              "own time from the published rates (data/capacity_block_rates.csv, pricing page of 2026-07-22). "
              f"Service Quotas: ListServiceQuotas (ec2) answers for {', '.join(quota_regions)} from the cloudsploit "
              "test fixtures (2021; real-looking accounts, account ids in ARNs replaced by 000011112222); no "
              "other region has one, so quotas there are unknown in replay.")
    return notes


def add_block_only_products(data: dict[str, Any], region: str, rows: dict[str, dict[str, str]],
                            specs: dict[str, dict[str, Any]], names: dict[str, str]) -> None:
    """Types the catalog lists in a region without an on-demand price (p5e, some trn1.32xlarge: Capacity Blocks
    only) get a Linux Capacity Block product at 0, so the offer file lists them and spot is asked for them."""
    for name in sorted(rows):
        override = {"marketoption": "CapacityBlock",
                    "usagetype": f"{USAGE_PREFIX.get(region, '')}CapacityBlock:{name}"}
        code, prod = product(region, name, rows[name], specs.get(name), names, **override)
        data["products"][code] = prod
        data["terms"]["OnDemand"][code] = on_demand_term(
            code, "0", f"$0.00 per Capacity Block Linux {name} Instance Hour")


def main() -> None:
    rows = load_catalog()
    moto = load_moto()
    names = region_names()
    specs_list = build_specs(moto, rows)
    specs = {s["InstanceType"]: s for s in specs_list}
    (PACKAGE / "specs.json").write_text(
        json.dumps({"source": "moto 5.2.1 DescribeInstanceTypes data (AWS specs) for accelerator types; p3 and f1 "
                              "rows from the SkyPilot AWS catalog (GpuInfo, vCPUs, MemoryGiB)",
                    "InstanceTypes": specs_list}, separators=(",", ":"), sort_keys=False) + "\n",
        encoding="utf-8")

    by_region: dict[str, dict[str, dict[str, str]]] = defaultdict(dict)
    spot: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    block_only: dict[str, dict[str, dict[str, str]]] = defaultdict(dict)
    for row in rows:
        region = row["Region"]
        if not row["Price"]:  # no public on-demand price (p5e: capacity blocks only): a Capacity Block product
            if is_capacity_block_type(row["InstanceType"]):
                block_only[region].setdefault(row["InstanceType"], row)
                if row["SpotPrice"]:
                    spot[region].append((row["InstanceType"], row["AvailabilityZone"], row["SpotPrice"]))
            continue
        by_region[region].setdefault(row["InstanceType"], row)
        if row["SpotPrice"]:
            spot[region].append((row["InstanceType"], row["AvailabilityZone"], row["SpotPrice"]))
    for region, types in block_only.items():  # a type priced in some zones of a region is not block-only there
        for name in [t for t in types if t in by_region[region]]:
            del types[name]
    regions = [r for r in DEFAULT_REGIONS if r in by_region]
    missing = sorted(set(by_region) - set(regions))
    if missing:
        raise SystemExit(f"catalog regions not in DEFAULT_REGIONS: {missing}")

    out = PACKAGE / "recording"
    out.mkdir(exist_ok=True)
    for old in out.glob("*"):
        old.unlink()
    provider = AwsProvider()
    exchanges: list[dict[str, Any]] = []
    json_headers = {"content-type": "application/json"}
    xml_headers = {"content-type": "text/xml;charset=UTF-8"}
    all_types: set[str] = set()
    offer_types: dict[str, list[str]] = {}
    for region in regions:
        data = offer_file(region, by_region[region], specs, names)
        add_block_only_products(data, region, block_only.get(region, {}), specs, names)
        name = f"offers-{region}.json"
        (out / name).write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
        url = f"{provider.base_url}/offers/v1.0/aws/AmazonEC2/current/{region}/index.json"
        exchanges.append({"request": {"method": "GET", "url": url, "body": None},
                          "response": {"status": 200, "headers": json_headers, "body_file": name}})
        offer_types[region] = sorted(by_region[region])
        all_types.update(by_region[region])

    # DescribeInstanceTypes, once, in the first region: types the catalog offers there, from moto's data.
    first = regions[0]
    types = sorted(all_types)
    for page, start in enumerate(range(0, len(types), SPEC_BATCH), 1):
        batch = types[start:start + SPEC_BATCH]
        items = [{k: moto[t][k] for k in SPEC_KEYS if k in moto[t]} for t in batch
                 if t in moto and t in by_region[first]]
        name = f"describe-instance-types-{page}.xml"
        (out / name).write_text(instance_types_xml(items, page), encoding="utf-8")
        exchanges.append({"request": {"method": "POST", "url": f"https://ec2.{first}.amazonaws.com/",
                                      "body": urlencode(describe_instance_types_params(batch))},
                          "response": {"status": 200, "headers": xml_headers, "body_file": name}})

    for region in regions:
        name = f"spot-{region}.xml"
        (out / name).write_text(spot_xml(sorted(spot[region])), encoding="utf-8")
        body = urlencode(spot_history_params(sorted({*offer_types[region], *block_only.get(region, {})}),
                                             PUBLICATION))
        exchanges.append({"request": {"method": "POST", "url": f"https://ec2.{region}.amazonaws.com/", "body": body},
                          "response": {"status": 200, "headers": xml_headers, "body_file": name}})

    obtain_notes = add_obtain_exchanges(out, exchanges, all_types, offer_types)  # issue 17: risk, capacity blocks
    manifest = {
        "format": 1, "provider": "aws", "recorded_at": RECORDED_AT, "kind": "reconstructed",
        # The prices' own date: the catalog snapshot carries none (not the day this recording was rebuilt).
        "data_date": None, "data_date_note": DATA_DATE_NOTE,
        "source": "SkyPilot AWS catalog v8 (on-demand and per-zone spot prices) and moto 5.2.1 DescribeInstanceTypes "
                  "data (AWS specs), rebuilt into the API shapes by plugins/gpuhub-aws/scripts/build_recording.py",
        "notes": ("Offer files: one Linux/Shared/Used/OnDemand product per instance type and region with the "
                  "catalog's on-demand price; us-east-1 adds capacity-reservation rows (Unused at the on-demand "
                  "price, Allocated at 0), and a capacity-block row at 0; "
                  "us-east-2 adds the real Windows BYOL p3.8xlarge row (12.24 USD/h, 2023) and an m5.large "
                  "reserved term from the opencost excerpt. No GPU reserved terms: no source gives them. "
                  "Attributes the catalog lacks (location, usagetype prefix) follow AWS naming. Spot: one item "
                  "per availability-zone ID with the catalog's SpotPrice, timestamp just before StartTime; zone "
                  "names are omitted because the name-to-ID mapping differs per account. "
                  f"Regions: all {len(regions)} regions of the catalog. " + obtain_notes),
        "exchanges": exchanges,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    total = sum(p.stat().st_size for p in out.iterdir()) + (PACKAGE / "specs.json").stat().st_size
    print(f"wrote {len(exchanges)} exchanges for {len(regions)} regions, {total / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
