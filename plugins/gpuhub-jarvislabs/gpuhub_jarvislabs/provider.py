"""The JarvisLabs provider: one ``GET /misc/server_meta`` call, one offer per GPU pool x GPU count.

JarvisLabs publishes per-GPU prices per pool (GPU type x region x workload type); an instance of ``n`` GPUs costs
``n`` times the per-GPU price and gets ``n`` times the per-GPU vCPUs and RAM. VM pools are sold on demand;
container pools on demand and, where ``spot_price`` is set, as spot. Capacity (``num_free_devices``) sets
``available``; a reconstructed recording has none, so its offers say ``available=None``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import ClassVar

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
    json_headers,
)
from gpuhub_jarvislabs.parse import COUNTS, Pool, cpu_plan_count, parse_pool, region_info, server_meta_entries

__all__ = ["SERVER_META_PATH", "JarvisLabs"]

SERVER_META_PATH = "/misc/server_meta"
KEY_HELP = "create an API key in JarvisLabs' dashboard (API keys) and export it, e.g. `export JL_API_KEY=...`"
_CURRENCIES = ("USD", "INR")  # the SDK: prices are in INR or USD, by the account's payment location
_WORKLOADS = {"vm": "VM", "container": "container"}
_MEMORY_TOLERANCE = 0.15


class JarvisLabs(Provider):
    """JarvisLabs (GPU specialist, India): per-GPU pool prices, whole instances of 1, 2, 4 or 8 GPUs.

    Live: ``GET {base_url}/misc/server_meta`` with ``Authorization: Bearer $JL_API_KEY``.
    """

    name: ClassVar[str] = "jarvislabs"
    display_name: ClassVar[str] = "JarvisLabs"
    kind: ClassVar[ProviderKind] = "specialist"
    base_url: ClassVar[str] = "https://backendn.jarvislabs.net"
    credentials: ClassVar[tuple[Credential, ...]] = (
        Credential(("JL_API_KEY",), "a JarvisLabs API key, sent as a Bearer token"),)

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Yield one offer per pool, GPU count (1, 2, 4, 8 up to the pool's ceiling) and purchase model.

        Raises:
            CredentialsError: no ``JL_API_KEY`` (live), or JarvisLabs rejected it.
            ProviderError: an answer of an unexpected shape, or one without a known currency (never assumed).
        """
        key = ctx.require_secret("JL_API_KEY")
        headers = json_headers(key)
        body, answered = ctx.get_dated_json(f"{ctx.base_url()}{SERVER_META_PATH}", headers=headers)
        try:
            entries = server_meta_entries(body)
        except ValueError as exc:
            raise ProviderError(f"unexpected {SERVER_META_PATH} answer: {exc}") from None
        currency = str(body.get("currency") or "").upper()
        if currency not in _CURRENCIES:
            raise ProviderError(f"{SERVER_META_PATH} answer names currency {body.get('currency')!r}; expected one "
                                f"of {', '.join(_CURRENCIES)} (prices are never assumed to be USD)")
        cpu_plans = cpu_plan_count(body)
        if cpu_plans:
            ctx.skip("CPU-only VM plan (no GPU)", cpu_plans)
        capacity_known = ctx.source.kind != "reconstructed"
        if not capacity_known:
            ctx.warn("availability unknown: the recording is reconstructed from published prices, not a capacity "
                     "snapshot")
        for entry in entries:
            offers: list[Offer] = []
            with ctx.guard("server_meta pool"):
                if not isinstance(entry, Mapping):
                    raise TypeError(f"pool is a {type(entry).__name__}, not an object")
                offers = self._offers(ctx, parse_pool(entry), currency, capacity_known, answered)
            yield from offers

    def error_from_response(self, response: httpx.Response) -> ProviderError | None:
        """A rejected key (401/403) names ``JL_API_KEY``; other errors keep gpuhub's generic message."""
        if response.status_code in (401, 403):
            return CredentialsError(f"JarvisLabs rejected the API key (HTTP {response.status_code}); {KEY_HELP}",
                                    code=str(response.status_code), status=response.status_code)
        return None

    def _offers(self, ctx: ProviderContext, pool: Pool, currency: str, capacity_known: bool,
                answered: dt.date | None) -> list[Offer]:
        workload = _WORKLOADS.get(pool.workload)
        if workload is None:
            ctx.skip(f"pool with workload type {pool.workload or 'none'!r} (not vm or container)")
            return []
        region = region_info(pool.region_id)
        if region is None:
            ctx.warn(f"unknown JarvisLabs region {pool.region_id!r}: offered under that id, without location")
        if pool.price_per_gpu_hour <= 0:
            ctx.skip("zero or negative price (placeholder)")
            return []
        gpu = ctx.gpu(pool.gpu_type, pool.vram_gb)
        if pool.vram_gb is not None and gpu.known and gpu.memory_gib is not None and \
                abs(float(gpu.memory_gib) - pool.vram_gb) > _MEMORY_TOLERANCE * float(gpu.memory_gib):
            ctx.warn(f"{pool.gpu_type} in {pool.region_id}: vram {pool.vram_gb:g} GB contradicts the GPU table's "
                     f"{gpu.name} ({gpu.memory_gib} GiB); the table's figure is used")
        code = region.code if region else pool.region_id
        offers: list[Offer] = []
        for count in (c for c in COUNTS if c <= pool.ceiling):
            suffix = "" if workload == "VM" else "-container"
            instance = Instance(
                provider=self.name, instance_type=f"{count}x_{pool.gpu_type}{suffix}", gpu=gpu, gpu_count=count,
                fractional=False, vcpus=pool.cpus_per_gpu * count, memory_gib=pool.ram_gb_per_gpu * count,
                tenancy="dedicated" if workload == "VM" else None,
                note=f"JarvisLabs {workload} from the {pool.gpu_type} pool in {code} "
                     f"(up to {pool.ceiling} GPUs per instance)")
            prices = [("on_demand", pool.price_per_gpu_hour, pool.free_gpus)]
            if workload == "container" and pool.spot_per_gpu_hour is not None and pool.spot_per_gpu_hour > 0:
                prices.append(("spot", pool.spot_per_gpu_hour, pool.free_spot_gpus))
            for purchase, per_gpu, free in prices:
                price = Price(amount=per_gpu * Decimal(count), currency=currency, purchase=purchase,
                              basis=f"{per_gpu} {currency} per GPU-hour x {count}", data_date=answered)
                available = (free >= count) if capacity_known and free is not None else None
                offers.append(Offer(instance=instance, region=ctx.region(code), price=price, available=available,
                                    source=ctx.source))
        return offers

