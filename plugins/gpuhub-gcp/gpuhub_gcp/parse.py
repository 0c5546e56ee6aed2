"""Pure parsing and pricing for the Cloud Billing Catalog (Compute Engine service ``6F81-5844-456A``).

GCP does not sell a GPU VM at one price. A machine type costs, per hour, in one region and purchase model::

    vCPUs × "<FAMILY> Instance Core" (per h) + RAM GiB × "<FAMILY> Instance Ram" (per GiBy.h)
    + GPUs × "Nvidia <MODEL> GPU" (per h) [+ bundled local SSD GiB × "SSD backed Local Storage" (per GiBy.mo / 730)]

This module turns SKU objects (as the API sends them) into a :class:`PriceIndex` keyed by (component, region,
purchase) and prices :class:`~gpuhub_gcp.machines.MachineType` rows against it. Nothing here does I/O; problems are
collected in :class:`Notes` for the provider to put in its status.

Rules (each tested in ``tests/test_parse.py``):

* A unit price is ``units`` (an int64 string) + ``nanos`` / 1e9, in the ``currencyCode`` of the data. Of several
  ``pricingInfo`` entries the latest ``effectiveTime`` wins; of several tiers the last one (highest
  ``startUsageAmount``) applies: it is the marginal price of a running VM (earlier tiers are free allowances).
* Regions are the SKU's ``serviceRegions``; the place named in the description is ignored. A SKU listed for several
  regions prices each of them (known fault C11).
* Purchase model: ``category.usageType`` first (OnDemand → on_demand, Preemptible → spot, Commit1Yr → reserved_1y,
  Commit3Yr → reserved_3y); without a usageType, the description decides (case-insensitive "spot"/"preemptible"
  anywhere → spot, "Commitment … N Year" → reserved). When usageType says OnDemand but the text says spot or
  preemptible (Google shipped such B200 SKUs, skypilot PR #8125), the SKU is spot and the disagreement is reported;
  other disagreements are reported and usageType is kept (known fault C14). Other usage types are ignored.
* GPU SKU descriptions map to accelerator types through an explicit table (:data:`GPU_SKU_MODELS`); an unmatched
  model ("Nvidia A100 GPU": 40 or 80 GB?) is reported, never guessed.
* Two SKUs that give one component in one region and purchase model different prices are ambiguous: the machine
  types needing it are not priced there, and the SKUs are reported.
* A "(1 gpu slice)" GPU SKU ("A4 Nvidia B200 (1 gpu slice)") prices one GPU's share of the whole VM: Google
  publishes no core or RAM SKUs for such families (A4), so a machine type costs GPUs × the slice price where a
  slice SKU exists, and is not dropped for want of core/RAM SKUs (known fault C29).
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from gpuhub_gcp.machines import MachineType

__all__ = [
    "GPU_SKU_MODELS",
    "HOURS_PER_MONTH",
    "Component",
    "Notes",
    "PriceIndex",
    "PricedType",
    "build_index",
    "classify_purchase",
    "component_of",
    "price_machine_type",
    "sku_origin",
    "unit_price",
]

HOURS_PER_MONTH = Decimal(730)
"""Hours in a billing month, as Google converts monthly (GiBy.mo) prices to hourly ones."""

NANOS = Decimal(1_000_000_000)

# Model words between "Nvidia" and "GPU" in a GPU SKU description -> Compute Engine accelerator type.
GPU_SKU_MODELS: dict[str, str] = {
    "tesla a100": "nvidia-tesla-a100",       # A100 40 GB (A2 standard: a2-highgpu, a2-megagpu)
    "a100 40gb": "nvidia-tesla-a100",
    "a100 80gb": "nvidia-a100-80gb",         # A100 80 GB (A2 ultra)
    "h100 80gb": "nvidia-h100-80gb",         # A3 high and A3 edge
    "h100 80gb mega": "nvidia-h100-mega-80gb",  # A3 mega
    # The same A3 mega GPU under another name: in the 2024-09-16 catalog "H100 80GB Plus" is listed only for the
    # Americas multi-region and "H100 80GB Mega" only elsewhere, at the same prices (on-demand 10.344276 vs
    # 10.34428 in us-east4, spot 4.1377 both), and the host SKUs of both are "A3Plus".
    "h100 80gb plus": "nvidia-h100-mega-80gb",
    "h200 141gb": "nvidia-h200-141gb",       # A3 ultra
    "b200": "nvidia-b200",                   # A4
    "l4": "nvidia-l4",                       # G2
    "rtx pro 6000": "nvidia-rtx-pro-6000",   # G4
    "tesla t4": "nvidia-tesla-t4",
    "tesla v100": "nvidia-tesla-v100",
    "tesla p100": "nvidia-tesla-p100",
    "tesla p4": "nvidia-tesla-p4",
    "tesla k80": "nvidia-tesla-k80",         # retired; no machine type uses it
}

_USAGE_TYPES = {"ondemand": "on_demand", "preemptible": "spot", "commit1yr": "reserved_1y",
                "commit3yr": "reserved_3y"}
_SPOT_RX = re.compile(r"\b(spot|preemptible)\b", re.IGNORECASE)
_COMMIT_RX = re.compile(r"\bcommit(?:ment|ted)?\b.*?\b(1|3|one|three)[ -]years?\b", re.IGNORECASE)
_GPU_RX = re.compile(r"\bnvidia\s+(?P<model>.+?)\s+gpu\b", re.IGNORECASE)
_PREFIX_RX = re.compile(r"^\s*(?:commitment(?:\s+v\d+)?\s*:\s*)?(?:spot\s+)?(?:preemptible\s+)?", re.IGNORECASE)
_CORE_RAM_RX = re.compile(
    r"^(?P<family>[A-Za-z][A-Za-z0-9]*)\s+(?:predefined\s+)?(?:instance\s+)?(?P<kind>core|cpu|ram)\b",
    re.IGNORECASE)
_SSD_RX = re.compile(r"^ssd backed local storage\b", re.IGNORECASE)
_SLICE_RX = re.compile(r"\bnvidia\s+(?P<model>.+?)\s*\(\s*1\s+gpu\s+slice\s*\)", re.IGNORECASE)
_CAPACITY_RX = re.compile(r"\bDWS\b|\bcalendar mode\b|\bflex[- ]start\b", re.IGNORECASE)
_IGNORED_GPU_RX = re.compile(r"virtual workstation|\bdws\b|calendar mode|flex", re.IGNORECASE)


@dataclass(frozen=True)
class Component:
    """What one SKU prices: ``kind`` is core, ram, gpu, slice or ssd; ``name`` the family ("A3") or accelerator.

    ``slice`` is a GPU's share of a whole VM (host included, known fault C29).
    """

    kind: str
    name: str

    def label(self) -> str:
        """Human name for messages, e.g. ``A3 core`` or ``GPU nvidia-h100-80gb``."""
        if self.kind == "slice":
            return f"GPU slice {self.name}"
        return f"GPU {self.name}" if self.kind == "gpu" else (
            "local SSD" if self.kind == "ssd" else f"{self.name} {self.kind}")


@dataclass
class Notes:
    """What building the index and pricing found worth telling the user (goes to the provider status)."""

    skipped: Counter[str] = field(default_factory=Counter)
    unmatched_gpus: Counter[str] = field(default_factory=Counter)
    usage_mismatches: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def warn(self, message: str) -> None:
        """Add a warning once."""
        if message not in self.warnings:
            self.warnings.append(message)


def unit_price(sku: Mapping[str, Any]) -> tuple[Decimal, str, str]:
    """The SKU's current unit price: ``(amount, currency, usage unit)``.

    The latest ``pricingInfo`` (by ``effectiveTime``) and its last tier; amount = int(units) + nanos / 1e9.

    Raises:
        KeyError, ValueError, TypeError: the pricing block is missing or malformed.
    """
    infos = sku["pricingInfo"]
    if not infos:
        raise ValueError("no pricingInfo")
    info = max(infos, key=lambda i: str(i.get("effectiveTime", "")))
    expr = info["pricingExpression"]
    tiers = expr["tieredRates"]
    if not tiers:
        raise ValueError("no tieredRates")
    tier = max(tiers, key=lambda t: Decimal(str(t.get("startUsageAmount", 0))))
    price = tier["unitPrice"]
    units = price.get("units", "0")
    if isinstance(units, bool) or not re.fullmatch(r"-?\d+", str(units)):
        raise ValueError(f"units {units!r} is not an int64 string")
    nanos = price.get("nanos", 0)
    if isinstance(nanos, bool) or not isinstance(nanos, int) or abs(nanos) >= 1_000_000_000:
        raise ValueError(f"nanos {nanos!r} is not an int below 1e9")
    currency = price["currencyCode"]
    if not isinstance(currency, str) or not currency:
        raise ValueError("no currencyCode")
    return Decimal(int(str(units))) + Decimal(nanos) / NANOS, currency, str(expr["usageUnit"])


def sku_date(sku: Mapping[str, Any]) -> dt.date | None:
    """The date of the SKU's current price: the ``effectiveTime`` of its latest ``pricingInfo`` (None when the SKU
    has none, as a SKU rebuilt from an undated catalog)."""
    infos = sku.get("pricingInfo") or []
    if not isinstance(infos, list) or not infos:
        return None
    info = max(infos, key=lambda i: str(i.get("effectiveTime", "")) if isinstance(i, Mapping) else "")
    when = info.get("effectiveTime") if isinstance(info, Mapping) else None
    try:
        return dt.date.fromisoformat(str(when)[:10]) if when else None
    except ValueError:
        return None


def classify_purchase(usage_type: str | None, description: str) -> tuple[str | None, str | None]:
    """``(purchase model or None to ignore, disagreement note or None)`` for one SKU (rules in the module doc)."""
    text_spot = bool(_SPOT_RX.search(description))
    commit = _COMMIT_RX.search(description)
    text_purchase = "spot" if text_spot else (
        ("reserved_1y" if commit.group(1).lower() in ("1", "one") else "reserved_3y") if commit else "on_demand")
    if not usage_type:
        return text_purchase, None
    purchase = _USAGE_TYPES.get(usage_type.replace("_", "").lower())
    if purchase is None:
        return None, None  # e.g. CmtCudPremium: not a price a VM is sold at
    if purchase == text_purchase:
        return purchase, None
    if purchase == "on_demand" and text_spot:
        return "spot", f"usageType {usage_type} but the description says spot/preemptible: taken as spot"
    return purchase, f"usageType {usage_type} but the description reads as {text_purchase}: kept {purchase}"


def component_of(sku: Mapping[str, Any], notes: Notes | None = None) -> Component | None:
    """The VM component a SKU prices, or None when it prices something else (egress, licences, custom shapes).

    GPU SKUs whose model is not in :data:`GPU_SKU_MODELS` are counted in ``notes.unmatched_gpus``.
    """
    description = str(sku.get("description", ""))
    if _CAPACITY_RX.search(description):
        return None  # DWS flex-start / calendar-mode capacity: priced apart (gpuhub_gcp.obtain), never on-demand
    category = sku.get("category") or {}
    group = str(category.get("resourceGroup", ""))
    gpu = _GPU_RX.search(description)
    slice_of = _SLICE_RX.search(description)
    if gpu is not None or slice_of is not None or group == "GPU":
        if _IGNORED_GPU_RX.search(description):
            return None  # virtual-workstation licences and capacity products: not the GPU's own price
        if slice_of is not None:
            model = " ".join(slice_of.group("model").lower().split())
            accelerator = GPU_SKU_MODELS.get(model)
            if accelerator is not None:
                return Component("slice", accelerator)
        model = " ".join(gpu.group("model").lower().split()) if gpu else ""
        accelerator = GPU_SKU_MODELS.get(model)
        if accelerator is None:
            if notes is not None:
                notes.unmatched_gpus[model or description] += 1
            return None
        return Component("gpu", accelerator)
    if group == "LocalSSD" or _SSD_RX.search(_PREFIX_RX.sub("", description)):
        return Component("ssd", "local") if "local" in description.lower() else None
    match = _CORE_RAM_RX.match(_PREFIX_RX.sub("", description))
    if match is None:
        return None
    kind = "ram" if match.group("kind").lower() == "ram" else "core"
    return Component(kind, match.group("family"))


_UNITS = {"core": {"h"}, "gpu": {"h"}, "slice": {"h"}, "ram": {"GiBy.h"}, "ssd": {"GiBy.mo", "GiBy.h"}}


@dataclass
class PriceIndex:
    """Unit prices per hour by (component, region, purchase), with the SKUs behind each.

    ``prices[(component, region, purchase)]`` maps ``(amount per unit-hour, currency)`` to the SKU ids giving it;
    more than one distinct price there is an ambiguity.
    """

    prices: dict[tuple[Component, str, str], dict[tuple[Decimal, str], list[str]]] = field(
        default_factory=lambda: defaultdict(dict))
    regions: dict[tuple[Component, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    skus: int = 0
    dates: dict[str, dt.date | None] = field(default_factory=dict)
    """SKU id -> the date of its price (:func:`sku_date`)."""

    def add(self, component: Component, region: str, purchase: str, amount: Decimal, currency: str,
            sku_id: str, date: dt.date | None = None) -> None:
        """Record one SKU's hourly unit price for one region (``date``: the date of the SKU's price)."""
        self.prices[(component, region, purchase)].setdefault((amount, currency), []).append(sku_id)
        self.regions[(component, purchase)].add(region)
        self.dates.setdefault(sku_id, date)

    def _newest(self, ids: list[str]) -> dt.date | None:
        dated = [d for d in (self.dates.get(i) for i in ids) if d is not None]
        return max(dated) if dated else None

    def lookup(self, component: Component, region: str, purchase: str) -> tuple[Decimal, str] | None:
        """The unit price per hour (and currency), or None when no SKU covers it. Where SKUs give different prices,
        the one of the newest dated SKU wins (:meth:`resolve` says what it replaced).

        Raises:
            LookupError: several SKUs give different prices and no one of them is the newest dated (the message
                names them).
        """
        resolved = self.resolve(component, region, purchase)
        return None if resolved is None else resolved[0]

    def candidates(self, component: Component, region: str,
                   purchase: str) -> list[tuple[dt.date | None, tuple[Decimal, str], list[str]]]:
        """Every distinct price for the key as ``(date, (amount per hour, currency), SKU ids)``, newest dated first
        (the first one wins); empty when no SKU covers it.

        Raises:
            LookupError: several SKUs give different prices and no one of them is the newest dated.
        """
        found = self.prices.get((component, region, purchase))
        if not found:
            return []
        by_date = sorted(((self._newest(ids), price, ids) for price, ids in found.items()),
                         key=lambda t: (t[0] is not None, t[0] or dt.date.min), reverse=True)
        if len(by_date) > 1 and (by_date[0][0] is None or by_date[0][0] == by_date[1][0]):
            listed = "; ".join(f"{', '.join(ids)} = {amount} {cur}" for (amount, cur), ids in found.items())
            raise LookupError(f"{component.label()} {purchase} in {region}: {listed}")
        return by_date

    def resolve(self, component: Component, region: str,
                purchase: str) -> tuple[tuple[Decimal, str], dt.date | None, str | None] | None:
        """``((amount per hour, currency), date of that price, what it replaced or None)``, or None when no SKU
        covers it. Raises LookupError as :meth:`lookup`."""
        by_date = self.candidates(component, region, purchase)
        if not by_date:
            return None
        replaced = "; ".join(f"{component.label()} {amount} {cur} of {when.isoformat() if when else 'unknown date'}"
                             f" (SKU {', '.join(ids)})" for when, (amount, cur), ids in by_date[1:])
        return by_date[0][1], by_date[0][0], replaced or None

    def priced_regions(self, accelerator: str, purchase: str) -> set[str]:
        """Regions where a GPU (per-GPU or slice SKU) of ``accelerator`` has a ``purchase`` price."""
        return (self.regions.get((Component("gpu", accelerator), purchase), set())
                | self.regions.get((Component("slice", accelerator), purchase), set()))

    def has(self, component: Component) -> bool:
        """True when any SKU prices this component anywhere, under any purchase model."""
        return any(c == component for c, _ in self.regions)


def build_index(skus: Iterable[Any], notes: Notes) -> PriceIndex:
    """Index the SKUs that price VM components; malformed SKUs are counted in ``notes.skipped``, not raised."""
    index = PriceIndex()
    for sku in skus:
        try:
            if not isinstance(sku, Mapping):
                raise TypeError("SKU is not an object")
            component = component_of(sku, notes)
            if component is None:
                continue
            description = str(sku.get("description", ""))
            purchase, mismatch = classify_purchase((sku.get("category") or {}).get("usageType"), description)
            if purchase is None:
                continue
            amount, currency, unit = unit_price(sku)
            if unit not in _UNITS[component.kind]:
                raise ValueError(f"{component.kind} SKU priced per {unit!r}")
            if unit == "GiBy.mo":
                amount = amount / HOURS_PER_MONTH
            if amount <= 0:
                notes.skipped["SKU with a zero price (placeholder)"] += 1
                continue
            regions = sku["serviceRegions"]
            if not isinstance(regions, list) or not regions:
                raise ValueError("no serviceRegions")
            sku_id = str(sku.get("skuId", "?"))
            if mismatch:
                notes.usage_mismatches.append(f"SKU {sku_id} ({description!r}): {mismatch}")
            index.skus += 1
            when = sku_date(sku)
            for region in regions:
                index.add(component, str(region), purchase, amount, currency, sku_id, when)
        except (KeyError, TypeError, ValueError, ArithmeticError, AttributeError, IndexError) as exc:
            reason = f"missing field {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
            notes.skipped[f"SKU: {reason}"[:160]] += 1
    return index


@dataclass(frozen=True)
class PricedType:
    """A machine type priced in one region for one purchase model.

    ``amount`` is per instance-hour in ``currency``; ``ssd_included`` says whether the bundled local SSD is in it.
    """

    machine: MachineType
    region: str
    purchase: str
    amount: Decimal
    currency: str
    ssd_included: bool
    data_date: dt.date | None = None
    """The date of the price: the oldest date of its components' SKUs; None when a component's SKU is undated."""
    replaced: str | None = None
    """What a newer SKU replaced, when several cover a component: the price the older SKUs gave the whole type,
    their date and source, then the component prices, e.g. ``48.306672 USD of 2024-09-16 (Cloud Billing SKUs;
    A3 core 0.01402 USD of 2024-09-16 (SKU EEE5-1DA5-D9CF); ...)``."""
    origin: str | None = None
    """Which data set the price came from: ``Cloud Billing SKUs``, the SkyPilot catalog (rebuilt SKUs) or both."""


def sku_origin(ids: Iterable[str]) -> str:
    """The data set SKU ids come from: ids ``gpuhub-…`` are rebuilt from the SkyPilot GCP catalog v8 (@8427bbf),
    the others are Cloud Billing SKUs."""
    rebuilt = {i.startswith("gpuhub-") for i in ids}
    names = (["Cloud Billing SKUs"] if False in rebuilt else []) + (
        ["SkyPilot GCP catalog v8 @8427bbf"] if True in rebuilt else [])
    return " + ".join(names)


@dataclass(frozen=True)
class Unpriced:
    """Why a machine type has no price in one region/purchase: components missing or ambiguous."""

    machine: MachineType
    region: str
    purchase: str
    missing: tuple[Component, ...] = ()
    ambiguous: tuple[str, ...] = ()


def price_machine_type(machine: MachineType, region: str, purchase: str,
                       index: PriceIndex) -> PricedType | Unpriced:
    """Sum the machine type's components in one region and purchase model (see the module doc for the formula).

    Every component must come from this region and purchase model, in one currency; the bundled local SSD is
    added when the price list has a Local SSD SKU there, and left out (``ssd_included=False``) otherwise. Where a
    "(1 gpu slice)" SKU prices the accelerator, the type costs GPUs × slice price (the VM is in the slice, C29).
    """
    try:
        slice_of = index.candidates(Component("slice", machine.accelerator), region, purchase)
    except LookupError as exc:
        return Unpriced(machine, region, purchase, ambiguous=(str(exc),))
    if slice_of:
        parts = [(Component("slice", machine.accelerator), Decimal(machine.gpu_count))]
    else:
        parts = [(Component("core", machine.family), Decimal(machine.vcpus)),
                 (Component("ram", machine.family), Decimal(str(machine.memory_gib))),
                 (Component("gpu", machine.accelerator), Decimal(machine.gpu_count))]
        if machine.local_ssd_gib:
            parts.append((Component("ssd", "local"), Decimal(machine.local_ssd_gib)))
    total, old_total, currencies, missing, ambiguous = Decimal(0), Decimal(0), set(), [], []
    dates: list[dt.date | None] = []
    old_dates: list[dt.date | None] = []
    ids: list[str] = []
    old_ids: list[str] = []
    replaced: list[str] = []
    ssd_included = bool(slice_of)  # the slice prices the whole VM, its SSD included (C29)
    for component, quantity in parts:
        try:
            found = index.candidates(component, region, purchase)
        except LookupError as exc:
            if component.kind != "ssd":  # an unclear SSD price leaves the SSD out; it never hides the VM
                ambiguous.append(str(exc))
            continue
        if not found:
            if component.kind != "ssd":
                missing.append(component)
            continue
        when, (amount, currency), winners = found[0]
        # the price the type had before the newest SKU: the next older SKU's price where one was replaced
        old_when, (old_amount, _), losers = found[1] if len(found) > 1 else found[0]
        dates.append(when)
        old_dates.append(old_when)
        ids += winners
        old_ids += losers
        replaced += [f"{component.label()} {a} {c} of {d.isoformat() if d else 'unknown date'} (SKU {', '.join(i)})"
                     for d, (a, c), i in found[1:]]
        total += quantity * amount
        old_total += quantity * old_amount
        currencies.add(currency)
        ssd_included = ssd_included or component.kind == "ssd"
    if len(currencies) > 1:
        ambiguous.append(f"components priced in several currencies: {', '.join(sorted(currencies))}")
    if missing or ambiguous:
        return Unpriced(machine, region, purchase, tuple(missing), tuple(ambiguous))
    currency = currencies.pop()
    oldest = None if None in dates or not dates else min(d for d in dates if d is not None)
    text = None
    if replaced:
        old_oldest = None if None in old_dates else min(d for d in old_dates if d is not None)
        text = (f"{old_total.normalize():f} {currency} of {old_oldest.isoformat() if old_oldest else 'unknown date'} "
                f"({sku_origin(old_ids)}; {'; '.join(replaced)})")
    return PricedType(machine, region, purchase, total, currency, ssd_included, oldest, text, sku_origin(ids))
