"""The Verda (formerly DataCrunch) provider: instance types and where each can be deployed now, on demand or spot.

Live, with ``VERDA_CLIENT_ID`` and ``VERDA_CLIENT_SECRET``: ``POST {base}/oauth2/token`` (OAuth2 client
credentials, JSON body) gives a Bearer token; ``GET {base}/instance-types`` lists every type (``price_per_hour`` and
``spot_price`` are strings, USD per instance-hour; ``gpu_memory.size_in_gigabytes`` is the instance **total**,
known fault C32); ``GET {base}/instance-availability?isSpot=false|true`` lists, per ``location_code``, the types
deployable now. One offer per type, location and purchase model the availability lists. Field names and endpoints:
``../shared/reference/provider-apis-more.md`` section 5 and the verda SDK (``instances.get_availabilities``).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar

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
    placeholder_price,
)

if TYPE_CHECKING:
    import httpx

__all__ = ["LOCATIONS", "Verda", "VerdaType", "parse_type"]

LOCATIONS = ("FIN-01", "FIN-02", "FIN-03", "ICE-01")
"""Verda location codes (``locations.get()``); an availability entry naming anything else (a display name such as
``Finland 1``, a lower-case or legacy code such as ``FIN1``) is skipped and counted."""
_COUNT_RX = re.compile(r"^\s*(\d+)\s*x\s+(.+?)\s*$", re.IGNORECASE)
_MEMORY_RX = re.compile(r"\s+\d+(?:\.\d+)?\s*GB$", re.IGNORECASE)


@dataclass(frozen=True)
class VerdaType:
    """One instance type: the GPU spelling (``H100 SXM5 80GB``), GPUs, total GPU memory (GB), vCPUs, RAM (GB) and
    prices in ``currency`` per instance-hour (None: not sold that way)."""

    name: str
    gpu_label: str
    gpu_count: int
    gpu_memory_total_gb: float | None
    vcpus: int | None
    memory_gb: float | None
    on_demand: Decimal | None
    spot: Decimal | None
    currency: str


def _size(block: object) -> float | None:
    if not isinstance(block, Mapping):
        return None
    value = block.get("size_in_gigabytes")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"size_in_gigabytes is not a number: {value!r}")
    return float(value)


def parse_type(item: Mapping[str, Any]) -> VerdaType:
    """One ``/instance-types`` item.

    Raises:
        KeyError, TypeError, ValueError: the item is malformed (the caller skips and counts it).
    """
    name = item["instance_type"]
    if not isinstance(name, str) or not name:
        raise TypeError(f"instance_type is not a name: {name!r}")
    gpu = item.get("gpu") or {}
    description = str(gpu.get("description") or "")
    count = gpu.get("number_of_gpus")
    found = _COUNT_RX.match(description)
    if count is None and found:
        count = int(found.group(1))
    count = int(count or 0)
    label = _MEMORY_RX.sub("", found.group(2)) if found else description
    cpu = item.get("cpu") or {}
    return VerdaType(
        name=name, gpu_label=label or str(item.get("model") or ""), gpu_count=count,
        gpu_memory_total_gb=_size(item.get("gpu_memory")), vcpus=cpu.get("number_of_cores"),
        memory_gb=_size(item.get("memory")), on_demand=decimal_amount(item.get("price_per_hour"), "price_per_hour"),
        spot=decimal_amount(item.get("spot_price"), "spot_price"),
        currency=str(item.get("currency") or "usd").upper())


def availability(body: object, ctx: ProviderContext) -> dict[str, set[str]]:
    """``/instance-availability``'s ``[{location_code, availabilities: [type, ...]}]`` as location -> types.

    Raises:
        ProviderError: the answer is not a list (an error object or another shape is never an empty catalog).
    """
    if not isinstance(body, list):
        raise ProviderError(f"unexpected /instance-availability answer: a {type(body).__name__}, not a list")
    found: dict[str, set[str]] = {}
    for entry in body:
        with ctx.guard("availability entry"):
            code = entry["location_code"]
            if code not in LOCATIONS:
                ctx.skip("availability for a name that is not a Verda location code")
                continue
            found.setdefault(code, set()).update(str(t) for t in entry["availabilities"])
    return found


class Verda(Provider):
    """Verda, formerly DataCrunch (GPU specialist, Finland and Iceland): on-demand and spot prices per instance."""

    name: ClassVar[str] = "verda"
    display_name: ClassVar[str] = "Verda (DataCrunch)"
    kind: ClassVar[ProviderKind] = "specialist"
    price_change_period_s: ClassVar[float] = 86400.0  # Verda reprices spot and on-demand types often
    base_url: ClassVar[str] = "https://api.datacrunch.io/v1"
    credentials: ClassVar[tuple[Credential, ...]] = (
        Credential(("VERDA_CLIENT_ID", "VERDA_CLIENT_SECRET"),
                   "Verda API client credentials (cloud console, Keys, 'Create credentials')"),)

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Yield one offer per instance type, location and purchase model Verda lists as deployable.

        Raises:
            CredentialsError: live without ``VERDA_CLIENT_ID``/``VERDA_CLIENT_SECRET``.
            ProviderError: an answer of an unexpected shape, or a token answer without ``access_token``.
        """
        base = ctx.base_url()
        headers = {"Accept": "application/json"}
        client_id = ctx.require_secret("VERDA_CLIENT_ID")
        secret = ctx.require_secret("VERDA_CLIENT_SECRET")
        if client_id is not None and secret is not None:
            token = ctx.request("POST", f"{base}/oauth2/token", json={
                "grant_type": "client_credentials", "client_id": client_id.get_secret_value(),
                "client_secret": secret.get_secret_value()}).json()
            if not isinstance(token, Mapping) or not token.get("access_token"):
                raise ProviderError("Verda's token answer has no access_token; check VERDA_CLIENT_ID/SECRET")
            ctx.secrets_seen.append(str(token["access_token"]))
            headers["Authorization"] = f"Bearer {token['access_token']}"
        types, answered = ctx.get_dated_json(f"{base}/instance-types", headers=headers)
        if not isinstance(types, list):
            raise ProviderError(f"unexpected /instance-types answer: a {type(types).__name__}, not a list")
        on_demand = availability(ctx.get_json(f"{base}/instance-availability", params={"isSpot": "false"},
                                              headers=headers), ctx)
        spot = availability(ctx.get_json(f"{base}/instance-availability", params={"isSpot": "true"},
                                         headers=headers), ctx)
        capacity_known = ctx.source.kind != "reconstructed"
        if not capacity_known:
            ctx.warn("availability unknown: the recording is reconstructed from a price catalog, not a capacity "
                     "snapshot; each type is offered where the catalog lists it")
        for item in types:
            offers: list[Offer] = []
            with ctx.guard("instance type"):
                offers = self._offers(ctx, parse_type(item), on_demand, spot, capacity_known, answered)
            yield from offers

    def error_from_response(self, response: httpx.Response) -> ProviderError | None:
        """401/403 (the token endpoint refusing the client credentials, or an expired token) name the variables."""
        if response.status_code in (401, 403):
            return CredentialsError(f"Verda rejected the credentials (HTTP {response.status_code}); check "
                                    "VERDA_CLIENT_ID and VERDA_CLIENT_SECRET (cloud console, Keys)")
        return None

    def _offers(self, ctx: ProviderContext, item: VerdaType, on_demand: Mapping[str, set[str]],
                spot: Mapping[str, set[str]], capacity_known: bool, answered: dt.date | None) -> list[Offer]:
        if item.gpu_count <= 0:
            ctx.skip("CPU-only instance type (no GPU)")
            return []
        gpu, problem = checked_gpu(ctx, item.gpu_label, item.gpu_memory_total_gb, item.gpu_count, "GB total")
        if problem:
            ctx.warn(f"{item.name}: gpu_memory {problem}")
        instance = Instance(provider=self.name, instance_type=item.name, gpu=gpu, gpu_count=item.gpu_count,
                            vcpus=item.vcpus, memory_gib=item.memory_gb)
        offers = []
        for purchase, amount, where in (("on_demand", item.on_demand, on_demand), ("spot", item.spot, spot)):
            locations = [code for code in LOCATIONS if item.name in where.get(code, ())]
            if not locations:
                continue
            if amount is None:  # deployable that way, but the type has no such price: never dropped silently
                ctx.skip(f"{purchase} availability of an instance type without its "
                         f"{'price_per_hour' if purchase == 'on_demand' else 'spot_price'}")
                continue
            if placeholder_price(amount):
                ctx.skip(f"placeholder {purchase} price (zero or negative)")
                continue
            price = Price(amount=amount, currency=item.currency, purchase=purchase, data_date=answered)
            offers += [Offer(instance=instance, region=ctx.region(code), price=price,
                             available=True if capacity_known else None, source=ctx.source) for code in locations]
        if not offers:
            ctx.skip("instance type deployable nowhere (no location lists it)")
        return offers
