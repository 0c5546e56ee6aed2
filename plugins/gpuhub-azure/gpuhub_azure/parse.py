"""Pure parsing of Azure Retail Prices items and Resource SKUs pages (no HTTP, testable on raw samples).

Sources of the rules: ``shared/reference/provider-apis.md`` section 1 (Retail Prices API, item fields and quirks)
and ``shared/cases/known-faults.md`` (C03, C10, C12, C19, C23, C25).

The rules, in the order :func:`classify_item` applies them:

* ``armSkuName`` is the only key for a VM size; ``skuName``/``meterName`` are never parsed for the size.
* Only ``serviceName`` "Virtual Machines" (when present) and ``unitOfMeasure`` "1 Hour" rows are prices of a VM.
* ``productName`` ending in `` Windows`` or `` Win`` (or containing "Windows") is Windows: skipped (Linux only).
* ``Cloud Services`` products, ``Dedicated Host`` products, ``DevTestConsumption`` rows, expired meters
  (``- Expired`` or an ``effectiveEndDate`` in the past) and ``_Promo`` sizes are not offers.
* ``Spot``/``Low Priority`` suffixes on ``meterName``/``skuName`` make the purchase models ``spot`` and
  ``low_priority``; ``Reservation`` rows are the TOTAL for their term and are divided by 8760 or 26280 hours;
  ``savingsPlan[]`` entries (api-version 2023-01-01-preview) are already per hour.
* A zero (or negative) price is not an offer. The currency comes from the item (``currencyCode``), else from the
  page's ``BillingCurrency``.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = [
    "HOURS_PER_TERM",
    "PriceRow",
    "SizeSpec",
    "SkuCapabilities",
    "classify_item",
    "family_gpu",
    "is_windows",
    "page_items",
    "purchase_of",
    "resource_sku_capabilities",
    "select_prices",
    "size_table",
]

HOURS_PER_TERM: dict[str, int] = {"1 Year": 8760, "3 Years": 26280}
"""Hours in a reservation or savings-plan term, by the API's ``reservationTerm``/``term`` text."""

_TERM_SUFFIX = {"1 Year": "1y", "3 Years": "3y"}
_WINDOWS_RX = re.compile(r"(?:\bWindows\b|\sWin$)")
_EXPIRED_RX = re.compile(r"\bExpired\b", re.IGNORECASE)


@dataclass(frozen=True)
class PriceRow:
    """One usable price: an instance type in a region for one purchase model, per instance-hour.

    ``amount`` is in ``currency`` per hour (reservation totals already divided by the term's hours);
    ``term_hours`` is set for reserved and savings-plan prices; ``primary`` is ``isPrimaryMeterRegion``.
    """

    arm_sku_name: str
    region: str
    purchase: str
    amount: Decimal
    currency: str
    term_hours: int | None
    primary: bool
    meter: str
    data_date: dt.date | None = None
    """The date of the price: its page's answer (HTTP Date), None when unknown."""

    @property
    def key(self) -> tuple[str, str, str, int | None]:
        """What one offer is: (instance type, region, purchase model, term)."""
        return (self.arm_sku_name, self.region, self.purchase, self.term_hours)


def page_items(page: Any) -> tuple[list[Mapping[str, Any]], str | None, str | None]:
    """The ``Items``, ``NextPageLink`` and ``BillingCurrency`` of one Retail Prices page.

    Raises:
        ValueError: the page is not the API's envelope (an object with an ``Items`` list). A broken page means the
            walk cannot be complete, so the caller turns this into a provider failure, not a skipped record.
    """
    if not isinstance(page, Mapping) or not isinstance(page.get("Items"), list):
        shape = type(page).__name__ if not isinstance(page, Mapping) else f"keys {sorted(page)[:6]}"
        raise ValueError(f"not a Retail Prices page (expected an object with an 'Items' list; got {shape})")
    link = page.get("NextPageLink")
    currency = page.get("BillingCurrency")
    return (list(page["Items"]), link if isinstance(link, str) and link else None,
            currency if isinstance(currency, str) and currency else None)


def is_windows(product_name: str) -> bool:
    """True for a Windows price row: ``productName`` containing "Windows" or ending in " Win" ("… Srs Win")."""
    return bool(_WINDOWS_RX.search(product_name.strip()))


def _strip_suffix(text: str) -> tuple[str, str | None]:
    for suffix, purchase in ((" Low Priority", "low_priority"), (" Spot", "spot")):
        if text.endswith(suffix):
            return text[: -len(suffix)], purchase
    return text, None


def purchase_of(item: Mapping[str, Any]) -> str:
    """The consumption purchase model of a row: ``spot``, ``low_priority`` or ``on_demand``.

    Spot and Low Priority rows share ``armSkuName`` with on-demand and are marked only by a suffix on
    ``meterName`` or ``skuName``.

    Raises:
        ValueError: ``meterName`` and ``skuName`` disagree (one says Spot, the other Low Priority).
    """
    found = (_strip_suffix(str(item.get(field) or "").strip())[1] for field in ("meterName", "skuName"))
    marks = {mark for mark in found if mark is not None}
    if len(marks) > 1:
        raise ValueError(f"meterName/skuName disagree on the purchase model: {sorted(marks)}")
    return marks.pop() if marks else "on_demand"


def _decimal(value: Any) -> Decimal:
    if isinstance(value, bool) or value is None:
        raise ValueError(f"price {value!r} is not a number")
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"price {value!r} is not a number") from None
    if not amount.is_finite():
        raise ValueError(f"price {value!r} is not finite")
    return amount


def _expired(item: Mapping[str, Any], today: dt.date | None) -> bool:
    if any(_EXPIRED_RX.search(str(item.get(f) or "")) for f in ("meterName", "skuName", "productName")):
        return True
    end = item.get("effectiveEndDate")
    if today is None or not isinstance(end, str) or not end:
        return False
    try:
        return dt.date.fromisoformat(end[:10]) < today
    except ValueError:
        return False


def classify_item(item: Mapping[str, Any], *, billing_currency: str | None = None,
                  today: dt.date | None = None) -> list[PriceRow] | str:
    """Turn one Retail Prices item into its prices (one, or more with savings plans), or a skip reason.

    Args:
        item: one element of a page's ``Items``, as the API sends it.
        billing_currency: the page's ``BillingCurrency``, used when the item has no ``currencyCode``.
        today: rows whose ``effectiveEndDate`` is before this date are expired; None keeps them.

    Returns:
        A list of :class:`PriceRow` (on-demand rows also give their savings-plan prices), or a string saying why
        the row is not an offer (Windows, Dev/Test, zero price, ...), for the fetch report.

    Raises:
        KeyError, ValueError, TypeError: the row is malformed (missing ``armSkuName``, price not a number, ...);
            the caller's ``ctx.guard`` counts it.
    """
    if not isinstance(item, Mapping):
        raise TypeError(f"item is a {type(item).__name__}, not an object")
    service = item.get("serviceName")
    if service is not None and service != "Virtual Machines":
        return f"not a VM price (serviceName {service!r})"
    arm = str(item["armSkuName"]).strip()
    region = str(item["armRegionName"]).strip()
    if not arm:
        return "no armSkuName (not a VM size)"
    if not region:
        return "no armRegionName"
    product = str(item.get("productName") or "")
    kind = str(item.get("type") or "Consumption")
    if kind == "DevTestConsumption":
        return "Dev/Test price (DevTestConsumption)"
    if kind not in ("Consumption", "Reservation"):
        return f"unknown price type {kind!r}"
    if is_windows(product):
        return "Windows price (Linux only)"
    if product.startswith("Cloud Services"):
        return "Cloud Services price (not a VM)"
    if "Dedicated Host" in product or "Dedicated" in product.split():
        return "Dedicated Host price (not a VM size)"
    if arm.endswith("_Promo") or " Promo " in f" {product} ":
        return "promo SKU"
    if _expired(item, today):
        return "expired meter"
    unit = str(item.get("unitOfMeasure") or "1 Hour")
    if unit != "1 Hour":
        return f"not an hourly price (unitOfMeasure {unit!r})"
    currency = item.get("currencyCode") or billing_currency
    if not currency:
        raise ValueError("no currencyCode on the item and no BillingCurrency on the page")
    primary = item.get("isPrimaryMeterRegion") is not False
    meter = str(item.get("meterName") or item.get("skuName") or "")
    amount = _decimal(item["retailPrice"])
    if kind == "Reservation":
        term = str(item.get("reservationTerm") or "")
        if term not in HOURS_PER_TERM:
            return f"unknown reservation term {term!r}"
        if purchase_of(item) != "on_demand":
            return "reservation row marked Spot/Low Priority"
        if amount <= 0:
            return "zero price (placeholder)"
        hours = HOURS_PER_TERM[term]
        return [PriceRow(arm, region, f"reserved_{_TERM_SUFFIX[term]}", amount / hours, str(currency), hours,
                         primary, meter)]
    if amount <= 0:
        return "zero price (placeholder)"
    purchase = purchase_of(item)
    rows = [PriceRow(arm, region, purchase, amount, str(currency), None, primary, meter)]
    if purchase == "on_demand":
        rows.extend(_savings_plans(item, arm, region, str(currency), primary, meter))
    return rows


def _savings_plans(item: Mapping[str, Any], arm: str, region: str, currency: str, primary: bool,
                   meter: str) -> list[PriceRow]:
    plans = item.get("savingsPlan")
    if not isinstance(plans, list):
        return []
    out = []
    for plan in plans:
        if not isinstance(plan, Mapping):
            continue
        term = str(plan.get("term") or "")
        if term not in HOURS_PER_TERM:
            continue
        amount = _decimal(plan.get("retailPrice", plan.get("unitPrice")))
        if amount > 0:
            out.append(PriceRow(arm, region, f"savings_plan_{_TERM_SUFFIX[term]}", amount, currency,
                                HOURS_PER_TERM[term], primary, meter))
    return out


@dataclass
class Selection:
    """The outcome of :func:`select_prices`: one row per offer key, and the keys left out for conflicting prices."""

    rows: dict[tuple[str, str, str, int | None], PriceRow]
    conflicts: dict[tuple[str, str, str, int | None], list[Decimal]]
    duplicates: int
    placeholders: int = 0
    """Spot / Low Priority rows left out because they equal the on-demand price (placeholder rows)."""


def select_prices(rows: Iterable[PriceRow]) -> Selection:
    """One price per (instance type, region, purchase model, term), whatever the row order.

    Primary meters (``isPrimaryMeterRegion`` true) win over non-primary ones; rows of the preferred kind that
    agree on the price and currency collapse into one (duplicate meters such as "ND96amsr A100 v4" and
    "ND96amsA100v4"). When they disagree, the key is left out and reported in ``conflicts`` (known fault C10: never
    pick one of two prices arbitrarily).
    """
    groups: dict[tuple[str, str, str, int | None], list[PriceRow]] = {}
    for row in rows:
        groups.setdefault(row.key, []).append(row)
    chosen: dict[tuple[str, str, str, int | None], PriceRow] = {}
    conflicts: dict[tuple[str, str, str, int | None], list[Decimal]] = {}
    duplicates = 0
    for key, group in groups.items():
        best = [r for r in group if r.primary] or group
        prices = {(r.amount, r.currency) for r in best}
        duplicates += len(group) - 1
        if len(prices) > 1:
            conflicts[key] = sorted(r.amount for r in best)
            continue
        chosen[key] = min(best, key=lambda r: r.meter)
    # A Spot or Low Priority price equal to the on-demand price is a placeholder row (the Retail Prices data lists
    # ND96isr_H200_v5 "Spot" at the on-demand price): never a discount to offer. Left out and counted.
    placeholders = 0
    for key in [k for k in chosen if k[2] in ("spot", "low_priority")]:
        on_demand = chosen.get((key[0], key[1], "on_demand", None))
        row = chosen[key]
        if on_demand is not None and (on_demand.amount, on_demand.currency) == (row.amount, row.currency):
            del chosen[key]
            placeholders += 1
    return Selection(chosen, conflicts, duplicates, placeholders)


# --- sizes -------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SizeSpec:
    """What an Azure VM size has: GPU model (canonical gpuhub name), GPUs per VM (a fraction for partial-GPU
    sizes such as NVadsA10 v5), the card's VRAM in GiB, vCPUs and RAM in GiB, and where these facts come from."""

    arm_sku_name: str
    gpu: str
    gpu_count: float
    gpu_memory_gib: float
    vcpus: float | None
    memory_gib: float | None
    source: str

    @property
    def fractional(self) -> bool:
        """True when the VM gets part of one GPU."""
        return 0 < self.gpu_count < 1


@lru_cache(maxsize=1)
def size_table() -> dict[str, SizeSpec]:
    """The bundled spec table ``gpuhub_azure/data/sizes.csv``, keyed by ``armSkuName`` (case-insensitive)."""
    text = resources.files("gpuhub_azure").joinpath("data/sizes.csv").read_text(encoding="utf-8")
    table: dict[str, SizeSpec] = {}
    for row in csv.DictReader(text.splitlines()):
        spec = SizeSpec(
            arm_sku_name=row["arm_sku_name"], gpu=row["gpu"], gpu_count=float(Fraction(row["gpu_count"])),
            gpu_memory_gib=float(row["gpu_memory_gib"]), vcpus=float(row["vcpus"]) if row["vcpus"] else None,
            memory_gib=float(row["memory_gib"]) if row["memory_gib"] else None, source=row["source"])
        table[spec.arm_sku_name.lower()] = spec
    return table


# Families whose GPU model is known from the size name, for sizes missing from the table (then the GPU count must
# come from Resource SKUs). Partial-GPU families are marked: Resource SKUs report "GPUs": "1" for a slice of a card
# (known fault C03), so a size of such a family is never priced from that capability alone.
_FAMILY_RULES: tuple[tuple[re.Pattern[str], str, float, bool], ...] = (
    (re.compile(r"_H200_", re.IGNORECASE), "H200", 141, False),
    (re.compile(r"^Standard_NCC?\d+\w*_H100_", re.IGNORECASE), "H100-NVL", 94, False),
    (re.compile(r"_H100_", re.IGNORECASE), "H100", 80, False),
    (re.compile(r"_MI300X_", re.IGNORECASE), "MI300X", 192, False),
    (re.compile(r"_GB200_", re.IGNORECASE), "GB200", 186, False),
    (re.compile(r"_B200_", re.IGNORECASE), "B200", 180, False),
    (re.compile(r"_A100_", re.IGNORECASE), "A100-80GB", 80, False),
    (re.compile(r"_T4_", re.IGNORECASE), "T4", 16, False),
    (re.compile(r"_RTXPRO6000", re.IGNORECASE), "RTXPRO6000", 96, True),
    (re.compile(r"_A10_v[45]$", re.IGNORECASE), "A10", 24, True),
    (re.compile(r"_V620_", re.IGNORECASE), "RadeonProV620", 32, True),
    (re.compile(r"_V710_", re.IGNORECASE), "RadeonProV710", 24, True),
    (re.compile(r"^Standard_NV\d+as_v4$", re.IGNORECASE), "MI25", 16, True),
)


def family_gpu(arm_sku_name: str) -> tuple[str, float, bool] | None:
    """GPU model (canonical), card VRAM in GiB, and whether the family sells GPU slices, from a size name;
    None when the name says nothing reliable."""
    for rx, gpu, memory, partial in _FAMILY_RULES:
        if rx.search(arm_sku_name):
            return gpu, memory, partial
    return None


@dataclass(frozen=True)
class SkuCapabilities:
    """The Resource SKUs facts gpuhub uses: vCPUs, RAM in GiB (``MemoryGB`` is GiB despite its name), GPUs."""

    name: str
    vcpus: float | None
    memory_gib: float | None
    gpus: float | None
    restricted_in: frozenset[str] = frozenset()
    """Regions where the subscription may not use this size (``restrictions`` of type ``Location``)."""


def resource_sku_capabilities(page: Any) -> tuple[dict[str, SkuCapabilities], str | None]:
    """Parse one Resource SKUs page (ARM camelCase ``{"value": [...], "nextLink": ...}``).

    Keeps ``resourceType`` "virtualMachines" only; capability values are strings. Returns the SKUs by lower-cased
    name and the ``nextLink`` (None at the end).

    Raises:
        ValueError: the page has no ``value`` list.
    """
    if not isinstance(page, Mapping) or not isinstance(page.get("value"), list):
        raise ValueError("not a Resource SKUs page (expected an object with a 'value' list)")
    out: dict[str, SkuCapabilities] = {}
    for sku in page["value"]:
        if not isinstance(sku, Mapping) or sku.get("resourceType") != "virtualMachines" or not sku.get("name"):
            continue
        caps = {str(c.get("name")): c.get("value") for c in sku.get("capabilities") or [] if isinstance(c, Mapping)}
        restricted: set[str] = set()
        for restriction in sku.get("restrictions") or []:
            if isinstance(restriction, Mapping) and restriction.get("type") == "Location":
                info = restriction.get("restrictionInfo") or {}
                places = info.get("locations") or restriction.get("values") or []
                restricted.update(str(p).lower() for p in places)
        out[str(sku["name"]).lower()] = SkuCapabilities(
            name=str(sku["name"]), vcpus=_number(caps.get("vCPUs")), memory_gib=_number(caps.get("MemoryGB")),
            gpus=_number(caps.get("GPUs")), restricted_in=frozenset(restricted))
    link = page.get("nextLink")
    return out, link if isinstance(link, str) and link else None


def _number(value: Any) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None
