"""Obtainability for GCP offers: Google publishes no Spot VM preemption rate, and each spot offer says so; DWS
flex-start and calendar-mode SKUs become ``flex_start`` / ``calendar`` offers (:func:`dws_offers`).

Google's documentation: "Compute Engine might reclaim the resources by preempting Spot VMs at any time" (Spot VMs,
create-manage-spot). The only per-zone figure is the authenticated, per-project
``POST /compute/v1/projects/{project}/regions/{region}/advice/capacityHistory``
(``preemptionHistory[].preemptionRate``), which needs OAuth credentials for a project; this plugin authenticates
with an API key only, so it is not asked and the note says so. The risk is ``not published`` (bounds None:
unknown, never zero).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from gpuhub.plugin import Instance, Obtainability, Offer, Price, ProviderContext, Reservation, SpotRisk
from gpuhub_gcp.machines import MachineType, machine_types
from gpuhub_gcp.parse import Component, Notes, PriceIndex, Unpriced, build_index, price_machine_type

__all__ = ["FLEX_START_MAX_HOURS", "NO_RATE", "attach_risk", "dws_index", "dws_offers", "dws_purchase"]

NO_RATE = Obtainability(risk=SpotRisk(
    label="not published", source="gcp: no published rate",
    note="Google publishes no Spot VM preemption rate (Compute Engine may preempt Spot VMs at any time); the "
         "per-project advice/capacityHistory preemption rate needs OAuth project credentials and was not asked"))


def attach_risk(offers: Iterable[Offer]) -> list[Offer]:
    """Every spot offer with :data:`NO_RATE`; others unchanged."""
    return [o.model_copy(update={"obtain": NO_RATE}) if o.price.purchase == "spot" else o for o in offers]


# --- DWS flex-start and calendar mode ----------------------------------------------------------------------------
# Billing SKU names (observed: "Nvidia H100 80GB GPU attached to DWS Defined Duration VMs running in Americas",
# "DWS Defined Duration A3 Core running in Americas", "DWS Defined Duration A3 Ram ...", "DWS Defined Duration SSD
# backed Local Storage ..."; calendar mode: "... in Calendar Mode", "DWS Calendar Mode ...").
_FLEX_RX = re.compile(r"\bDWS Defined Duration\b|\bflex[- ]start\b", re.IGNORECASE)
_CALENDAR_RX = re.compile(r"\bcalendar mode\b", re.IGNORECASE)
_STRIP_RX = re.compile(r"\b(?:attached to )?DWS (?:Defined Duration|Calendar Mode)(?: VMs)?\s*|\bin Calendar Mode\b\s*"
                       r"|\bflex[- ]start(?: mode)?\s*", re.IGNORECASE)
FLEX_START_MAX_HOURS = 168.0
"""Flex-start VMs run for at most seven days (Google: "keep running for a maximum of seven days")."""


def dws_purchase(description: str) -> str | None:
    """``flex_start``, ``calendar`` or None for a Compute Engine SKU description."""
    if _CALENDAR_RX.search(description):
        return "calendar"
    if _FLEX_RX.search(description):
        return "flex_start"
    return None


def dws_index(skus: Iterable[Any], notes: Notes) -> PriceIndex:
    """The DWS SKUs' unit prices by (component, region, ``flex_start``/``calendar``), read like any other SKU once
    the DWS words are taken out of the description."""
    plain: list[dict[str, Any]] = []
    purchases: dict[int, str] = {}
    for sku in skus:
        if not isinstance(sku, Mapping):
            continue
        purchase = dws_purchase(str(sku.get("description", "")))
        if purchase is None:
            continue
        copy = {**sku, "description": " ".join(_STRIP_RX.sub("", str(sku["description"])).split()),
                "category": {**(sku.get("category") or {}), "usageType": "OnDemand"}}
        purchases[len(plain)] = purchase
        plain.append(copy)
    index = PriceIndex()
    for n, sku in enumerate(plain):
        single = build_index([sku], notes)
        for (component, region, _), found in single.prices.items():
            for (amount, currency), ids in found.items():
                for sku_id in ids:
                    index.add(component, region, purchases[n], amount, currency, sku_id, single.dates.get(sku_id))
        index.skus += single.skus
    return index


def dws_offers(ctx: ProviderContext, skus: Iterable[Any], machines: Iterable[MachineType] | None = None,
               instances: Mapping[str, Instance] | None = None) -> list[Offer]:
    """Flex-start and calendar-mode offers of the machine types whose every component has a DWS SKU."""
    notes = Notes()
    index = dws_index(skus, notes)
    found = {p for (_, _, p) in index.prices}
    if "calendar" not in found:
        ctx.warn("no DWS calendar-mode SKUs in the price list: no calendar offers")
    if "flex_start" not in found:
        ctx.warn("no DWS flex-start SKUs in the price list: no flex_start offers")
    offers: list[Offer] = []
    for machine in machines if machines is not None else machine_types():
        gpu = Component("gpu", machine.accelerator)
        for purchase in ("flex_start", "calendar"):
            for region in sorted(index.regions.get((gpu, purchase), ())):
                priced = price_machine_type(machine, region, purchase, index)
                if isinstance(priced, Unpriced):
                    continue
                instance = (instances or {}).get(machine.name)
                if instance is None:
                    continue
                price = Price(amount=priced.amount, currency=priced.currency, purchase=purchase,
                              billing_increment_s=1, minimum_charge_s=60, data_date=priced.data_date,
                              replaced=priced.replaced)
                hours = FLEX_START_MAX_HOURS
                note = ("flex-start: granted from a queue (up to 2 h), runs up to 7 days, billed per second "
                        "for the time used; uses preemptible quota") if purchase == "flex_start" else \
                    "calendar mode: a future reservation for a fixed window"
                reservation = Reservation(start=None, duration_hours=hours, total=priced.amount * Decimal(hours),
                                          note=note)
                offers.append(Offer(instance=instance, region=ctx.region(region), price=price, source=ctx.source,
                                    obtain=Obtainability(reservation=reservation)))
    return offers
