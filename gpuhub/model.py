"""The normalized model every provider's data is turned into (pydantic v2, immutable).

Money is exact (``Decimal``) with an ISO 4217 currency on every price; prices are per instance-hour after
normalization. Units are in field names (``_gib``, ``_per_hour``, ``_s``) or stated in each field's description.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from enum import Enum
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator, model_validator

from gpuhub.obtain.model import CAPACITY_PURCHASES, EMPTY_RECORD, Obtainability

__all__ = [
    "OWNED",
    "Currency",
    "Gpu",
    "Instance",
    "Offer",
    "Price",
    "PurchaseModel",
    "Region",
    "Source",
    "known_purchase_models",
    "register_purchase_model",
]

HOURS_PER_YEAR = 8760


class PurchaseModel(str, Enum):
    """The standard purchase models. Plugins may add more with :func:`register_purchase_model`."""

    on_demand = "on_demand"
    spot = "spot"
    low_priority = "low_priority"
    reserved_1y = "reserved_1y"
    reserved_3y = "reserved_3y"
    savings_plan_1y = "savings_plan_1y"
    savings_plan_3y = "savings_plan_3y"

    def __str__(self) -> str:
        return self.value


_EXTRA_PURCHASE_MODELS: set[str] = set()


def register_purchase_model(name: str) -> None:
    """Allow an extra purchase model name (lower-case snake case, e.g. ``"flex_start"``).

    Raises:
        ValueError: the name is not lower-case snake case.
    """
    if not name.replace("_", "").isalnum() or name.lower() != name or not name[:1].isalpha():
        raise ValueError(f"purchase model {name!r} must be lower-case snake case, like 'flex_start'")
    _EXTRA_PURCHASE_MODELS.add(name)
    _ACCEPTED[name] = name


def known_purchase_models() -> list[str]:
    """All purchase model names accepted now: the standard ones, then those plugins registered."""
    return [p.value for p in PurchaseModel] + sorted(_EXTRA_PURCHASE_MODELS)


# Accepted names mapped to one shared (interned) string each: validation is a dict lookup, and a million offers
# parsed from JSON do not each keep their own copy of "on_demand".
_ACCEPTED: dict[str, str] = {p.value: p.value for p in PurchaseModel}
for _name in CAPACITY_PURCHASES:  # reservable capacity (gpuhub.obtain): capacity_block, flex_start, calendar
    register_purchase_model(_name)
OWNED = "owned"
"""The purchase model of capacity the user already has (a reservation, a commitment, an idle instance: see
:mod:`gpuhub.fetch.owned`), priced at its marginal cost: the one purchase model whose price may be zero."""
register_purchase_model(OWNED)


def _check_purchase(value: object) -> str:
    text = value.value if isinstance(value, PurchaseModel) else str(value)
    canonical = _ACCEPTED.get(text)
    if canonical is None:
        raise ValueError(f"unknown purchase model {text!r}; allowed: {', '.join(known_purchase_models())}")
    return canonical


@lru_cache(maxsize=1)
def _iso_currencies() -> frozenset[str]:
    import pycountry  # imported lazily: it is only needed when a new currency code is first seen

    return frozenset(c.alpha_3 for c in pycountry.currencies)


_PUBLISHED_CURRENCIES = frozenset({"USD", "EUR", "GBP", "JPY", "CNY", "INR", "AUD", "CAD", "CHF", "KRW", "BRL",
                                   "SEK", "NOK", "DKK", "SGD", "HKD", "TWD", "NZD", "ZAR", "IDR", "MXN"})
"""ISO 4217 codes the clouds publish prices in, checked without importing pycountry (a CLI run served from the
store validates its price terms again; pycountry's table costs 25 ms to load)."""


@lru_cache(maxsize=64)
def _check_currency(code: str) -> str:
    upper = code.strip().upper()
    if upper in _PUBLISHED_CURRENCIES:
        return upper
    if len(upper) != 3 or upper not in _iso_currencies():
        raise ValueError(f"{code!r} is not an ISO 4217 currency code (like 'USD', 'EUR', 'CNY')")
    return upper


Currency = str
"""An ISO 4217 currency code such as ``"USD"``; validated against pycountry's list."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Gpu(_Frozen):
    """One GPU model as an offer carries it.

    ``name`` is the canonical name from the GPU table (``H100``, ``A100-80GB``, ``L4``) or, when the provider's
    spelling is unknown, the raw spelling with ``known=False`` so the offer stays visible.
    """

    name: str = Field(description="canonical GPU name, or the provider's raw name when unknown")
    vendor: str | None = Field(default=None, description="NVIDIA, AMD, Intel, AWS, ...")
    memory_gib: Decimal | None = Field(default=None, description="memory per GPU in GiB (marketed size)")
    form_factor: str | None = Field(default=None, description="SXM, PCIe, OAM, Superchip, Custom")
    architecture: str | None = None
    raw_name: str | None = Field(default=None, description="the provider's own spelling, kept as published")
    known: bool = Field(default=True, description="False when the name did not resolve through the GPU table")


class Region(_Frozen):
    """A provider region (and zone when the offer is zone-specific), with location facts where known."""

    provider: str
    code: str = Field(description="provider's own region code, e.g. 'us-east-1', 'westeurope'")
    zone: str | None = Field(default=None, description="availability zone when the price is per zone")
    city: str | None = None
    country: str | None = Field(default=None, description="ISO 3166 alpha-2")
    continent: str | None = None
    latitude: float | None = None
    longitude: float | None = None
    carbon_gco2e_per_kwh: float | None = Field(default=None, description="grid carbon intensity, gCO2e/kWh")


class Instance(_Frozen):
    """An instance type as a provider sells it."""

    provider: str
    instance_type: str
    gpu: Gpu | None = Field(default=None, description="None for instances without a GPU or accelerator")
    gpu_count: float = Field(default=0, ge=0, description="GPUs per instance; may be a fraction (1/6 of an A10)")
    fractional: bool = Field(default=False, description="True when the instance gets part of one GPU")
    vcpus: float | None = Field(default=None, ge=0)
    memory_gib: float | None = Field(default=None, ge=0, description="host RAM in GiB")
    storage_gib: float | None = Field(default=None, ge=0, description="bundled local (instance) storage in GiB, "
                                                                       "all disks together")
    storage_kind: Literal["NVMe", "SSD", "HDD"] | None = Field(
        default=None, description="the local disks' kind: NVMe (SSDs on the NVMe interface), SSD, HDD; None: not "
                                  "said")
    storage_disks: int | None = Field(default=None, ge=1, le=1024, description="how many local disks make up "
                                                                               "storage_gib")
    network_gbps: float | None = Field(default=None, ge=0, le=1_000_000, description="baseline network bandwidth "
                                       "of the instance, Gbps (all its network cards together)")
    network_peak_gbps: float | None = Field(default=None, ge=0, le=1_000_000, description="burst (peak) network "
                                            "bandwidth, Gbps, where the provider gives one above the baseline")
    fabric: Literal["EFA", "InfiniBand", "RoCE", "GPUDirect-TCPX", "GPUDirect-TCPXO"] | None = Field(
        default=None, description="the RDMA fabric between instances for multi-node jobs (AWS Elastic Fabric "
                                  "Adapter, InfiniBand, RDMA over Converged Ethernet, GCP GPUDirect); None: none "
                                  "or not said")
    fabric_gbps: float | None = Field(default=None, gt=0, le=1_000_000, description="the fabric's bandwidth per "
                                      "instance, Gbps (all its interfaces together)")
    fabric_interfaces: int | None = Field(default=None, ge=1, le=1024, description="fabric interfaces per "
                                          "instance (EFA interfaces, InfiniBand adapters)")
    network_source: str | None = Field(default=None, description="where the network, fabric and local storage "
                                                                 "facts come from (an API field, a documentation "
                                                                 "page)")
    interconnect: str | None = Field(default=None, description="NVLink, NVSwitch, InfiniBand, ...")
    cpu_arch: str = Field(default="x86_64", description="x86_64 or arm64")
    bare_metal: bool | None = Field(default=None, description="True: no hypervisor (the whole machine); None: "
                                                                "the provider does not say")
    tenancy: Literal["dedicated", "shared"] | None = Field(
        default=None, description="dedicated: the host runs only this customer's instances (bare metal is); "
                                  "shared: other customers' VMs may share it; None: not known")
    control_source: str | None = Field(default=None, description="where the bare_metal and tenancy facts come "
                                                                 "from (an API field, the provider's docs)")
    note: str | None = Field(default=None, description="anything a user must know, e.g. a non-GPU accelerator")
    slice_memory_gib: float | None = Field(
        default=None, gt=0, description="VRAM of a fractional GPU in GiB when the provider states it (a MIG "
                                        "profile's memory); else a slice gets the card's memory × its share")
    seller: str | None = Field(
        default=None, description="who runs the machine when it is not ``provider`` (the API it came through): "
                                  "an aggregator's upstream cloud, named by gpuhub.sellers.seller_name "
                                  "('lambda'); None: the provider sells it itself")
    seller_instance_type: str | None = Field(
        default=None, description="the seller's own name for this instance type when the aggregator gives it "
                                  "(Prime Intellect's UpstreamCloudId 'gpu_8x_a100_80gb_sxm4'); None: not given")

    @field_validator("seller")
    @classmethod
    def _seller(cls, value: str | None) -> str | None:
        from gpuhub.sellers import seller_name

        return None if value is None else seller_name(value)

    @property
    def seller_name(self) -> str:
        """Who runs the machine: :attr:`seller`, else the provider itself."""
        return self.seller or self.provider

    @property
    def via(self) -> str | None:
        """The aggregator the machine is offered through (the provider), or None when the seller sells directly."""
        return self.provider if self.seller and self.seller != self.provider else None

    @property
    def channel(self) -> str:
        """Seller and source in one label: ``"lambda"`` (direct) or ``"lambda via primeintellect"``."""
        via = self.via
        return f"{self.seller} via {via}" if via else self.provider

    @property
    def machine(self) -> str:
        """How the same machine is recognised through another channel: ``seller:instance type`` in the seller's
        own naming when known (``lambda:gpu_8x_a100_80gb_sxm4`` directly and through Prime Intellect)."""
        return f"{self.seller_name}:{self.seller_instance_type or self.instance_type}"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def gpu_memory_gib(self) -> float | None:
        """Usable VRAM per GPU in GiB: the card's memory, or the slice's for a fractional GPU (half an A10: 12)."""
        if self.gpu is None or self.gpu.memory_gib is None:
            return None
        card = float(self.gpu.memory_gib)
        if 0 < self.gpu_count < 1:
            return self.slice_memory_gib if self.slice_memory_gib is not None else card * self.gpu_count
        return card

    @computed_field  # type: ignore[prop-decorator]
    @property
    def gpu_memory_total_gib(self) -> float | None:
        """Total VRAM of the instance in GiB (per-GPU memory × GPU count)."""
        if self.gpu is None or self.gpu.memory_gib is None:
            return None
        if 0 < self.gpu_count < 1:
            return self.gpu_memory_gib
        return float(self.gpu.memory_gib) * self.gpu_count


class Price(_Frozen):
    """A price per instance-hour for one purchase model.

    Raises (on construction):
        pydantic.ValidationError: amount not positive (a zero price is a placeholder, never an offer, except the
            marginal cost of prepaid capacity the user owns, purchase model ``owned``), currency not ISO 4217,
            purchase model unknown.
    """

    amount: Decimal = Field(ge=0, description="price per instance-hour, exact as published (pydantic's Decimal "
                                              "rejects NaN and Infinity: finite_number); positive except for "
                                              "owned capacity")
    currency: Currency = Field(description="ISO 4217 code, from the provider's data")
    purchase: str = Field(description="purchase model: on_demand, spot, low_priority, reserved_1y, ...")
    upfront: Decimal | None = Field(default=None, ge=0, description="upfront part of a term price, if any")
    term_hours: int | None = Field(default=None, gt=0, description="length of a reserved/savings term in hours")
    payment_option: str | None = Field(default=None, description="e.g. 'No Upfront', 'All Upfront'")
    billing_increment_s: int | None = Field(default=None, gt=0, description="billing granularity in seconds")
    minimum_charge_s: int | None = Field(default=None, ge=0, description="minimum billed time in seconds")
    basis: str | None = Field(default=None, description="what the amount is when it is not this region's own "
                              "price, e.g. 'CoreWeave list price for North America'")
    listing_stat: Literal["median", "min", "mean", "max"] | None = Field(
        default=None, description="set when the amount summarizes many marketplace listings instead of being one "
                                  "rentable listing's price: which statistic it is (known fault C35); None: one "
                                  "listing's or the provider's own price")
    listing_count: int | None = Field(default=None, ge=1, description="how many listings a listing statistic "
                                      "stands for; None: one listing, or the summary does not say")
    data_date: dt.date | None = Field(default=None, description="date of this price: of the row, SKU or API answer "
                                      "it came from (None: not known per price; the offer's source date applies)")
    data_origin: str | None = Field(default=None, description="which data set the price came from, when a provider "
                                    "merges several (e.g. 'SkyPilot GCP catalog v8')")
    replaced: str | None = Field(default=None, description="what this price replaced: an older data set's price for "
                                 "the same instance type, region and purchase model (newest dated data wins)")

    def listing_label(self) -> str | None:
        """``"median of 12 listings"``, ``"median of listings"`` (count unknown), or None for one listing (a
        ``listing_count`` without ``listing_stat`` says nothing and is ignored)."""
        if self.listing_stat is None:
            return None
        count = f" of {self.listing_count} listing{'s' if self.listing_count != 1 else ''}" \
            if self.listing_count is not None else " of listings"
        return f"{self.listing_stat}{count}"

    @field_validator("currency", mode="before")
    @classmethod
    def _currency(cls, value: object) -> str:
        return _check_currency(str(value))

    @field_validator("purchase", mode="before")
    @classmethod
    def _purchase(cls, value: object) -> str:
        return _check_purchase(value)

    @model_validator(mode="after")
    def _placeholder(self) -> Price:
        if self.amount <= 0 and self.purchase != OWNED:
            raise ValueError(f"a {self.purchase} price must be greater than 0, got {self.amount} (a placeholder, "
                             "not a price; only owned capacity may cost 0)")
        return self


class Source(_Frozen):
    """Where an offer's data came from."""

    mode: Literal["live", "replay", "static"] = Field(
        description="live: fetched now; replay: from a recording; static: a provider's shipped price table")
    recording: str | None = Field(default=None, description="recording directory name or label, when replayed")
    recorded_at: dt.date | None = Field(default=None, description="date the data was captured or verified")
    kind: str | None = Field(default=None, description="live-capture or reconstructed (from published prices)")
    data_date: dt.date | None = Field(default=None, description="date of the prices themselves (a reconstructed "
                                      "recording is built later than the facts it holds); None when unknown")
    data_date_known: bool = Field(default=True, description="False when the data's own date is not known")

    @property
    def source_kind(self) -> str:
        """``live``, ``captured`` (a live capture replayed), ``reconstructed`` (rebuilt from published prices) or
        ``static`` (a provider's shipped price table)."""
        if self.mode == "live":
            return "live"
        if self.mode == "static":
            return "static"
        return {"live-capture": "captured", "reconstructed": "reconstructed"}.get(self.kind or "", "captured")

    @property
    def date_of_data(self) -> dt.date | None:
        """The date of the prices: ``data_date``, else (older recordings that do not say) ``recorded_at``."""
        if not self.data_date_known:
            return None
        return self.data_date or self.recorded_at

    def label(self, data_date: dt.date | None = None) -> str:
        """Short human label with the date of the data, e.g. ``replay:lambda@2026-09-20`` (``@undated`` when the
        data's own date is unknown); ``data_date``: an offer's own price date, which takes precedence."""
        if self.mode == "live":
            return "live"
        when = data_date or self.date_of_data
        stamp = f"@{when.isoformat()}" if when else ("@undated" if not self.data_date_known else "")
        return f"{self.mode}:{self.recording or '?'}{stamp}"


class Offer(_Frozen):
    """One rentable thing: an instance type in a region at a price, with availability and provenance."""

    instance: Instance
    region: Region
    price: Price
    available: bool | None = Field(default=None, description="True/False when the provider says, else None")
    available_count: int | None = Field(
        default=None, ge=0, description="how many of this offer can be started now (free nodes, GPUs or MIG "
                                        "slices), when the provider counts them; None when unknown")
    provisionable_count: int | None = Field(
        default=None, ge=0, description="how many more of this offer can be added on request, beyond "
                                        "``available_count`` (capacity that does not run now): an autoscaled node "
                                        "pool below its limit (Karpenter NodePool limits, cluster-autoscaler's "
                                        "max size), Slurm cloud or powered-down nodes; in instances of this offer "
                                        "(nodes, GPUs or slices as the offer is). None: nothing can be added or the "
                                        "provider does not say")
    provision_wait_s: int | None = Field(
        default=None, ge=0, description="expected seconds until provisionable capacity is ready to use (a node "
                                        "booted and joined), as the operator's settings or the provider state it; "
                                        "None when not known")
    source: Source
    obtain: Obtainability | None = Field(default=None, description="interruption risk, reservation window, "
                                         "quota and capacity, where a source says (see gpuhub.obtain)")

    # Flat read-only views, so callers and filters need not walk the nesting.
    @property
    def provider(self) -> str:
        return self.instance.provider

    @property
    def instance_type(self) -> str:
        return self.instance.instance_type

    @property
    def seller(self) -> str:
        """Who runs the machine (:attr:`Instance.seller_name`); :attr:`provider` is the API it came through."""
        return self.instance.seller_name

    @property
    def via(self) -> str | None:
        """The aggregator this offer came through, or None when the seller offers it directly."""
        return self.instance.via

    @property
    def gpu_name(self) -> str | None:
        return self.instance.gpu.name if self.instance.gpu else None

    @property
    def gpu_count(self) -> float:
        return self.instance.gpu_count

    @property
    def data_date(self) -> dt.date | None:
        """The date of this offer's price: the price's own (``price.data_date``), else the source's; None when
        unknown."""
        return self.price.data_date or self.source.date_of_data

    @property
    def price_per_hour(self) -> Decimal:
        """Instance price per hour in ``price.currency``."""
        return self.price.amount

    @computed_field  # type: ignore[prop-decorator]
    @property
    def price_per_gpu_hour(self) -> Decimal | None:
        """Price per GPU-hour (instance price / GPU count, fractions included); None without GPUs."""
        if self.instance.gpu_count <= 0:
            return None
        return self.price.amount / Decimal(str(self.instance.gpu_count))

    @computed_field  # type: ignore[prop-decorator]
    @property
    def price_per_vram_gib_hour(self) -> Decimal | None:
        """Price per GiB of GPU memory per hour; None when the VRAM is unknown."""
        total = self.instance.gpu_memory_total_gib
        if not total:
            return None
        return self.price.amount / Decimal(str(total))

    @property
    def capacity_label(self) -> str | None:
        """What can be had and when, for the ``avail`` column: ``"6 free"``, ``"+16 in ~5 min"``, ``"2 free, +8 in
        ~5 min"``; None when the offer counts neither (a price list's availability is a yes/no)."""
        parts = []
        if self.available_count is not None and (self.available_count or not self.provisionable_count):
            parts.append(f"{self.available_count} free")
        if self.provisionable_count:
            wait = self.provision_wait_s
            when = "" if wait is None else f" in ~{max(1, round(wait / 60))} min" if wait >= 60 else f" in ~{wait} s"
            parts.append(f"+{self.provisionable_count}{when}")
        return ", ".join(parts) or None

    def to_record(self) -> dict[str, Any]:
        """The flat, JSON-ready dict the CLI and exports use (keys documented in the README).

        Money is exported as JSON numbers: the exact published price converts to the shortest float that prints
        the same digits; derived per-GPU and per-GiB figures are rounded to 6 decimal places.
        """
        inst, gpu, price = self.instance, self.instance.gpu, self.price
        per_gpu = self.price_per_gpu_hour
        return {
            "provider": inst.provider,
            "seller": inst.seller_name,
            "via": inst.via,
            "instance_type": inst.instance_type,
            "seller_instance_type": inst.seller_instance_type,
            "machine": inst.machine,
            "region": self.region.code,
            "zone": self.region.zone,
            "country": self.region.country,
            "continent": self.region.continent,
            "gpu_name": gpu.name if gpu else None,
            "gpu_known": gpu.known if gpu else None,
            "gpu_raw_name": gpu.raw_name if gpu else None,
            "gpu_count": int(inst.gpu_count) if float(inst.gpu_count).is_integer() else inst.gpu_count,
            "fractional": inst.fractional,
            "gpu_memory_gib": inst.gpu_memory_gib,
            "gpu_memory_total_gib": inst.gpu_memory_total_gib,
            "vcpus": inst.vcpus,
            "memory_gib": inst.memory_gib,
            "cpu_arch": inst.cpu_arch,
            "network_gbps": inst.network_gbps,
            "network_peak_gbps": inst.network_peak_gbps,
            "fabric": inst.fabric,
            "fabric_gbps": inst.fabric_gbps,
            "fabric_interfaces": inst.fabric_interfaces,
            "local_disk_gib": inst.storage_gib,
            "local_disk_kind": inst.storage_kind,
            "local_disks": inst.storage_disks,
            "network_source": inst.network_source,
            "purchase": price.purchase,
            "price_per_hour": float(price.amount),
            "currency": price.currency,
            "price_per_gpu_hour": _money(per_gpu),
            "price_per_vram_gib_hour": _money(self.price_per_vram_gib_hour),
            "upfront": float(price.upfront) if price.upfront is not None else None,
            "term_hours": price.term_hours,
            "payment_option": price.payment_option,
            "available": self.available,
            "available_count": self.available_count,
            "provisionable_count": self.provisionable_count,
            "provision_wait_s": self.provision_wait_s,
            "bare_metal": inst.bare_metal,
            "tenancy": inst.tenancy,
            "control_source": inst.control_source,
            "source": self.source.label(self.price.data_date),
            "source_kind": self.source.source_kind,
            "data_date": d.isoformat() if (d := self.data_date) else None,
            "data_origin": price.data_origin,
            "price_replaced": price.replaced,
            "form_factor": gpu.form_factor if gpu else None,
            "price_basis": price.basis,
            "listing_stat": price.listing_stat,
            "listing_count": price.listing_count,
            "note": inst.note,
            **(self.obtain.record() if self.obtain is not None else EMPTY_RECORD),
        }


def _money(value: Decimal | None) -> float | None:
    """Derived money figures are rounded to 6 decimal places (a micro-unit) for export."""
    if value is None:
        return None
    return float(value.quantize(Decimal("0.000001")))
