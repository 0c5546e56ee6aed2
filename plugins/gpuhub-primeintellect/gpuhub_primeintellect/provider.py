"""The Prime Intellect provider: an aggregator of GPU clouds (Lambda, Verda/DataCrunch, Crusoe, Hyperstack, ...).

Request: ``GET {base_url}/api/v1/availability/`` with ``Authorization: Bearer $PRIME_API_KEY``. Answer: an object
mapping each Prime Intellect GPU type (``H100_80GB``, ``A100_80GB``, ``RTX6000Ada_48GB``) to its offers; an offer:

* ``provider`` (the cloud that runs the machine: ``lambdalabs``, ``datacrunch``, ``crusoecloud`` ...) becomes the
  offer's **seller** (:func:`gpuhub.plugin.seller_name`: ``datacrunch`` -> ``verda``); ``cloudId`` (the seller's own
  instance type, SkyPilot's ``UpstreamCloudId``: ``gpu_8x_a100_80gb_sxm4``) its ``seller_instance_type``, so
  Lambda's machine through Prime Intellect is recognised as the one gpuhub-lambda offers directly;
* ``gpuType``, ``gpuCount``, ``gpuMemory`` (GB per GPU, checked against the GPU table), ``vcpu.defaultCount``,
  ``memory.defaultCount`` (GB);
* ``country`` (the region) and ``dataCenter`` (the zone);
* ``prices.onDemand`` (USD per instance-hour), ``isSpot`` (an interruptible offer at that price);
* ``stockStatus``: ``Available``/``Low``/``Medium``/``High`` -> available, ``Unavailable`` -> not, absent ->
  unknown.

The instance type is ``<provider>__<count>x<gpuType>__<vCPUs>__<GB>``, then ``__<socket>`` unless the socket is
PCIe (``__NVLINK``) and ``__SPOT`` for an interruptible offer: SkyPilot's naming of the same offers.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any, ClassVar

from gpuhub.plugin import (
    Credential,
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
    located_region,
    seller_name,
)

__all__ = ["AVAILABILITY_PATH", "PrimeIntellectProvider"]

AVAILABILITY_PATH = "/api/v1/availability/"
IN_STOCK = {"available", "low", "medium", "high"}
OUT_OF_STOCK = {"unavailable", "out_of_stock", "out of stock", "none"}


def _number(value: Any) -> float | None:
    if isinstance(value, dict):
        value = value.get("defaultCount")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _label(value: float | None) -> str:
    return "?" if value is None else f"{value:g}"


class PrimeIntellectProvider(Provider):
    """Prime Intellect (GPU aggregator): on-demand and interruptible offers of the clouds it resells, each offer
    naming its seller, USD. Live with ``PRIME_API_KEY``."""

    name: ClassVar[str] = "primeintellect"
    display_name: ClassVar[str] = "Prime Intellect"
    kind: ClassVar[ProviderKind] = "other"
    resells: ClassVar[bool] = True
    price_change_period_s: ClassVar[float] = 3600.0
    """How often prices change, seconds: resold prices and stock change by the hour."""
    base_url: ClassVar[str] = "https://api.primeintellect.ai"
    credentials: ClassVar[tuple[Credential, ...]] = (
        Credential(("PRIME_API_KEY",), "a Prime Intellect API key with Availability read access, sent as a Bearer "
                                       "token"),)

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Yield one offer per availability entry (seller, GPU type and count, data centre, purchase model).

        Raises:
            CredentialsError: no ``PRIME_API_KEY`` (live).
            ProviderError: an error answer, or an answer that is not an object of GPU type -> list of offers.
        """
        key = ctx.require_secret("PRIME_API_KEY")
        headers = json_headers(key)
        body = ctx.get_json(f"{ctx.base_url()}{AVAILABILITY_PATH}", headers=headers)
        if not isinstance(body, dict) or not all(isinstance(v, list) for v in body.values()):
            raise ProviderError("Prime Intellect's availability answer is not an object of GPU type -> offers")
        for gpu_type, entries in body.items():
            for entry in entries:
                with ctx.guard("availability entry"):
                    offer = self._offer(ctx, str(gpu_type), entry)
                    if offer is not None:
                        yield offer

    def _offer(self, ctx: ProviderContext, gpu_type: str, entry: dict[str, Any]) -> Offer | None:
        count = entry["gpuCount"]
        if gpu_type.upper().startswith("CPU") or not count:
            ctx.skip("CPU-only offer (no GPU)")
            return None
        spot = entry.get("isSpot") is True
        amount = decimal_amount((entry.get("prices") or {}).get("onDemand"), "prices.onDemand")
        if amount is None or amount <= 0:
            ctx.skip("no prices.onDemand (missing or zero placeholder)")
            return None
        raw = str(entry.get("gpuType") or gpu_type)
        gpu, problem = checked_gpu(ctx, raw, entry.get("gpuMemory"), count, "GB per GPU")
        if problem:
            ctx.warn(f"{raw}: gpuMemory {entry.get('gpuMemory')!r} {problem}")
        vcpus, memory = _number(entry.get("vcpu")), _number(entry.get("memory"))
        seller = str(entry["provider"])
        socket = str(entry.get("socket") or "")
        shape = f"{seller}__{count}x{raw}__{_label(vcpus)}__{_label(memory)}"
        shape += (f"__{socket}" if socket and socket.upper() != "PCIE" else "") + ("__SPOT" if spot else "")
        instance = Instance(
            provider=self.name, gpu=gpu, gpu_count=count, vcpus=vcpus, memory_gib=memory, instance_type=shape,
            interconnect=socket or None,
            seller=seller_name(seller), seller_instance_type=entry.get("cloudId") or None)
        currency = str((entry.get("prices") or {}).get("currency") or "USD")
        stock = str(entry.get("stockStatus") or "").strip().lower()
        available = True if stock in IN_STOCK else False if stock in OUT_OF_STOCK else None
        country = entry.get("country") or None
        zone = entry.get("dataCenter") or None
        region = located_region(self.name, str(country or zone or "unknown"), country=country, zone=zone)
        return Offer(instance=instance, region=region, available=available, source=ctx.source,
                     price=Price(amount=Decimal(amount), currency=currency, purchase="spot" if spot else "on_demand"))
