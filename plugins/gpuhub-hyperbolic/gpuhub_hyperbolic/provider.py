"""The Hyperbolic provider: one ``GET /v2/skypilot/catalog`` call, one offer per VM size and purchase model.

Prices are USD per instance-hour (the catalog format SkyPilot reads). Hyperbolic names no place for these VMs (the
region is ``default``), so offers carry that region code without a location and the status says so.
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
from gpuhub_hyperbolic.parse import Vm, parse_vm, vm_items

__all__ = ["CATALOG_PATH", "Hyperbolic"]

CATALOG_PATH = "/v2/skypilot/catalog"
KEY_HELP = "create an API key in Hyperbolic's settings and export it, e.g. `export HYPERBOLIC_API_KEY=...`"
_MEMORY_TOLERANCE = 0.15
STORAGE_SOURCE = "Hyperbolic catalog (GET /v2/skypilot/catalog): StorageGiB; the catalog names no network or fabric"
"""Where an offer's storage figure comes from; Hyperbolic publishes no network bandwidth or fabric."""
_NO_PLACE = {"", "default"}


class Hyperbolic(Provider):
    """Hyperbolic (GPU specialist): on-demand VM sizes of 1 to N GPUs, USD per instance-hour.

    Live: ``GET {base_url}/v2/skypilot/catalog`` with ``Authorization: Bearer $HYPERBOLIC_API_KEY``.
    """

    name: ClassVar[str] = "hyperbolic"
    display_name: ClassVar[str] = "Hyperbolic"
    kind: ClassVar[ProviderKind] = "specialist"
    base_url: ClassVar[str] = "https://api.hyperbolic.xyz"
    credentials: ClassVar[tuple[Credential, ...]] = (
        Credential(("HYPERBOLIC_API_KEY",), "a Hyperbolic API key, sent as a Bearer token"),)
    price_change_period_s: ClassVar[float] = 7 * 86400.0

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Yield one offer per VM size and purchase model (on-demand; spot where ``SpotPrice`` is set).

        Raises:
            CredentialsError: no ``HYPERBOLIC_API_KEY`` (live), or Hyperbolic rejected it.
            ProviderError: an answer of an unexpected shape.
        """
        key = ctx.require_secret("HYPERBOLIC_API_KEY")
        headers = json_headers(key)
        body, answered = ctx.get_dated_json(f"{ctx.base_url()}{CATALOG_PATH}", headers=headers)
        try:
            items = vm_items(body)
        except ValueError as exc:
            raise ProviderError(f"unexpected {CATALOG_PATH} answer: {exc}") from None
        placeless: set[str] = set()
        for item in items:
            offers: list[Offer] = []
            with ctx.guard("catalog VM"):
                if not isinstance(item, Mapping):
                    raise TypeError(f"item is a {type(item).__name__}, not an object")
                vm = parse_vm(item)
                if vm is None:
                    ctx.skip("CPU-only VM (no GPU)")
                    continue
                if vm.region.lower() in _NO_PLACE:
                    placeless.add(vm.region or "(empty)")
                offers = self._offers(ctx, vm, answered)
            yield from offers
        if placeless:
            ctx.warn(f"Hyperbolic names no location for its VMs (region {', '.join(sorted(placeless))}): offered "
                     "under that region code, without a place, so --near/--continent leave them out")

    def error_from_response(self, response: httpx.Response) -> ProviderError | None:
        """A rejected key (401/403) names ``HYPERBOLIC_API_KEY``; other errors keep gpuhub's generic message."""
        if response.status_code in (401, 403):
            return CredentialsError(f"Hyperbolic rejected the API key (HTTP {response.status_code}); {KEY_HELP}",
                                    code=str(response.status_code), status=response.status_code)
        return None

    def _offers(self, ctx: ProviderContext, vm: Vm, answered: dt.date | None) -> list[Offer]:
        per_gpu_gib = vm.gpu_mib / 1024 if vm.gpu_mib is not None else None
        if per_gpu_gib is not None and per_gpu_gib < 1:  # a GB figure in the MiB field (known fault C37)
            ctx.warn(f"{vm.instance_type}: GpuInfo SizeInMiB {vm.gpu_mib:g} is not a MiB figure; the GPU table's "
                     "memory is used")
            per_gpu_gib = None
        gpu = ctx.gpu(vm.gpu_name, per_gpu_gib)
        if per_gpu_gib is not None and gpu.known and gpu.memory_gib is not None and \
                abs(float(gpu.memory_gib) - per_gpu_gib) > _MEMORY_TOLERANCE * float(gpu.memory_gib):
            ctx.warn(f"{vm.instance_type}: {vm.gpu_mib:g} MiB per GPU contradicts the GPU table's {gpu.name} "
                     f"({gpu.memory_gib} GiB); the table's figure is used")
        instance = Instance(provider=self.name, instance_type=vm.instance_type, gpu=gpu, gpu_count=vm.gpu_count,
                            fractional=False, vcpus=vm.vcpus, memory_gib=vm.memory_gib, storage_gib=vm.storage_gib,
                            network_source=STORAGE_SOURCE if vm.storage_gib is not None else None)
        offers = []
        for purchase, amount in (("on_demand", vm.price), ("spot", vm.spot)):
            if amount is None:
                continue
            if amount <= Decimal(0):
                ctx.skip(f"{purchase} price {amount} (placeholder)")
                continue
            price = Price(amount=amount, currency="USD", purchase=purchase, data_date=answered)
            offers.append(Offer(instance=instance, region=ctx.region(vm.region or "default"), price=price,
                                source=ctx.source))
        return offers
