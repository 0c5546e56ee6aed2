"""The Seeweb provider: one ``GET /ecs/v2/plans`` call, one on-demand offer per GPU plan and region.

Seeweb's API states no currency. gpuhub prices Seeweb in the currency of ``GPUHUB_SEEWEB_CURRENCY`` (default
``USD``, the currency the SkyPilot catalog of these plans is published in) and says so on the status line: set it
to ``EUR`` when your account is billed in euros.
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
)
from gpuhub_seeweb.parse import REGIONS, Plan, parse_plan, plan_items

STORAGE_SOURCE = "Seeweb plans API: disk (GB) of the plan; the API names no network bandwidth or fabric"
"""Where an offer's disk figure comes from; Seeweb's plans carry no network facts."""

__all__ = ["PLANS_PATH", "Seeweb"]

PLANS_PATH = "/ecs/v2/plans"
KEY_HELP = "create an API token in Seeweb's control panel and export it, e.g. `export SEEWEB_API_TOKEN=...`"
_MEMORY_TOLERANCE = 0.15


class Seeweb(Provider):
    """Seeweb (Italian cloud): GPU cloud server plans at an hourly price per plan.

    Live: ``GET {base_url}/ecs/v2/plans`` with the ``X-APITOKEN: $SEEWEB_API_TOKEN`` header.
    """

    name: ClassVar[str] = "seeweb"
    display_name: ClassVar[str] = "Seeweb"
    kind: ClassVar[ProviderKind] = "specialist"
    base_url: ClassVar[str] = "https://api.seeweb.it"
    credentials: ClassVar[tuple[Credential, ...]] = (
        Credential(("SEEWEB_API_TOKEN",), "a Seeweb API token, sent as the X-APITOKEN header"),)

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Yield one on-demand offer per GPU plan and region it is sold in.

        Raises:
            CredentialsError: no ``SEEWEB_API_TOKEN`` (live), or Seeweb rejected it.
            ProviderError: an answer of an unexpected shape, or a currency setting that is not an ISO code.
        """
        currency = (ctx.setting("CURRENCY") or "USD").strip().upper()
        if len(currency) != 3 or not currency.isalpha():
            raise ProviderError(f"GPUHUB_SEEWEB_CURRENCY={currency!r}: use an ISO 4217 code such as USD or EUR")
        token = ctx.require_secret("SEEWEB_API_TOKEN")
        headers = {"Accept": "application/json"}
        if token is not None:
            headers["X-APITOKEN"] = token.get_secret_value()
        body, answered = ctx.get_dated_json(f"{ctx.base_url()}{PLANS_PATH}", headers=headers)
        try:
            items = plan_items(body)
        except ValueError as exc:
            raise ProviderError(f"unexpected {PLANS_PATH} answer: {exc}") from None
        ctx.warn(f"Seeweb's API states no currency: prices are taken as {currency} (GPUHUB_SEEWEB_CURRENCY; "
                 "default USD as in the SkyPilot catalog)")
        capacity_known = ctx.source.kind != "reconstructed"
        for item in items:
            offers: list[Offer] = []
            with ctx.guard("plan"):
                if not isinstance(item, Mapping):
                    raise TypeError(f"plan is a {type(item).__name__}, not an object")
                offers = self._offers(ctx, parse_plan(item), currency, answered, capacity_known)
            yield from offers

    def error_from_response(self, response: httpx.Response) -> ProviderError | None:
        """A rejected token (401/403) names ``SEEWEB_API_TOKEN``; other errors keep gpuhub's generic message."""
        if response.status_code in (401, 403):
            return CredentialsError(f"Seeweb rejected the API token (HTTP {response.status_code}); {KEY_HELP}",
                                    code=str(response.status_code), status=response.status_code)
        return None

    def _offers(self, ctx: ProviderContext, plan: Plan, currency: str, answered: dt.date | None,
                capacity_known: bool) -> list[Offer]:
        if plan.gpu_count == 0 or not plan.gpu_label:
            ctx.skip("CPU-only plan (no GPU)")
            return []
        if plan.hourly_price <= Decimal(0):
            ctx.skip("zero price (placeholder)")
            return []
        if not plan.regions:
            ctx.skip("plan sold in no region")
            return []
        gpu = ctx.gpu(plan.gpu_label)
        unknown = [r for r in plan.regions if r not in REGIONS]
        if unknown:
            ctx.warn(f"unknown Seeweb region {', '.join(unknown)}: offered under that code, without location")
        instance = Instance(provider=self.name, instance_type=plan.name, gpu=gpu, gpu_count=plan.gpu_count,
                            fractional=False, vcpus=plan.vcpus, memory_gib=plan.memory_gib,
                            storage_gib=plan.disk_gb, note=f"Seeweb cloud server plan with {plan.gpu_label}",
                            network_source=STORAGE_SOURCE if plan.disk_gb is not None else None)
        price = Price(amount=plan.hourly_price, currency=currency, purchase="on_demand", billing_increment_s=3600,
                      data_date=answered)
        available = plan.available if capacity_known else None
        return [Offer(instance=instance, region=ctx.region(code), price=price, available=available,
                      source=ctx.source) for code in plan.regions]
