"""The Azure provider: a per-region walk of the public Retail Prices API, joined with a bundled spec table
(and, when an Azure identity is configured, the Resource SKUs API for vCPUs and RAM).

Live walk, per region (``GPUHUB_AZURE_REGIONS``, default: every Azure region gpuhub knows)::

    GET {base}/api/retail/prices?api-version=2023-01-01-preview&currencyCode=USD
        &$filter=serviceName eq 'Virtual Machines' and armRegionName eq '<region>' and (contains(meterName,'NC') ...)

following ``NextPageLink`` until it is null (that last page is still read). When the link is missing but the page
was full, the walk goes on with ``$skip`` until a short or empty page (Azure's 2023 outage pattern). A repeated
link is a pagination loop and a page cap reached with a link still pending is an error: both raise
:class:`~gpuhub.errors.ProviderError`, never return a shorter list (known fault C19).

The first region is walked alone, the others on ``GPUHUB_AZURE_WORKERS`` threads (default 4).

Region policy: a region with no rows is a warning (C12). A region whose walk fails after the engine's retries fails
the whole provider (C19: a partial catalog must never look complete), unless ``GPUHUB_AZURE_ON_REGION_FAILURE=warn``,
which leaves that region out and says so in the status warnings.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import pydantic

from gpuhub.plugin import (
    Credential,
    CredentialsError,
    Instance,
    Offer,
    Price,
    Provider,
    ProviderContext,
    ProviderError,
    known_regions,
)
from gpuhub_azure.network import network_fields
from gpuhub_azure.obtain import attach_risk
from gpuhub_azure.parse import (
    PriceRow,
    SizeSpec,
    SkuCapabilities,
    classify_item,
    family_gpu,
    page_items,
    resource_sku_capabilities,
    select_prices,
    size_table,
)

__all__ = ["API_VERSION", "RECORDED_REGIONS", "AzureProvider", "price_filter"]

API_VERSION = "2023-01-01-preview"
"""Retail Prices api-version: adds ``savingsPlan[]`` and makes filter values case-sensitive."""
SKUS_API_VERSION = "2021-07-01"
FULL_PAGE = 1000
"""Items on a full Retail Prices page today; a page this long without a ``NextPageLink`` triggers ``$skip``."""
MIN_PAGE = 100
"""The smallest page size the API has served (2022). A page without a link that is as long as the earlier pages
of the walk (at least this long) is also full."""
MAX_PAGES = 200
"""Default page cap per region walk (``GPUHUB_AZURE_MAX_PAGES``)."""
WORKERS = 4
"""Regions walked at once after the first one (``GPUHUB_AZURE_WORKERS``); 1 walks them one after another."""
GPU_FAMILIES = ("NC", "ND", "NG", "NV")
RECORDED_REGIONS = ("westeurope", "northeurope", "swedencentral", "francecentral", "belgiumcentral", "centralus",
                    "eastus", "eastus2", "northcentralus", "southcentralus", "westus", "westus2", "westus3")
"""The regions in the bundled recording (replayed when ``GPUHUB_AZURE_REGIONS`` is unset)."""
ARM_BASE_URL = "https://management.azure.com"
IDENTITY_ENV = ("AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_SECRET", "AZURE_SUBSCRIPTION_ID")
_RECORDING = Path(__file__).resolve().parent / "recording"
_REGION_RX = re.compile(r"[a-z][a-z0-9]*")


def price_filter(region: str) -> str:
    """The OData ``$filter`` for the GPU VM rows of one region (currency is a separate parameter: C25)."""
    families = " or ".join(f"contains(meterName, '{f}')" for f in GPU_FAMILIES)
    return f"serviceName eq 'Virtual Machines' and armRegionName eq '{region}' and ({families})"


class AzureProvider(Provider):
    """Microsoft Azure GPU virtual machines: on-demand, Spot, Low Priority, reservations and savings plans.

    Prices are public (no credentials). ``credentials`` lists the optional Azure identity used for Resource SKUs
    specs; without it the bundled spec table gives GPUs, vCPUs and RAM.
    """

    name = "azure"
    display_name = "Microsoft Azure"
    kind = "hyperscaler"
    price_change_period_s = 86400.0  # spot prices move with demand (daily); list prices change a few times a year
    base_url = "https://prices.azure.com"
    credentials = (
        Credential(IDENTITY_ENV, "an Azure service principal with Reader on the subscription, for Resource SKUs "
                                 "specs; prices themselves are public"),
    )

    def fixtures_dir(self) -> Path:
        """The bundled recording (raw Retail Prices pages, reconstructed from 2026-08 prices)."""
        return _RECORDING

    def error_from_response(self, response: httpx.Response) -> ProviderError | None:
        """ARM-style error answers (``{"error": {"code", "message"}}``, Resource SKUs) as errors naming Azure's
        code; a 401/403 also says which variables configure the identity. Other bodies keep gpuhub's message."""
        try:
            data = response.json()
        except ValueError:
            return None
        error = data.get("error") if isinstance(data, dict) else None
        if not isinstance(error, dict) or not error.get("code"):
            return None
        code, status = str(error["code"]), response.status_code
        text = f"Azure error {code} (HTTP {status}): {str(error.get('message') or '')[:200]}"
        if status in (401, 403):
            return CredentialsError(f"{text}; {self.credentials_help()}", code=code, status=status,
                                    body=response.text[:65536])
        return ProviderError(text, code=code, retryable=status in (408, 429) or status >= 500, status=status,
                             body=response.text[:65536])

    # --- fetch -------------------------------------------------------------------------------------------------
    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Walk every region's price pages, then parse, dedupe and join with the size specs."""
        currency = _currency(ctx.setting("CURRENCY", "USD") or "USD")
        regions = self._regions(ctx)
        on_failure = (ctx.setting("ON_REGION_FAILURE", "fail") or "fail").lower()
        if on_failure not in ("fail", "warn"):
            raise ProviderError(f"GPUHUB_AZURE_ON_REGION_FAILURE={on_failure!r}: use 'fail' or 'warn'")
        # Expiry is judged at the data's date: today when live, the recording's date when replayed.
        today = ctx.source.recorded_at if ctx.mode == "replay" else dt.datetime.now(dt.timezone.utc).date()
        rows: list[PriceRow] = []
        for region, items, billing in self._walk_all(ctx, regions, currency, on_failure):
            if billing and billing != currency:
                ctx.warn(f"{region}: asked for {currency}, the API answered with BillingCurrency {billing}; "
                         "each price carries the currency of its own row")
            if not items:
                ctx.warn(f"{region}: no GPU VM price rows (empty region)")
                continue
            for item, answered in items:
                with ctx.guard("price item"):
                    result = classify_item(item, billing_currency=billing, today=today)
                    if isinstance(result, str):
                        ctx.skip(result)
                    else:  # each price is of the day its page was answered (HTTP Date), when that is known
                        rows.extend(replace(r, data_date=answered) for r in result)
        selection = select_prices(rows)
        if selection.duplicates:
            ctx.skip("duplicate meter for one size, region and purchase model (merged)", selection.duplicates)
        if selection.placeholders:
            ctx.skip("spot/low-priority price equal to on-demand (placeholder row of the source, left out)",
                     selection.placeholders)
        for key, prices in selection.conflicts.items():
            ctx.skip("conflicting prices for one size, region and purchase model (left out)")
            ctx.warn(f"{key[1]} {key[0]} {key[2]}: {len(prices)} different prices "
                     f"({', '.join(str(p) for p in prices)}); left out rather than picking one")
        skus = self._resource_skus(ctx, regions) if selection.rows else {}
        yield from attach_risk(self._offers(ctx, selection.rows.values(), skus))  # eviction risk (.obtain)

    def _walk_all(self, ctx: ProviderContext, regions: list[str], currency: str,
                  on_failure: str) -> list[tuple[str, list[tuple[Any, dt.date | None]], str | None]]:
        """Walk every region: the first alone (so an API that is down fails fast, after one region's retries),
        then the others on ``GPUHUB_AZURE_WORKERS`` threads (default 4). Results keep the region order.

        Raises:
            ProviderError: a region failed and the policy is ``fail`` (or the failure is about credentials).
        """
        workers = max(1, int(ctx.setting("WORKERS", str(WORKERS)) or WORKERS))
        done: dict[str, tuple[list[tuple[Any, dt.date | None]], str | None]] = {}

        def failed(region: str, exc: ProviderError) -> None:
            if on_failure == "fail" or isinstance(exc, CredentialsError):
                raise type(exc)(f"region {region}: {exc}; the Azure catalog would be partial, so none is "
                                "returned", code=exc.code, retryable=exc.retryable, status=exc.status,
                                body=exc.body) from exc
            ctx.partial("regions whose price walk failed (left out)", 1,
                        f"{region}: walk failed, region left out (catalog is PARTIAL): {exc}")

        try:
            done[regions[0]] = self._walk_region(ctx, regions[0], currency)
        except ProviderError as exc:
            failed(regions[0], exc)
        rest = regions[1:]
        if rest:
            pool = ThreadPoolExecutor(max_workers=min(workers, len(rest)), thread_name_prefix="gpuhub-azure")
            futures = {pool.submit(self._walk_region, ctx, region, currency): region for region in rest}
            try:
                for future in as_completed(futures):
                    region = futures[future]
                    try:
                        done[region] = future.result()
                    except ProviderError as exc:
                        failed(region, exc)
            finally:
                # On a failure the walks not started yet are dropped and running ones are not waited for: the
                # result is an error either way (a dropped walk ends on the closed client).
                pool.shutdown(wait=False, cancel_futures=True)
        return [(region, *done[region]) for region in regions if region in done]

    def _regions(self, ctx: ProviderContext) -> list[str]:
        configured = ctx.setting("REGIONS")
        if configured:
            regions = [r.strip() for r in configured.split(",") if r.strip()]
        elif ctx.mode == "replay":
            regions = list(_replayed_regions(ctx) or RECORDED_REGIONS)
        else:
            regions = sorted(f.region for f in known_regions(self.name))
        if not regions:
            raise ProviderError("no Azure regions to walk: set GPUHUB_AZURE_REGIONS, e.g. 'westeurope,eastus'")
        bad = [r for r in regions if not _REGION_RX.fullmatch(r)]
        if bad:  # region codes go into the OData filter: never let a quote or an operator through
            raise ProviderError(f"GPUHUB_AZURE_REGIONS: {', '.join(repr(r) for r in bad)} is not an Azure region "
                                "code (lower-case letters and digits, like 'westeurope')")
        return list(dict.fromkeys(regions))

    def _walk_region(self, ctx: ProviderContext, region: str,
                     currency: str) -> tuple[list[tuple[Any, dt.date | None]], str | None]:
        """Every item of one region with the date of its page's answer, following ``NextPageLink`` (or ``$skip``
        when the link is missing)."""
        endpoint = f"{ctx.base_url()}/api/retail/prices"
        base = {"api-version": API_VERSION, "currencyCode": currency, "$filter": price_filter(region)}
        max_pages = int(ctx.setting("MAX_PAGES", str(MAX_PAGES)) or MAX_PAGES)
        params = dict(base)
        seen: set[tuple[tuple[str, str], ...]] = set()
        items: list[tuple[Any, dt.date | None]] = []
        billing: str | None = None
        longest = 0
        for number in range(1, max_pages + 1):
            key = tuple(sorted(params.items()))
            if key in seen:
                raise ProviderError(f"pagination loop: page {number} repeats an earlier request "
                                    f"($skip={params.get('$skip', '0')})")
            seen.add(key)
            page, answered = ctx.get_dated_json(endpoint, params=params)
            try:
                page_rows, link, page_currency = page_items(page)
            except ValueError as exc:
                raise ProviderError(f"page {number}: {exc}") from None
            items.extend((row, answered) for row in page_rows)
            billing = billing or page_currency
            if link:
                params = {**base, **_link_params(link)}
                longest = max(longest, len(page_rows))
                continue
            full = len(page_rows) >= FULL_PAGE or (longest > 0 and len(page_rows) >= max(longest, MIN_PAGE))
            if not full or not page_rows:
                return items, billing
            skip = int(params.get("$skip", "0") or 0) + len(page_rows)
            ctx.warn(f"{region}: page {number} was full but had no NextPageLink; continued with $skip={skip}")
            params = {**base, "$skip": str(skip)}
            longest = max(longest, len(page_rows))
        raise ProviderError(f"page cap of {max_pages} pages reached with a next page still pending "
                            "(raise GPUHUB_AZURE_MAX_PAGES)")

    # --- specs -------------------------------------------------------------------------------------------------
    def _resource_skus(self, ctx: ProviderContext, regions: list[str]) -> dict[str, SkuCapabilities]:
        """vCPUs/RAM/GPUs from the Resource SKUs API when an Azure identity is configured; else {} and a warning."""
        if ctx.mode == "replay":
            return {}
        secrets = [ctx.secret(name) for name in IDENTITY_ENV]
        values = [s.get_secret_value() for s in secrets if s is not None]
        if len(values) != len(IDENTITY_ENV):
            ctx.warn("Resource SKUs not queried (specs from the bundled table): set " + ", ".join(IDENTITY_ENV))
            return {}
        client_id, tenant_id, client_secret, subscription = values
        token = self._arm_token(ctx, client_id, tenant_id, client_secret)
        if token is None:
            return {}
        root = (ctx.setting("ARM_BASE_URL") or ARM_BASE_URL).rstrip("/")
        out: dict[str, SkuCapabilities] = {}
        try:
            for region in regions:
                url: str | None = f"{root}/subscriptions/{subscription}/providers/Microsoft.Compute/skus"
                params: dict[str, str] | None = {"api-version": SKUS_API_VERSION,
                                                 "$filter": f"location eq '{region}'"}
                seen: set[str] = set()
                while url:
                    if url in seen or len(seen) >= MAX_PAGES:
                        raise ProviderError("Resource SKUs pagination loop or page cap")
                    seen.add(url)
                    page = ctx.get_json(url, params=params, headers={"Authorization": f"Bearer {token}"})
                    found, url = resource_sku_capabilities(page)
                    for key, caps in found.items():
                        if key in out:  # the same size seen from another region: keep every restriction
                            caps = replace(caps, restricted_in=caps.restricted_in | out[key].restricted_in)
                        out[key] = caps
                    params = None
        except (ProviderError, ValueError) as exc:
            ctx.warn(f"Resource SKUs unavailable, specs from the bundled table: {exc}")
            return {}
        return out

    def _arm_token(self, ctx: ProviderContext, client_id: str, tenant_id: str, secret: str) -> str | None:
        """An ARM bearer token from azure-identity (optional extra ``gpuhub-azure[identity]``), or None."""
        try:
            from azure.identity import ClientSecretCredential  # type: ignore[import-not-found]
        except ImportError:
            ctx.warn("Resource SKUs not queried: install the optional extra 'gpuhub-azure[identity]' "
                     "(azure-identity); specs from the bundled table")
            return None
        try:
            token = ClientSecretCredential(tenant_id, client_id, secret).get_token(
                "https://management.azure.com/.default").token
        except Exception as exc:  # azure-identity raises its own ClientAuthenticationError family
            ctx.warn(f"Azure identity rejected ({type(exc).__name__}); check {', '.join(IDENTITY_ENV[:3])}; "
                     "specs from the bundled table")
            return None
        ctx.secrets_seen.append(token)
        return str(token)

    def _offers(self, ctx: ProviderContext, rows: Any, skus: dict[str, SkuCapabilities]) -> Iterator[Offer]:
        table = size_table()
        instances: dict[str, Instance | None] = {}
        unknown: set[str] = set()
        retired = retired_sizes()
        left_out: dict[str, int] = {}
        for row in sorted(rows, key=lambda r: (*r.key[:3], r.key[3] or 0)):
            with ctx.guard("offer"):
                gone = retired.get(row.arm_sku_name.lower())
                if gone is not None and gone.retired_on <= _data_day(ctx, row):
                    ctx.skip(f"retired size (retired {gone.retired_on.isoformat()}, {gone.source})"[:160])
                    left_out[row.arm_sku_name] = left_out.get(row.arm_sku_name, 0) + 1
                    continue
                if row.arm_sku_name not in instances:
                    instances[row.arm_sku_name] = self._instance(ctx, row.arm_sku_name, table, skus)
                instance = instances[row.arm_sku_name]
                if instance is None:
                    unknown.add(row.arm_sku_name)
                    ctx.skip("size without known GPU specs (not in the bundled table)")
                    continue
                price = Price(amount=row.amount, currency=row.currency, purchase=row.purchase,
                              term_hours=row.term_hours, data_date=row.data_date)
                sku = skus.get(row.arm_sku_name.lower())
                # Resource SKUs only say "this subscription may not use the size here"; otherwise unknown.
                available = False if sku is not None and row.region.lower() in sku.restricted_in else None
                yield Offer(instance=instance, region=ctx.region(row.region), price=price, available=available,
                            source=ctx.source)
        if left_out:
            ctx.warn(f"{sum(left_out.values())} prices of retired sizes left out (not rentable): "
                     + ", ".join(f"{name} ({retired[name.lower()].gpu}, retired "
                                 f"{retired[name.lower()].retired_on.isoformat()})" for name in sorted(left_out)))
        if unknown:
            names = sorted(unknown)
            ctx.partial("sizes without known specs (left out)", len(names),
                        f"{len(names)} sizes without known specs left out: {', '.join(names[:12])}"
                        + (" ..." if len(names) > 12 else ""))

    def _instance(self, ctx: ProviderContext, arm: str, table: dict[str, SizeSpec],
                  skus: dict[str, SkuCapabilities]) -> Instance | None:
        spec = table.get(arm.lower())
        sku = skus.get(arm.lower())
        if spec is not None:
            gpu_name, count, card = spec.gpu, spec.gpu_count, spec.gpu_memory_gib
            vcpus = sku.vcpus if sku and sku.vcpus else spec.vcpus
            memory = sku.memory_gib if sku and sku.memory_gib else spec.memory_gib
        else:
            family = family_gpu(arm)
            # Resource SKUs report "GPUs": "1" for a slice of a card (C03): never trust it for a partial family.
            if family is None or sku is None or not sku.gpus or family[2]:
                return None
            gpu_name, card, _ = family
            count, vcpus, memory = sku.gpus, sku.vcpus, sku.memory_gib
        fractional = 0 < count < 1
        notes = []
        # ND sizes with 8 NVIDIA GPUs (NDv2, ND A100 v4, ND H100/H200 v5) are SXM modules on NVLink HGX boards
        # (Azure's ND-series size docs); the size table names only the model.
        sxm = arm.lower().startswith("standard_nd") and count >= 8 and not gpu_name.upper().startswith("MI")
        gpu = ctx.gpu(f"{gpu_name} SXM" if sxm else gpu_name).model_copy(update={"raw_name": gpu_name})
        if gpu.memory_gib is not None and float(gpu.memory_gib) != card:
            # Azure exposes less than the card's marketed memory (NVads V710 v5: 24 of a V710's 28 GB).
            notes.append(f"Azure exposes {card:g} GiB of the {gpu.name}'s {float(gpu.memory_gib):g} GiB per GPU")
            gpu = gpu.model_copy(update={"memory_gib": Decimal(str(card))})
        if fractional:
            notes.insert(0, f"partial GPU: {_fraction(count)} of one {gpu.name} ({card * count:g} GiB of its "
                            f"{card:g} GiB VRAM)")
        return Instance(provider=self.name, instance_type=arm, gpu=gpu, gpu_count=count, fractional=fractional,
                        vcpus=vcpus, memory_gib=memory, note="; ".join(notes) or None, bare_metal=False,
                        tenancy="shared", control_source="Azure VM sizes are virtual machines on shared hosts "
                                                         "(Azure Dedicated Host is sold apart)",
                        **network_fields(arm))


@dataclass(frozen=True)
class Retired:
    """A VM size Microsoft has retired: its GPU, the retirement date and the notice that says so."""

    gpu: str
    retired_on: dt.date
    source: str


@lru_cache(maxsize=1)
def retired_sizes() -> dict[str, Retired]:
    """Lower-case size name -> :class:`Retired`, from ``data/retired.csv`` (Microsoft's retirement notices)."""
    path = Path(__file__).resolve().parent / "data" / "retired.csv"
    with path.open(encoding="utf-8") as handle:
        rows = csv.DictReader(line for line in handle if not line.startswith("#"))
        return {r["size"].lower(): Retired(r["gpu"], dt.date.fromisoformat(r["retired_on"]), r["source"])
                for r in rows}


def _data_day(ctx: ProviderContext, row: Any) -> dt.date:
    """The day a price row speaks for: its own date, else today (live) or the recording's date."""
    if row.data_date is not None:
        return row.data_date
    return (ctx.source.recorded_at if ctx.mode == "replay" and ctx.source.recorded_at
            else dt.datetime.now(dt.timezone.utc).date())


def _fraction(count: float) -> str:
    from fractions import Fraction

    return str(Fraction(count).limit_denominator(16))


def _currency(code: str) -> str:
    """Validate the requested currency before any request (C25: an unknown code never reaches the API)."""
    try:
        return Price(amount=1, currency=code, purchase="on_demand").currency
    except pydantic.ValidationError:
        raise ProviderError(f"GPUHUB_AZURE_CURRENCY={code!r} is not an ISO 4217 currency code (like USD, EUR)") \
            from None


def _link_params(link: str) -> dict[str, str]:
    """The query of a ``NextPageLink`` (absolute, often with ``:443``); the request is rebased on our endpoint."""
    return dict(parse_qsl(urlsplit(link).query, keep_blank_values=True))


def _replayed_regions(ctx: ProviderContext) -> list[str]:
    """The regions a replayed recording holds, read from its first-page request URLs (empty when unknown)."""
    exchanges = ctx.recording.exchanges if ctx.recording is not None else None
    if not isinstance(exchanges, list):
        return []
    regions: list[str] = []
    for exchange in exchanges:
        url = str(exchange.get("request", {}).get("url", ""))
        query = dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
        if "/api/retail/prices" not in url or "$skip" in query:
            continue
        text = query.get("$filter", "")
        marker = "armRegionName eq '"
        if marker in text:
            regions.append(text.split(marker, 1)[1].split("'", 1)[0])
    return list(dict.fromkeys(regions))
