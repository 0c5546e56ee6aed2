"""The Lium provider: one ``GET /api/public/v1/nodes`` call (no key), one offer per node shape and country.

Lium (a GPU marketplace) rents whole nodes: each node of the feed names its GPU model and count, how many of its
GPUs are free, its tier (``secure`` keeps running until the renter stops it; ``spot`` is taken back when its host
wants the node), its vCPUs and RAM, one price per node-hour in USD and the host's country. A node is offered only
when all its GPUs are free. Nodes of one shape (GPU, count, vCPUs, RAM GB, tier) in one country are one offer: the
cheapest node's price, marked as the minimum of that many listings when there are several (known fault C35).
Every node is validated: no GPU, a zero or negative price, a GPU count that is not a whole positive number, GPU
memory that contradicts the GPU table (warned) are skipped and counted.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

import httpx

from gpuhub.plugin import (
    Credential,
    CredentialsError,
    Instance,
    Offer,
    Price,
    Provider,
    ProviderContext,
    ProviderError,
    ProviderKind,
    checked_gpu,
    decimal_amount,
    json_headers,
    placeholder_price,
)

__all__ = ["NODES_PATH", "Lium", "Node", "parse_node"]

NODES_PATH = "/api/public/v1/nodes"
PURCHASE = {"secure": "on_demand", "spot": "spot"}
"""Lium's tier -> gpuhub's purchase model (a spot node can be taken back by its host at any time)."""


@dataclass(frozen=True)
class Node:
    """One node of the feed. ``price_per_node_hour`` is USD per instance-hour; ``ram_gb`` host RAM (GB as Lium
    prints it); ``gpu_memory_gb`` per GPU."""

    gpu_model: str
    gpu_count: int
    available_gpu_count: int
    tier: str
    cpu_count: int
    ram_gb: float
    price_per_node_hour: Decimal
    gpu_memory_gb: float | None
    country_code: str

    def shape(self) -> tuple[str, int, int, float, str]:
        """What makes two nodes the same offer: GPU model and count, vCPUs, RAM and tier."""
        return self.gpu_model, self.gpu_count, self.cpu_count, self.ram_gb, self.tier


def _whole(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value) or value < 0:
        raise ValueError(f"{what} is not a whole number: {value!r}")
    return int(value)


def parse_node(item: Mapping[str, Any]) -> Node:
    """A node of the feed, typed.

    Raises:
        KeyError, TypeError, ValueError: a field the offer needs is missing or malformed (the caller skips and
            counts the node).
    """
    price = decimal_amount(item["price_per_node_hour"], "price_per_node_hour")
    if price is None:
        raise ValueError("price_per_node_hour is empty")
    memory = item.get("gpu_memory_gb")
    return Node(gpu_model=str(item["gpu_model"] or "").strip(), gpu_count=_whole(item["gpu_count"], "gpu_count"),
                available_gpu_count=_whole(item["available_gpu_count"], "available_gpu_count"),
                tier=str(item["tier"]).strip().lower(), cpu_count=_whole(item["cpu_count"], "cpu_count"),
                ram_gb=float(item["ram_gb"]), price_per_node_hour=price,
                gpu_memory_gb=float(memory) if memory is not None else None,
                country_code=str(item["country_code"]).strip().upper())


def instance_type(node: Node) -> str:
    """gpuhub's name for a node shape: ``RTX-5090_1x_32c_60g`` (GPU model, count, vCPUs, RAM GB; ``-spot``)."""
    model = "-".join(node.gpu_model.split())
    suffix = "-spot" if node.tier == "spot" else ""
    return f"{model}_{node.gpu_count}x_{node.cpu_count}c_{node.ram_gb:g}g{suffix}"


class Lium(Provider):
    """Lium (GPU marketplace): whole nodes from many hosts, priced per node-hour in USD, by host country.

    Live: ``GET {base_url}/api/public/v1/nodes`` (the feed SkyPilot's Lium catalog is built from); it needs no key:
    ``--fetch live`` asks it without one, and a ``LIUM_API_KEY`` (sent as ``X-API-KEY``) makes searches live by
    default.
    """

    name: ClassVar[str] = "lium"
    display_name: ClassVar[str] = "Lium"
    kind: ClassVar[ProviderKind] = "specialist"
    base_url: ClassVar[str] = "https://lium.io"
    credentials: ClassVar[tuple[Credential, ...]] = (
        Credential(("LIUM_API_KEY",), "optional: a Lium API key, sent as X-API-KEY (the node feed is public; with "
                   "the key set, searches go live by default)"),)
    price_change_period_s: ClassVar[float] = 6 * 3600.0  # a marketplace: hosts list, reprice and rent nodes all day

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Yield one offer per node shape, country and tier with every GPU free.

        Raises:
            ProviderError: an answer that is not ``{"nodes": [...]}``.
        """
        key = ctx.secret("LIUM_API_KEY")
        headers = json_headers(key, header="X-API-KEY", scheme=None)
        if key is None and ctx.mode != "replay":
            ctx.warn("live without LIUM_API_KEY: Lium's node feed is public, no key was sent")
        body, answered = ctx.get_dated_json(f"{ctx.base_url()}{NODES_PATH}", headers=headers)
        nodes = body.get("nodes") if isinstance(body, Mapping) else None
        if not isinstance(nodes, list):
            raise ProviderError(f'unexpected {NODES_PATH} answer: no "nodes" list')
        if ctx.source.kind == "reconstructed":
            ctx.warn("the recording holds the cheapest free secure node per GPU, count and country of the SkyPilot "
                     "catalog (date unknown), not Lium's whole feed; availability is not a snapshot")
        groups: dict[tuple[str, tuple[str, int, int, float, str]], list[Node]] = {}
        for item in nodes:
            with ctx.guard("node"):
                if not isinstance(item, Mapping):
                    raise TypeError(f"node is a {type(item).__name__}, not an object")
                node = self._valid(ctx, parse_node(item))
                if node is not None:
                    groups.setdefault((node.country_code, node.shape()), []).append(node)
        for (country, _), members in groups.items():
            yield self._offer(ctx, country, members, answered)

    def error_from_response(self, response: httpx.Response) -> ProviderError | None:
        """A rejected key (401/403) names ``LIUM_API_KEY``; other errors keep gpuhub's generic message."""
        if response.status_code in (401, 403):
            return CredentialsError(f"Lium rejected the request (HTTP {response.status_code}); check LIUM_API_KEY or "
                                    "unset it (the node feed needs no key)", code=str(response.status_code),
                                    status=response.status_code)
        return None

    def _valid(self, ctx: ProviderContext, node: Node) -> Node | None:
        if node.gpu_count == 0 or not node.gpu_model:
            ctx.skip("node without a GPU")
            return None
        if placeholder_price(node.price_per_node_hour):
            ctx.skip("zero or negative price (placeholder)")
            return None
        if node.tier not in PURCHASE:
            ctx.skip(f"node of tier {node.tier!r} (not secure or spot)")
            return None
        if node.available_gpu_count < node.gpu_count:
            ctx.skip("node partly rented (Lium rents whole nodes)")
            return None
        if not node.country_code:
            ctx.skip("node without a country")
            return None
        return node

    def _offer(self, ctx: ProviderContext, country: str, nodes: list[Node], answered: dt.date | None) -> Offer:
        cheapest = min(nodes, key=lambda n: n.price_per_node_hour)
        gpu, problem = checked_gpu(ctx, cheapest.gpu_model, cheapest.gpu_memory_gb, cheapest.gpu_count)
        if problem:
            ctx.warn(f"{cheapest.gpu_model} in {country}: gpu_memory_gb {problem}")
        instance = Instance(provider=self.name, instance_type=instance_type(cheapest), gpu=gpu,
                            gpu_count=cheapest.gpu_count, fractional=False, vcpus=cheapest.cpu_count,
                            memory_gib=cheapest.ram_gb, tenancy="dedicated",
                            note=f"a whole {cheapest.tier} node rented from a Lium host in {country}")
        several = len(nodes) > 1
        price = Price(amount=cheapest.price_per_node_hour, currency="USD", purchase=PURCHASE[cheapest.tier],
                      listing_stat="min" if several else None, listing_count=len(nodes) if several else None,
                      data_date=answered,
                      basis="Lium price per node-hour" + (f", the cheapest of {len(nodes)} nodes" if several else ""))
        return Offer(instance=instance, region=ctx.region(country), price=price,
                     available=None if ctx.source.kind == "reconstructed" else True, source=ctx.source)
