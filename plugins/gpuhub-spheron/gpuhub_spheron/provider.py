"""The Spheron provider: ``GET /api/gpu-offers?page=N&limit=20`` walked to its last page, one offer per offer id
and cluster.

Spheron sells its own machines (``provider: spheron-ai``) and its partners' (Sesterce, Massed Compute, Verda as
``data-crunch``): the answer groups offers by GPU type (``data: [{gpuType, offers: [...]}]``, ``totalPages``);
each offer has an ``offerId``, ``gpuCount``, ``vcpus``, ``memory`` (GB), ``gpu_memory`` (GB per GPU), ``price``
(USD per instance-hour), an optional ``spot_price``, ``instanceType`` (``DEDICATED`` or ``SPOT``: a SPOT offer's
``price`` is its spot price), the seller (``provider``), ``clusters`` (where it runs) and ``available`` /
``maintenance``. Every offer is validated: no GPU, zero or negative prices, unavailable or in maintenance, no
cluster, GPU memory that contradicts the GPU table (warned) are skipped and counted.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
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
    seller_name,
)

__all__ = ["OFFERS_PATH", "PAGE_CAP", "PAGE_LIMIT", "Spheron", "gpu_spelling"]

OFFERS_PATH = "/api/gpu-offers"
PAGE_LIMIT = 20
"""GPU-type groups asked for per page (an explicit page size, never the API's default)."""
PAGE_CAP = 50
"""Pages walked at most; an answer still saying there are more pages after that is an error, not a silent stop."""
OWN = "spheron-ai"
"""The ``provider`` value of Spheron's own machines."""
KEY_HELP = "create an API key in the Spheron console and export it, e.g. `export SPHERON_API_KEY=...`"


def gpu_spelling(gpu_type: str, gpu_memory_gb: float | None) -> str:
    """The spelling passed to the GPU table. Spheron's ``H100_NVL`` offers with 80 GB per GPU are NVLink-bridged
    H100 PCIe cards (the H100 NVL has 94 GB), so they are read as ``H100 PCIe``; everything else as written."""
    upper = gpu_type.upper()
    if upper.startswith("H100") and "NVL" in upper and gpu_memory_gb is not None and gpu_memory_gb <= 85:
        return "H100 PCIe"
    return gpu_type


class Spheron(Provider):
    """Spheron (GPU cloud and reseller): per-offer prices in USD per instance-hour, with the seller named.

    Live: ``GET {base_url}/api/gpu-offers?page=N&limit=20`` with ``Authorization: Bearer $SPHERON_API_KEY``.
    """

    name: ClassVar[str] = "spheron"
    display_name: ClassVar[str] = "Spheron"
    kind: ClassVar[ProviderKind] = "specialist"
    base_url: ClassVar[str] = "https://app.spheron.ai"
    resells: ClassVar[bool] = True
    price_change_period_s: ClassVar[float] = 6 * 3600.0  # offers come and go with partners' capacity
    credentials: ClassVar[tuple[Credential, ...]] = (
        Credential(("SPHERON_API_KEY",), "a Spheron API key, sent as a Bearer token"),)

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Walk every page and yield one offer per offer id, cluster and purchase model.

        Raises:
            CredentialsError: no ``SPHERON_API_KEY`` (live), or Spheron rejected it.
            ProviderError: a page of an unexpected shape, or more pages than :data:`PAGE_CAP`.
        """
        key = ctx.require_secret("SPHERON_API_KEY")
        headers = json_headers(key)
        if ctx.source.kind == "reconstructed":
            ctx.warn("the recording is the SkyPilot catalog's Spheron offers (available ones only, date unknown), "
                     "not a capacity snapshot")
        page, total = 1, 1
        while page <= total:
            if page > PAGE_CAP:
                raise ProviderError(f"{OFFERS_PATH}: page cap of {PAGE_CAP} pages reached with {total - PAGE_CAP} "
                                    "more to go; stopped (the answer would be partial)")
            body, answered = ctx.get_dated_json(f"{ctx.base_url()}{OFFERS_PATH}",
                                                params={"page": page, "limit": PAGE_LIMIT}, headers=headers)
            groups = body.get("data") if isinstance(body, Mapping) else None
            if not isinstance(groups, list):
                raise ProviderError(f'unexpected {OFFERS_PATH} answer (page {page}): no "data" list')
            if not groups:
                break
            total = _total_pages(body, page)
            for group in groups:
                yield from self._group(ctx, group, answered)
            page += 1

    def error_from_response(self, response: httpx.Response) -> ProviderError | None:
        """A rejected key (401/403) names ``SPHERON_API_KEY``; other errors keep gpuhub's generic message."""
        if response.status_code in (401, 403):
            return CredentialsError(f"Spheron rejected the API key (HTTP {response.status_code}); {KEY_HELP}",
                                    code=str(response.status_code), status=response.status_code)
        return None

    def _group(self, ctx: ProviderContext, group: Any, answered: dt.date | None) -> Iterator[Offer]:
        gpu_type = ""
        with ctx.guard("GPU group"):
            if not isinstance(group, Mapping) or not isinstance(group.get("offers"), list):
                raise TypeError("GPU group without an offers list")
            gpu_type = str(group["gpuType"] or "").strip()
            if not gpu_type:
                raise ValueError("GPU group without a gpuType")
        if not gpu_type:
            return
        for item in group["offers"]:
            offers: list[Offer] = []
            with ctx.guard("offer"):
                if not isinstance(item, Mapping):
                    raise TypeError(f"offer is a {type(item).__name__}, not an object")
                offers = self._offers(ctx, gpu_type, item, answered)
            yield from offers

    def _offers(self, ctx: ProviderContext, gpu_type: str, item: Mapping[str, Any],
                answered: dt.date | None) -> list[Offer]:
        if not item.get("available", False) or item.get("maintenance", False):
            ctx.skip("offer not available (or in maintenance)")
            return []
        count = float(item["gpuCount"])
        if count <= 0:
            ctx.skip("offer without a GPU")
            return []
        clusters = item.get("clusters") or ([item["region"]] if item.get("region") else [])
        if not isinstance(clusters, list) or not all(isinstance(c, str) and c.strip() for c in clusters) \
                or not clusters:
            ctx.skip("offer without a cluster (region)")
            return []
        memory_gb = decimal_amount(item.get("gpu_memory"), "gpu_memory")
        per_gpu = float(memory_gb) if memory_gb is not None else None
        gpu, problem = checked_gpu(ctx, gpu_spelling(gpu_type, per_gpu), per_gpu, count)
        if problem:
            ctx.warn(f"{item['offerId']}: gpu_memory {problem}")
        seller = str(item.get("provider") or "").strip()
        instance = Instance(
            provider=self.name, instance_type=str(item["offerId"]), gpu=gpu, gpu_count=count,
            fractional=count < 1, vcpus=float(item["vcpus"]), memory_gib=float(item["memory"]),
            seller=seller_name(seller) if seller and seller != OWN else None,
            note=f"Spheron {gpu_type} offer" + (f", run by {seller}" if seller and seller != OWN else ""))
        prices = self._prices(ctx, item, answered)
        return [Offer(instance=instance, region=ctx.region(cluster.strip()), price=price,
                      available=None if ctx.source.kind == "reconstructed" else True, source=ctx.source)
                for price in prices for cluster in clusters]

    def _prices(self, ctx: ProviderContext, item: Mapping[str, Any], answered: dt.date | None) -> list[Price]:
        spot_offer = str(item.get("instanceType") or "DEDICATED").upper() == "SPOT"
        price = decimal_amount(item.get("price"))
        spot = decimal_amount(item.get("spot_price"), "spot_price")
        found: list[tuple[str, Decimal | None]] = [("spot", price)] if spot_offer else [("on_demand", price),
                                                                                          ("spot", spot)]
        prices, placeholders = [], []
        for purchase, amount in found:
            if amount is None:
                continue
            if placeholder_price(amount):
                placeholders.append(f"placeholder {purchase} price (zero or negative)")
                continue
            prices.append(Price(amount=amount, currency="USD", purchase=purchase, data_date=answered))
        if not prices:  # the offer is skipped once, for its first problem
            ctx.skip(placeholders[0] if placeholders else "offer without a price")
        for problem in placeholders if prices else ():
            ctx.warn(f"{item['offerId']}: {problem}, left out")
        return prices


def _total_pages(body: Mapping[str, Any], page: int) -> int:
    total = body.get("totalPages", page)
    if isinstance(total, bool) or not isinstance(total, int) or total < 1:
        raise ProviderError(f"{OFFERS_PATH}: totalPages is {total!r}, not a page count")
    return total
