"""The OCI provider: GPU shapes priced from Oracle's public Cost Estimator documents.

``GET {base}/shapes.json`` (``items[]``: ``name``, ``hidden``, ``status``, ``allowPreemptible``, ``bundleMemoryQty``
GB, ``gpuQty``, ``gpuMemoryQty`` GB of **all** GPUs, ``processorType.value``, ``shapeType.value`` ``vm``/``bm``,
``subType.value``, ``products[] {partNumber, qty, type.value}``) and ``GET {base}/products.json`` (``items[]``:
``partNumber``, ``billingModel`` ``UCM``, ``pricetype`` ``HOUR``, ``currencyCodeLocalizations[] {currencyCode,
prices[] {model PAY_AS_YOU_GO, value}}``). For a GPU shape the ``ocpu`` part is charged per GPU (price x ``gpuQty``)
and CPU and memory are included; vCPUs are 2 per OCPU (1 on Arm). The estimator has no regional prices: the price
is offered in every region of :data:`REGIONS`. Preemptible capacity costs half (``allowPreemptible``; sold as
``spot``). Source: ``../shared/reference/provider-apis-more.md`` section 4 and ``provider-samples/oci/``.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator, Mapping
from decimal import Decimal
from functools import lru_cache
from importlib import resources
from typing import Any, ClassVar

from gpuhub.plugin import (
    Instance,
    Offer,
    Price,
    Provider,
    ProviderContext,
    ProviderError,
    ProviderKind,
    checked_gpu,
    decimal_amount,
    placeholder_price,
)

__all__ = ["Oci", "gpu_spelling", "network_fields", "regions"]

OLD_SHAPES = {"GPU2": "P100", "GPU3": "V100", "GPU4": "A100"}
"""Shape families that do not name their GPU (``BM.GPU4.8`` is 8 x A100 40 GB)."""
SPELLINGS = {"RTXPRO": "RTX PRO 6000"}
SPOT_FACTOR = Decimal("0.5")
CLUSTER_NETWORK_SHAPES = frozenset({"BM.GPU.A100-v2.8", "BM.GPU4.8"})
"""The GPU shapes OCI's documentation lists as supporting cluster networks (its RDMA network between bare-metal
nodes); the page read names no other GPU shape, so every other shape's fabric stays unknown."""
CLUSTER_NETWORK_SOURCE = (
    "OCI docs, Cluster Networks with Instance Pools, supported shapes (docs.oracle.com/de-de/iaas/Content/Compute/"
    "Tasks/managingclusternetworks.htm: BM.HPC2.36, BM.GPU.A100-v2.8, BM.GPU4.8, BM.Optimized3.36); the RDMA is RoCE "
    "on NVIDIA ConnectX NICs (blogs.oracle.com/cloud-infrastructure/building-high-performance-network-in-the-cloud); "
    "both read 2026-12-02; no rate is stated there")
"""Where a cluster-network shape's fabric comes from."""


@lru_cache(maxsize=1)
def _region_table() -> list[dict[str, Any]]:
    text = resources.files("gpuhub_oci").joinpath("data/regions.json").read_text(encoding="utf-8")
    table: list[dict[str, Any]] = json.loads(text)
    return table


def regions() -> tuple[str, ...]:
    """OCI's commercial regions (codes such as ``eu-frankfurt-1``), from ``data/regions.json``."""
    return tuple(r["region"] for r in _region_table())


def gpu_spelling(shape: str) -> str:
    """The GPU a shape name names: ``BM.GPU.H100.8`` -> ``H100``, ``BM.GPU.A100-v2.8`` -> ``A100``,
    ``BM.GPU4.8`` -> ``A100``, ``BM.GPU.RTXPRO.8`` -> ``RTX PRO 6000``.

    Raises:
        ValueError: the name is not a GPU shape name.
    """
    parts = shape.split(".")
    if len(parts) >= 3 and parts[1] in OLD_SHAPES:
        return OLD_SHAPES[parts[1]]
    if len(parts) >= 4 and parts[1] == "GPU":
        token = parts[2].split("-")[0]
        return SPELLINGS.get(token, token)
    raise ValueError(f"{shape!r} is not a GPU shape name")


def _prices(body: object) -> dict[str, Decimal]:
    """Part number -> USD pay-as-you-go hourly price, from ``products.json``."""
    items = body.get("items") if isinstance(body, Mapping) else None
    if not isinstance(items, list):
        raise ProviderError("unexpected products.json answer: no 'items' list")
    found = {}
    for item in items:
        if not isinstance(item, Mapping) or item.get("billingModel") != "UCM" or item.get("pricetype") != "HOUR":
            continue
        for local in item.get("currencyCodeLocalizations") or ():
            if isinstance(local, Mapping) and local.get("currencyCode") == "USD":
                for price in local.get("prices") or ():
                    if isinstance(price, Mapping) and price.get("model") == "PAY_AS_YOU_GO":
                        amount = decimal_amount(price.get("value"), "price value")
                        if amount is not None:
                            found[str(item["partNumber"])] = amount
    return found



def network_fields(shape: str) -> dict[str, Any]:
    """The :class:`gpuhub.plugin.Instance` fabric fields of a shape: RDMA over Converged Ethernet (``RoCE``) and
    its ``network_source`` for the shapes OCI documents as cluster-network shapes; empty for the others (the Cost
    Estimator data has no network or disk figures for GPU shapes)."""
    return {"fabric": "RoCE", "network_source": CLUSTER_NETWORK_SOURCE} if shape in CLUSTER_NETWORK_SHAPES else {}

class Oci(Provider):
    """Oracle Cloud Infrastructure (hyperscaler): GPU shapes at list price, the same in every region."""

    name: ClassVar[str] = "oci"
    display_name: ClassVar[str] = "Oracle Cloud Infrastructure"
    kind: ClassVar[ProviderKind] = "hyperscaler"
    base_url: ClassVar[str] = "https://www.oracle.com/a/ocom/docs/cloudestimator2/data"
    price_change_period_s: ClassVar[float] = 30 * 86400.0  # list prices, changed a few times a year

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Yield each GPU shape's on-demand (and, where allowed, spot) offer in every OCI region.

        Raises:
            ProviderError: an answer of an unexpected shape (never taken for an empty catalog).
        """
        shapes, answered = ctx.get_dated_json(f"{ctx.base_url()}/shapes.json")
        prices = _prices(ctx.get_json(f"{ctx.base_url()}/products.json"))
        items = shapes.get("items") if isinstance(shapes, Mapping) else None
        if not isinstance(items, list):
            raise ProviderError("unexpected shapes.json answer: no 'items' list")
        ctx.warn("OCI's estimator has one price per shape: it is offered in every region; spot is 50 % of "
                 "on-demand; per-region availability is not published")
        for item in items:
            offers: list[Offer] = []
            with ctx.guard("shape"):
                offers = self._offers(ctx, item, prices, answered)
            yield from offers

    def _offers(self, ctx: ProviderContext, item: Mapping[str, Any], prices: Mapping[str, Decimal],
                answered: dt.date | None) -> list[Offer]:
        name = str(item["name"])
        if item.get("hidden") or item.get("status") != "ACTIVE":
            ctx.skip("hidden or inactive shape")
            return []
        kind = (item.get("shapeType") or {}).get("value")
        if kind not in ("vm", "bm"):
            ctx.skip("shape type other than vm/bm")
            return []
        count = int(item.get("gpuQty") or 0)
        if count <= 0:
            ctx.skip("CPU-only shape (no GPU)")
            return []
        ocpu = [p for p in item["products"] if (p.get("type") or {}).get("value") == "ocpu"]
        if len(ocpu) != 1 or str(ocpu[0]["partNumber"]) not in prices:
            ctx.skip("GPU shape without a priced GPU part")
            return []
        per_gpu = prices[str(ocpu[0]["partNumber"])]
        if placeholder_price(per_gpu):
            ctx.skip("placeholder price (zero or negative)")
            return []
        arm = (item.get("processorType") or {}).get("value") == "arm"
        gpu, problem = checked_gpu(ctx, gpu_spelling(name), item.get("gpuMemoryQty"), count, "GB total")
        if problem:
            ctx.warn(f"{name}: gpuMemoryQty {problem}")
        memory = item.get("bundleMemoryQty")
        instance = Instance(provider=self.name, instance_type=name, gpu=gpu, gpu_count=count,
                            vcpus=int(float(ocpu[0]["qty"])) * (1 if arm else 2),
                            memory_gib=float(memory) if memory else None, cpu_arch="arm64" if arm else "x86_64",
                            bare_metal=kind == "bm",
                            control_source="OCI Cost Estimator shapes.json shapeType: bm (bare metal) or vm",
                            **network_fields(name))
        amount = per_gpu * count
        terms = [Price(amount=amount, currency="USD", purchase="on_demand", data_date=answered)]
        if item.get("allowPreemptible"):
            terms.append(Price(amount=amount * SPOT_FACTOR, currency="USD", purchase="spot", data_date=answered,
                               basis="OCI preemptible capacity: 50 % of the on-demand price"))
        return [Offer(instance=instance, region=ctx.region(code), price=price, available=None, source=ctx.source)
                for price in terms for code in regions()]
