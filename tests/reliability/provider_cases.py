"""One row per provider for the fault matrix, the fuzzers and the secret scan.

Adding a provider is adding one :class:`ProviderCase` to :data:`CASES`: its fake credentials, what an empty page
looks like in its API, which request the faults hit, and three JSON edits of its recorded pages (a next-page link
that loops back, a field renamed in every record, one record missing its price).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from faultserver import Answer, Fault, FaultServer, Match, Unrecorded

from gpuhub import Offer

Json = Any
Edit = Callable[[Json, str], Json]


@dataclass(frozen=True)
class ProviderCase:
    """How the reliability suite drives one provider against the fault server.

    Attributes:
        name: the provider's registered name.
        env: fake credentials (every value a unique, greppable fake secret) and settings for live mode.
        fault_match: the request the faults hit (see :data:`faultserver.Match`): the second page of a walk (so a
            failure there is a walk that broke half-way), or the only request.
        first_match: the walk's first request (where the empty page goes).
        empty_page: the body meaning "no offers" in this API, served for ``first_match``.
        empty_lost: the offers an empty ``first_match`` page takes away (default: all of them).
        empty_warning: the status warning an empty page must give.
        rename_all: edit renaming a field every record needs (the API changed shape), applied to every page.
        renamed_field: the field ``rename_all`` renames (the skip reasons must name it).
        drop_one: edit removing a required field from one record of the ``fault_match`` page.
        drop_one_lost: the offers that record gave (they must be missing, nothing else).
        items / set_items: the records of one decoded page, and a page rebuilt with other records (fuzzers).
        fuzz_match: the page the fuzzers rewrite (default ``fault_match``); fuzz_env: settings that narrow the
            walk for the fuzzers (fewer regions), replacing ``env``.
        loop: edit of the ``loop_match`` page (or a ready fault) making its next-page link point back to an earlier
            page; None when the API has no pagination. loop_requests: requests matching ``loop_match`` before the
            loop is detected.
        forever / forever_match / page_cap / cap_env: a fault making every page of the walk point to a new next
            page (served for ``forever_match``), the provider's page cap (requests matching ``forever_match``
            before it must give up with an error), and settings lowering that cap.
        secret_match: a request that carries credentials (the secret scan's echo goes there; default
            ``fault_match``).
        server_env: more settings pointing at the server (``{server}`` is replaced by its URL), for providers
            with more than one host.
        streamed: ``fault_match`` is read with ``ctx.stream`` (a connection lost mid-body is not retried).
        words: per-fault words the failure reason must contain (override the defaults).
        xfail: per-test defect descriptions, keyed by fault id (strict xfail: fails until the plugin is fixed).
        unrecorded: answers to the requests a live walk makes that the recording lacks, built from what it holds
            (:data:`faultserver.Unrecorded`); None: such a request is a miss.
    """

    name: str
    env: Mapping[str, str]
    fault_match: Match
    first_match: Match
    empty_page: bytes
    rename_all: Edit
    renamed_field: str
    drop_one: Edit
    drop_one_lost: Callable[[Offer], bool]
    items: Callable[[Json], list[Any]]
    set_items: Callable[[Json, list[Any]], Json]
    empty_lost: Callable[[Offer], bool] = lambda offer: True
    empty_warning: str = "the provider returned no offers"
    fuzz_match: Match = None
    loop: Edit | Fault | None = None
    loop_match: Match = None
    loop_requests: int = 1
    server_env: Mapping[str, str] = field(default_factory=dict)
    secret_match: Match = None
    fuzz_env: Mapping[str, str] = field(default_factory=dict)
    forever: Fault | None = None
    forever_match: Match = None
    page_cap: int = 0
    cap_env: Mapping[str, str] = field(default_factory=dict)
    streamed: bool = False
    words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    xfail: Mapping[str, str] = field(default_factory=dict)
    unrecorded: Unrecorded | None = None


def of_type(instance_type: str) -> Callable[[Offer], bool]:
    """Offers of one instance type."""
    return lambda offer: offer.instance_type == instance_type


# --- helpers for JSON-list answers (most providers: one request, a list of records) ---------------------------
def _list_of(key: str) -> Callable[[Json], list[Any]]:
    return lambda page: list(page.get(key, [])) if isinstance(page, dict) else []


def _set_list(key: str) -> Callable[[Json, list[Any]], Json]:
    def rebuilt(page: Json, items: list[Any]) -> Json:
        out = copy.deepcopy(page)
        out[key] = items
        return out
    return rebuilt


def _whole_list(page: Json) -> list[Any]:
    return list(page) if isinstance(page, list) else []


def _replace_list(page: Json, items: list[Any]) -> Json:
    return list(items)


def _rename_in(key: str | None, old: str, new: str) -> Edit:
    """Rename ``old`` to ``new`` in every record of ``page[key]`` (``key`` None: the page is the list)."""
    def edit(page: Json, url: str) -> Json:
        records = page if key is None else (page.get(key, []) if isinstance(page, dict) else [])
        for record in records if isinstance(records, list) else []:
            if isinstance(record, dict) and old in record:
                record[new] = record.pop(old)
        return page
    return edit


def _drop_from(key: str | None, match: Callable[[dict[str, Any]], bool], field_name: str) -> Edit:
    """Remove ``field_name`` from the one record of ``page[key]`` that ``match`` selects."""
    def edit(page: Json, url: str) -> Json:
        records = page if key is None else page[key]
        [record] = [r for r in records if isinstance(r, dict) and match(r)]
        del record[field_name]
        return page
    return edit


def json_list_case(name: str, env: Mapping[str, str], path: str, key: str | None, *, field_name: str,
                   one: Callable[[dict[str, Any]], bool], lost: Callable[[Offer], bool], renamed_to: str | None = None,
                   first: str | None = None, empty_page: bytes | None = None, **more: Any) -> ProviderCase:
    """The row of a provider whose records come as one JSON list (``page[key]``; ``key`` None: the answer is the
    list) fetched from ``path``: the faults hit ``path`` (``first``: the walk's first request, default ``path``;
    its empty page is an empty list), the shape change renames ``field_name`` (to ``renamed_to``, default
    ``<field_name>_v2``) in every record, and the broken record is the one ``one`` selects, without ``field_name``
    (``lost``: the offers it gave). ``more``: any other :class:`ProviderCase` field."""
    empty = empty_page if empty_page is not None else (b"[]" if key is None else json.dumps({key: []}).encode())
    items, set_items = (_whole_list, _replace_list) if key is None else (_list_of(key), _set_list(key))
    return ProviderCase(
        name=name, env=env, fault_match=path, first_match=first or path, empty_page=empty,
        rename_all=_rename_in(key, field_name, renamed_to or f"{field_name}_v2"), renamed_field=field_name,
        drop_one=_drop_from(key, one, field_name), drop_one_lost=lost, items=items, set_items=set_items, **more)


# --- fakecloud (the core's example provider, tests/fakecloud.py) -------------------------------------------------
def _fake_items(page: Json) -> list[Any]:
    return list(page.get("offers", []))


def _fake_set(page: Json, items: list[Any]) -> Json:
    out = copy.deepcopy(page)
    out["offers"] = items
    return out


def _fake_rename(page: Json, url: str) -> Json:
    for item in page.get("offers", []):
        if "gpu_count" in item:
            item["gpus"] = item.pop("gpu_count")
    return page


def _fake_drop(page: Json, url: str) -> Json:
    for item in page.get("offers", []):
        if item.get("instance_type") == "a100x8-80":
            del item["regions"]
    return page


def _fake_loop(page: Json, url: str) -> Json:
    page["next_page"] = 1
    return page


def _fake_forever(page: Json, target: str) -> Json:
    number = int(re.search(r"page=(\d+)", target).group(1))  # type: ignore[union-attr]
    page["next_page"] = number + 1
    return page


FAKECLOUD = ProviderCase(
    name="fakecloud", env={"FAKECLOUD_TOKEN": "fake-fakecloud-bearer-7f3a9c1e"},
    fault_match="page=2", first_match="page=1", empty_page=b'{"offers": [], "next_page": null}',
    rename_all=_fake_rename, renamed_field="gpu_count", drop_one=_fake_drop, drop_one_lost=of_type("a100x8-80"),
    items=_fake_items, set_items=_fake_set, loop=_fake_loop, loop_match="page=2",
    words={"pagination_loop": ("pagination loop",), "page_cap": ("pagination loop or page cap at page 51",)},
    forever=Fault.next_page_forever(_fake_forever, like="page=2"), forever_match="page=", page_cap=50,
)


# --- lambda ----------------------------------------------------------------------------------------------------
def _lambda_entries(page: Json) -> Iterator[dict[str, Any]]:
    data = page.get("data", {})
    yield from (v.get("instance_type", {}) for v in data.values() if isinstance(v, dict))


def _lambda_items(page: Json) -> list[Any]:
    return [[name, entry] for name, entry in page.get("data", {}).items()]


def _lambda_set(page: Json, items: list[Any]) -> Json:
    out = copy.deepcopy(page)
    data: dict[str, Any] = {}
    for i, item in enumerate(items):
        pair = item if isinstance(item, list) and len(item) == 2 else [f"fuzz{i}", item]
        key = str(pair[0])
        data[key if key not in data else f"{key}#{i}"] = pair[1]  # a fuzzed name must not merge two records
    out["data"] = data
    return out


def _lambda_rename(page: Json, url: str) -> Json:
    for entry in _lambda_entries(page):
        if "price_cents_per_hour" in entry:
            entry["price_usd_cents"] = entry.pop("price_cents_per_hour")
    return page


def _lambda_drop(page: Json, url: str) -> Json:
    page["data"]["gpu_8x_v100"]["instance_type"].pop("price_cents_per_hour")
    return page


LAMBDA = ProviderCase(
    name="lambda", env={"LAMBDA_API_KEY": "fake-lambda-secret_9d2e7b41c0"},
    fault_match="/api/v1/instance-types", first_match="/api/v1/instance-types", empty_page=b'{"data": {}}',
    rename_all=_lambda_rename, renamed_field="price_cents_per_hour", drop_one=_lambda_drop,
    drop_one_lost=of_type("gpu_8x_v100"), items=_lambda_items, set_items=_lambda_set,
)


# --- azure -----------------------------------------------------------------------------------------------------
AZURE_REGIONS = ("westeurope", "northeurope", "swedencentral", "francecentral", "belgiumcentral")


def _azure_first(target: str) -> bool:
    return "'westeurope'" in target and "$skip" not in target


def _azure_items(page: Json) -> list[Any]:
    return list(page.get("Items", []))


def _azure_set(page: Json, items: list[Any]) -> Json:
    out = copy.deepcopy(page)
    out["Items"] = items
    return out


def _azure_rename(page: Json, url: str) -> Json:
    for item in page.get("Items", []):
        if "retailPrice" in item:
            item["retail_price"] = item.pop("retailPrice")
    return page


def _azure_drop(page: Json, url: str) -> Json:
    for item in page["Items"]:
        if item.get("meterName") == "NC6s v3 Spot" and "Windows" not in item.get("productName", ""):
            del item["retailPrice"]
    return page


def _azure_loop(page: Json, url: str) -> Json:
    page["NextPageLink"] = re.sub(r"&\$skip=\d+", "", page["NextPageLink"])  # back to the first page
    return page


def _azure_forever(page: Json, target: str) -> Json:
    found = re.search(r"\$skip=(\d+)", target)
    skip = int(found.group(1)) if found else 0
    query = re.sub(r"&?\$skip=\d+", "", target.split("?", 1)[1])
    page["NextPageLink"] = f"https://prices.azure.com:443/api/retail/prices?{query}&$skip={skip + 100}"
    return page


AZURE = ProviderCase(
    name="azure",
    env={"AZURE_CLIENT_ID": "fake-azure-client-id-5b1f", "AZURE_TENANT_ID": "fake-azure-tenant-c07d",
         "AZURE_CLIENT_SECRET": "fake-azure-client-secret~Qx81", "AZURE_SUBSCRIPTION_ID": "fake-azure-sub-44e2",
         "GPUHUB_AZURE_REGIONS": ",".join(AZURE_REGIONS)},
    fault_match=("'westeurope'", "$skip=100"), first_match=_azure_first,
    empty_page=json.dumps({"BillingCurrency": "USD", "CustomerEntityId": "Default", "CustomerEntityType": "Retail",
                           "Items": [], "NextPageLink": None, "Count": 0}).encode(),
    empty_lost=lambda o: o.region.code == "westeurope",
    empty_warning="westeurope: no GPU VM price rows (empty region)",
    rename_all=_azure_rename, renamed_field="retailPrice", drop_one=_azure_drop,
    drop_one_lost=lambda o: (o.instance_type == "Standard_NC6s_v3" and o.region.code == "westeurope"
                             and o.price.purchase == "spot"),
    items=_azure_items, set_items=_azure_set, loop=_azure_loop, loop_match=("'westeurope'", "$skip=100"),
    words={"pagination_loop": ("region westeurope", "pagination loop", "none is returned"),
           "page_cap": ("region westeurope", "page cap of 6 pages reached with a next page still pending",
                        "none is returned")},
    secret_match="/subscriptions/", fuzz_env={"GPUHUB_AZURE_REGIONS": "westeurope"},
    forever=Fault.next_page_forever(_azure_forever, like=("'westeurope'", "$skip=100")),
    forever_match="'westeurope'", page_cap=6, cap_env={"GPUHUB_AZURE_MAX_PAGES": "6"},
)


# --- gcp -------------------------------------------------------------------------------------------------------
def _gcp_items(page: Json) -> list[Any]:
    return list(page.get("skus", []))


def _gcp_set(page: Json, items: list[Any]) -> Json:
    out = copy.deepcopy(page)
    out["skus"] = items
    return out


def _gcp_rename(page: Json, url: str) -> Json:
    for sku in page.get("skus", []):
        if "pricingInfo" in sku:
            sku["pricing_info"] = sku.pop("pricingInfo")
    return page


GCP_DROPPED_SKU = "8023-3EB7-95C6"
"""Nvidia H100 80GB GPU running in Belgium, OnDemand (europe-west1, where A3 High and Mega are sold), on page 2
of the recording."""


def _gcp_drop(page: Json, url: str) -> Json:
    for sku in page["skus"]:
        if sku.get("skuId") == GCP_DROPPED_SKU:
            del sku["pricingInfo"]
    return page


def _gcp_loop(page: Json, url: str) -> Json:
    page["nextPageToken"] = "gpuhub-page-2"  # the last page points back to page 2
    return page


def _gcp_forever(page: Json, target: str) -> Json:
    found = re.search(r"pageToken=([\w-]+)", target)
    page["nextPageToken"] = f"{found.group(1) if found else 'first'}-next"
    return page


GCP = ProviderCase(
    name="gcp", env={"GOOGLE_API_KEY": "fake-gcp-AIzaSyD3adB33f-query-key"},
    fault_match="pageToken=gpuhub-page-2", first_match=lambda t: "/skus?" in t and "pageToken" not in t,
    empty_page=b'{"skus": [], "nextPageToken": ""}',
    rename_all=_gcp_rename, renamed_field="pricingInfo", drop_one=_gcp_drop,
    drop_one_lost=lambda o: (o.region.code == "europe-west1" and o.price.purchase == "on_demand"
                             and o.instance_type.startswith(("a3-highgpu-", "a3-edgegpu-"))),
    items=_gcp_items, set_items=_gcp_set, loop=_gcp_loop, loop_match="pageToken=gpuhub-page-4",
    words={"pagination_loop": ("pagination loop",),
           "page_cap": ("page cap of 200 SKU pages hit with a next page token: the list is incomplete",)},
    forever=Fault.next_page_forever(_gcp_forever, like="pageToken=gpuhub-page-2"), forever_match="/skus?",
    page_cap=200,
)


# --- aws -------------------------------------------------------------------------------------------------------
AWS_OFFERS = "/offers/v1.0/aws/AmazonEC2/current/"


def _aws_items(page: Json) -> list[Any]:
    """Each product with its on-demand terms: ``{"sku", "product", "terms"}``."""
    on_demand = page.get("terms", {}).get("OnDemand", {})
    return [{"sku": sku, "product": product, "terms": on_demand.get(sku, {})}
            for sku, product in page.get("products", {}).items()]


def _aws_set(page: Json, items: list[Any]) -> Json:
    out = copy.deepcopy(page)
    out["products"], on_demand = {}, {}
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            out["products"][f"fuzz{i}"] = item
            continue
        sku = str(item.get("sku", f"fuzz{i}"))
        out["products"][sku] = item.get("product")
        on_demand[sku] = item.get("terms")
    out.setdefault("terms", {})["OnDemand"] = on_demand
    return out


def _aws_price_dimensions(page: Json) -> Iterator[dict[str, Any]]:
    for kind in page.get("terms", {}).values():
        for offers in kind.values():
            for offer in offers.values():
                yield from offer.get("priceDimensions", {}).values()


def _aws_rename(page: Json, url: str) -> Json:
    for dimension in _aws_price_dimensions(page):
        if "pricePerUnit" in dimension:
            dimension["price_per_unit"] = dimension.pop("pricePerUnit")
    return page


AWS_DROPPED_TYPE = "p3.8xlarge"


def _aws_drop(page: Json, url: str) -> Json:
    skus = {sku for sku, product in page["products"].items()
            if product["attributes"].get("instanceType") == AWS_DROPPED_TYPE
            and product["attributes"].get("operatingSystem") == "Linux"}
    for sku, offers in page["terms"].get("OnDemand", {}).items():
        if sku in skus:
            for offer in offers.values():
                for dimension in offer["priceDimensions"].values():
                    dimension.pop("pricePerUnit", None)
    return page


def _aws_loop(body: bytes, url: str) -> bytes:
    """DescribeInstanceTypes answering every page with the same nextToken (a loop)."""
    return body.replace(b"</instanceTypeSet>", b"</instanceTypeSet><nextToken>gpuhub-loop-token</nextToken>", 1)


def _aws_forever(body: bytes, target: str) -> bytes:
    found = re.search(r"NextToken=([\w-]+)", target)
    token = f"{found.group(1) if found else 'first'}-next"
    return body.replace(b"</instanceTypeSet>", f"</instanceTypeSet><nextToken>{token}</nextToken>".encode(), 1)


AWS_BLOCKS = "#Action=DescribeCapacityBlockOfferings&"


def _aws_no_offerings(server: FaultServer, method: str, path: str, body: bytes) -> Answer | None:
    """DescribeCapacityBlockOfferings of a region and type the recording lacks: the recorded answer (us-east-2
    p4d.24xlarge) with no offering in it, as EC2 answers where no block is for sale. The live walk asks every
    region and capacity-block type; replayed, only the recorded pair is asked (``capacity_blocks._recorded``), and
    both get the published-rate windows where no offering still to come was read."""
    if dict(parse_qsl(body.decode("utf-8", "replace"))).get("Action") != "DescribeCapacityBlockOfferings":
        return None
    recorded = server.answer_like(AWS_BLOCKS)
    assert recorded is not None, "the AWS recording holds no DescribeCapacityBlockOfferings answer"
    none = re.sub(rb"<capacityBlockOfferingSet>.*</capacityBlockOfferingSet>", b"<capacityBlockOfferingSet/>",
                  recorded.body, flags=re.S)
    assert none != recorded.body
    return Answer(recorded.status, recorded.headers, none)


AWS = ProviderCase(
    name="aws",
    env={"AWS_ACCESS_KEY_ID": "AKIAFAKEGPUHUB7EXAMPLE", "AWS_SECRET_ACCESS_KEY": "fakeAwsSecret/K7MDENG+bPxRfiCYzz",
         "AWS_SESSION_TOKEN": "FwoGZXIvYXdzEFAKEsessionTOKEN//gpuhub0123",
         # Service Quotas is recorded for two regions only; test_obtain_faults covers it (GPUHUB_AWS_REGIONS)
         "GPUHUB_AWS_QUOTAS": "0"},
    server_env={"GPUHUB_AWS_EC2_ENDPOINT": "{server}/ec2.{region}.amazonaws.com",
                "GPUHUB_AWS_ADVISOR_URL": "{server}/spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json",
                "GPUHUB_AWS_QUOTAS_ENDPOINT": "{server}/servicequotas.{region}.amazonaws.com"},
    fault_match=AWS_OFFERS + "us-east-2/", first_match=AWS_OFFERS + "af-south-1/",
    empty_page=json.dumps({"formatVersion": "v1.0", "offerCode": "AmazonEC2", "version": "20261130000000",
                           "publicationDate": "2026-11-30T00:00:00Z", "products": {}, "terms": {}}).encode(),
    empty_lost=lambda o: o.region.code == "af-south-1",
    empty_warning="the offer file for af-south-1 lists no accelerator instance types",
    rename_all=_aws_rename, renamed_field="pricePerUnit", drop_one=_aws_drop,
    # the type leaves the region's price list, so its spot prices there are not asked for either
    drop_one_lost=lambda o: o.instance_type == AWS_DROPPED_TYPE and o.region.code == "us-east-2",
    items=_aws_items, set_items=_aws_set,
    loop=Fault.text_transform(_aws_loop, like="#Action=DescribeInstanceTypes"),
    loop_match="#Action=DescribeInstanceTypes", loop_requests=2, secret_match="#Action=DescribeInstanceTypes",
    fuzz_env={"GPUHUB_AWS_REGIONS": "us-east-2", "GPUHUB_AWS_PUBLIC_ONLY": "1"},  # one offer file, no EC2
    forever=Fault.next_page_forever(_aws_forever, like="#Action=DescribeInstanceTypes", text=True),
    forever_match="#Action=DescribeInstanceTypes", page_cap=100, unrecorded=_aws_no_offerings,
    words={"pagination_loop": ("DescribeInstanceTypes", "pagination loop"),
           "page_cap": ("DescribeInstanceTypes: more than 100 pages; the answer would be incomplete",),
           # the offer files are streamed through the plugin's own JSON parser, which names the file
           "truncated_body": ("offer file for us-east-2", "incomplete or not JSON"),
           "invalid_body": ("offer file for us-east-2", "not valid JSON"),
           "html_instead_of_json": ("offer file for us-east-2", "not valid JSON", "<!DOCTYPE html>"),
           "empty_body": ("offer file for us-east-2", "incomplete or not JSON", "after 0 bytes")},
)



# --- kubernetes (one API server, as through kubectl proxy: the recording's first cluster) ------------------------
def _k8s_settings() -> str:
    import importlib.util

    spec = importlib.util.find_spec("gpuhub_kubernetes")
    if spec is None or not spec.submodule_search_locations:
        return ""
    return str(Path(next(iter(spec.submodule_search_locations))) / "recording" / "settings.toml")


def _k8s_items(page: Json) -> list[Any]:
    return list(page.get("items", []))


def _k8s_set(page: Json, items: list[Any]) -> Json:
    out = copy.deepcopy(page)
    out["items"] = items
    return out


def _k8s_rename(page: Json, url: str) -> Json:
    for item in page.get("items", []):
        status, spec = item.get("status") or {}, item.get("spec") or {}
        if "allocatable" in status:
            status["allocatables"] = status.pop("allocatable")
        if "devices" in spec:  # DRA ResourceSlices carry the devices in spec
            spec["allocatable"] = spec.pop("devices")
    return page


def _k8s_drop(page: Json, url: str) -> Json:
    for item in page.get("items", []):
        if item.get("metadata", {}).get("name") == "l40s-1":
            del item["status"]["allocatable"]
    return page


KUBERNETES = ProviderCase(
    name="kubernetes",
    env={"KUBERNETES_TOKEN": "fake-kubernetes-token-5c8e1d2f7a", "GPUHUB_KUBERNETES_CLUSTER_NAME": "gpu-east",
         "GPUHUB_KUBERNETES_SETTINGS": _k8s_settings()},
    fault_match="/api/v1/nodes", first_match="/api/v1/nodes",
    empty_page=b'{"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": []}',
    empty_lost=lambda o: not o.instance_type.endswith(":dra"),
    empty_warning="cluster gpu-east: the API server listed no nodes",
    rename_all=_k8s_rename, renamed_field="allocatable", drop_one=_k8s_drop,
    drop_one_lost=lambda o: o.instance_type.startswith("l40s-4"), items=_k8s_items, set_items=_k8s_set,
)

# --- slurm (slurmrestd: nodes, then partitions; the recording's example cluster hpc-west) --------------------------
def _slurm_settings() -> str:
    import importlib.util

    spec = importlib.util.find_spec("gpuhub_slurm")
    if spec is None or not spec.submodule_search_locations:
        return ""
    return str(Path(next(iter(spec.submodule_search_locations))) / "recording" / "settings.toml")


SLURM = json_list_case(
    "slurm", {"SLURM_JWT": "fake-slurm-jwt-3e9a71c04d", "GPUHUB_SLURM_USER": "gpuhub",
              "GPUHUB_SLURM_CLUSTER_NAME": "hpc-west", "GPUHUB_SLURM_SETTINGS": _slurm_settings()},
    "/slurm/v0.0.42/nodes/", "nodes", field_name="name", one=lambda r: r.get("name") == "l40s-01",
    lost=lambda o: o.instance_type.startswith("viz/"), server_env={"GPUHUB_SLURM_URL": "{server}"},
    empty_warning="cluster hpc-west: slurmrestd listed no nodes")


# --- lium (public node feed, one request) ------------------------------------------------------------------------
LIUM = json_list_case(
    "lium", {"LIUM_API_KEY": "fake-lium-api-key-6b2d90e1f4"}, "/api/public/v1/nodes", "nodes",
    field_name="price_per_node_hour", renamed_to="price_per_hour", one=lambda r: r.get("gpu_model") == "H100 80GB HBM3",
    lost=lambda o: o.instance_type.startswith("H100-80GB-HBM3_"))


# --- spheron (paginated by page number and totalPages) --------------------------------------------------------
def _spheron_offers(page: Json) -> Iterator[dict[str, Any]]:
    for group in page.get("data", []):
        if isinstance(group, dict):
            yield from (o for o in group.get("offers", []) if isinstance(o, dict))


def _spheron_items(page: Json) -> list[Any]:
    return list(page.get("data", []))


def _spheron_set(page: Json, items: list[Any]) -> Json:
    out = copy.deepcopy(page)
    out["data"] = items
    return out


def _spheron_rename(page: Json, url: str) -> Json:
    for item in _spheron_offers(page):
        if "gpuCount" in item:
            item["gpu_count"] = item.pop("gpuCount")
    return page


def _spheron_drop(page: Json, url: str) -> Json:
    for item in _spheron_offers(page):
        if item.get("offerId") == "L4x8_677dc00033f3247083221e73_paris-france-1":
            del item["gpuCount"]
    return page


def _spheron_forever(page: Json, target: str) -> Json:
    number = int(re.search(r"page=(\d+)", target).group(1))  # type: ignore[union-attr]
    page["totalPages"] = number + 1
    return page


SPHERON = ProviderCase(
    name="spheron", env={"SPHERON_API_KEY": "fake-spheron-bearer-3e8a41d09c"},
    fault_match="page=2", first_match="page=1", empty_page=b'{"data": [], "totalPages": 1}',
    rename_all=_spheron_rename, renamed_field="gpuCount", drop_one=_spheron_drop,
    drop_one_lost=of_type("L4x8_677dc00033f3247083221e73_paris-france-1"), items=_spheron_items,
    set_items=_spheron_set, forever=Fault.next_page_forever(_spheron_forever, like="page=2"), forever_match="page=",
    page_cap=50,
)


# --- jarvislabs, hyperbolic, seeweb (one request each) and mithril (three endpoints) -----------------------------
JARVISLABS = json_list_case(
    "jarvislabs", {"JL_API_KEY": "fake-jarvislabs-key_5e1c9a7b22"}, "/misc/server_meta", "server_meta",
    field_name="price_per_hour", renamed_to="price_usd", one=lambda r: r.get("gpu_type") == "H200",
    lost=lambda o: o.instance_type.endswith("x_H200"), empty_page=b'{"currency": "USD", "server_meta": []}')

HYPERBOLIC = json_list_case(
    "hyperbolic", {"HYPERBOLIC_API_KEY": "fake-hyperbolic-key_8b3d0f6a91"}, "/v2/skypilot/catalog", "vms",
    field_name="Price", renamed_to="PriceUSD", one=lambda r: r.get("InstanceType") == "3x-H100-224-2165",
    lost=of_type("3x-H100-224-2165"))

SEEWEB = json_list_case(
    "seeweb", {"SEEWEB_API_TOKEN": "fake-seeweb-token_2a7f4c9e13"}, "/ecs/v2/plans", "plans",
    field_name="hourly_price", renamed_to="price_hour", one=lambda r: r.get("name") == "ECS8GPU10",
    lost=of_type("ECS8GPU10"), empty_page=b'{"status": "ok", "plans": []}')

MITHRIL = json_list_case(
    # The faults hit the spot availability list (every offer needs it); the empty page is the type list.
    "mithril", {"MITHRIL_API_KEY": "fake-mithril-key_7c2e5b8d40"}, "/v2/spot/availability", None,
    field_name="region", renamed_to="zone", one=lambda r: r.get("region") == "us-central2-b",
    lost=of_type("h200.8x"), first="/v2/instance-types")


# --- runpod (GraphQL: the catalog, then one price query per GPU count) -------------------------------------------
def _runpod_items(page: Json) -> list[Any]:
    return list((page.get("data") or {}).get("gpuTypes") or [])


def _runpod_set(page: Json, items: list[Any]) -> Json:
    out = copy.deepcopy(page)
    out.setdefault("data", {})["gpuTypes"] = items
    return out


def _runpod_rename(page: Json, url: str) -> Json:
    for item in _runpod_items(page):
        if "securePrice" in item:
            item["secure_price"] = item.pop("securePrice")
    return page


def _runpod_drop(page: Json, url: str) -> Json:
    for item in _runpod_items(page):
        if item.get("id") == "A100 PCIe":
            item["lowestPrice"].pop("stockStatus")
    return page


RUNPOD = ProviderCase(
    name="runpod", env={"RUNPOD_API_KEY": "fake-runpod-key_5b8e1d27a4"},
    fault_match='"gpuCount":2,', first_match="countryCodes",
    empty_page=b'{"data": {"countryCodes": [], "dataCenters": [], "gpuTypes": []}}',
    rename_all=_runpod_rename, renamed_field="securePrice", drop_one=_runpod_drop,
    drop_one_lost=of_type("2x_A100-PCIe_SECURE"), items=_runpod_items, set_items=_runpod_set,
)


# --- vast (one offer search with an explicit limit; no pagination) ----------------------------------------------
VAST = json_list_case(
    "vast", {"VAST_API_KEY": "fake-vast-key_3c9a0e6f12"}, "/api/v0/bundles/", "offers", field_name="dph_base",
    renamed_to="dph", one=lambda r: r.get("id") == 1, lost=of_type("2x-H200-1"))


# --- shadeform (one instances/types answer; an aggregator) ------------------------------------------------------
def _shadeform_items(page: Json) -> list[Any]:
    return list(page.get("instance_types", []))


def _shadeform_set(page: Json, items: list[Any]) -> Json:
    out = copy.deepcopy(page)
    out["instance_types"] = items
    return out


def _shadeform_rename(page: Json, url: str) -> Json:
    for item in page.get("instance_types", []):
        if "hourly_price" in item:
            item["price_cents"] = item.pop("hourly_price")
    return page


def _shadeform_drop(page: Json, url: str) -> Json:
    for item in page.get("instance_types", []):
        if (item.get("cloud"), item.get("shade_instance_type")) == ("imwt", "A6000x8"):
            del item["configuration"]
    return page


SHADEFORM = ProviderCase(
    name="shadeform", env={"SHADEFORM_API_KEY": "fake-shadeform-key_8d4f2a61b7"},
    fault_match="/v1/instances/types", first_match="/v1/instances/types", empty_page=b'{"instance_types": []}',
    rename_all=_shadeform_rename, renamed_field="hourly_price", drop_one=_shadeform_drop,
    drop_one_lost=of_type("imwt_A6000x8"), items=_shadeform_items, set_items=_shadeform_set,
)


# --- primeintellect (one availability answer: GPU type -> offers; an aggregator) --------------------------------
def _prime_items(page: Json) -> list[Any]:
    return [entry for entries in page.values() if isinstance(entries, list) for entry in entries]


def _prime_set(page: Json, items: list[Any]) -> Json:
    return {"H100_80GB": items}


def _prime_rename(page: Json, url: str) -> Json:
    for entry in _prime_items(page):
        if "prices" in entry:
            entry["price"] = entry.pop("prices")
    return page


def _prime_drop(page: Json, url: str) -> Json:
    for entry in _prime_items(page):
        if entry.get("cloudId") == "gpu_8x_a100_80gb_sxm4" and entry.get("dataCenter") == "us-midwest-1":
            del entry["gpuCount"]
    return page


PRIMEINTELLECT = ProviderCase(
    name="primeintellect", env={"PRIME_API_KEY": "fake-prime-key_1e7c5b93d0"},
    fault_match="/api/v1/availability/", first_match="/api/v1/availability/", empty_page=b"{}",
    rename_all=_prime_rename, renamed_field="prices.onDemand", drop_one=_prime_drop,
    drop_one_lost=lambda offer: offer.instance_type == "lambdalabs__8xA100_80GB__240__1800"
    and offer.region.zone == "us-midwest-1", items=_prime_items, set_items=_prime_set,
)


# --- cudo (one public answer), oci (two public price documents), verda (OAuth2 token, types, availability) ----
CUDO = json_list_case(
    "cudo", {}, "/vms/machine-types-2", "machineTypes", field_name="gpuPriceHr",
    one=lambda r: (r.get("machineType"), r.get("dataCenterId")) == ("sapphire-rapids-h100", "no-kristiansand-1"),
    lost=lambda o: o.instance_type.startswith("sapphire-rapids-h100_") and o.region.code == "no-kristiansand-1")


def _oci_unpriced(page: Json, url: str) -> Json:
    """products.json without the USD price of BM.GPU.H100.8's GPU part (only that shape loses its price)."""
    [part] = [p for p in page["items"] if p.get("partNumber") == "RECON-BM.GPU.H100.8"]
    del part["currencyCodeLocalizations"]
    return page


OCI = ProviderCase(
    # the shapes, then their prices: the faults hit the second document (a walk broken half-way)
    name="oci", env={}, fault_match="/products.json", first_match="/shapes.json", empty_page=b'{"items": []}',
    rename_all=_rename_in("items", "products", "parts"), renamed_field="products", drop_one=_oci_unpriced,
    drop_one_lost=of_type("BM.GPU.H100.8"), items=_list_of("items"), set_items=_set_list("items"),
    fuzz_match="/shapes.json")

VERDA = json_list_case(
    # after the OAuth2 token: the instance types (a bare list), then where each is available on demand and as spot
    "verda", {"VERDA_CLIENT_ID": "fake-verda-client-id_4d9b27e1",
              "VERDA_CLIENT_SECRET": "fake-verda-secret_c81f5a03e6"},
    "/instance-types", None, field_name="instance_type", renamed_to="name",
    one=lambda r: r.get("instance_type") == "1B300.30V", lost=of_type("1B300.30V"), secret_match="/oauth2/token")


CASES: tuple[ProviderCase, ...] = (FAKECLOUD, LAMBDA, AZURE, GCP, AWS, KUBERNETES, SLURM, LIUM, SPHERON, JARVISLABS,
                                   HYPERBOLIC, SEEWEB, MITHRIL, RUNPOD, VAST, SHADEFORM, PRIMEINTELLECT, CUDO, OCI,
                                   VERDA)
"""Every provider row; the matrix, fuzzers and secret scan parametrize over these."""

BY_NAME = {case.name: case for case in CASES}
