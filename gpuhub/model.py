"""The normalized model every provider's data is turned into (pydantic v2, immutable).

Money is exact (``Decimal``) with an ISO 4217 currency on every price; prices are per instance-hour after
normalization. Units are in field names (``_gib``, ``_per_hour``, ``_s``) or stated in each field's description.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator, model_validator

from gpuhub.derived import (
    InstanceDerived,
    OfferDerived,
    PriceDerived,
    SourceDerived,
    gpu_hour_price,
    total_vram_gib,
    usable_vram_gib,
    vram_price,
)
from gpuhub.obtain.model import Obtainability
from gpuhub.purchase import OWNED as OWNED
from gpuhub.purchase import PurchaseModel as PurchaseModel
from gpuhub.purchase import check_currency as _check_currency
from gpuhub.purchase import check_purchase as _check_purchase
from gpuhub.purchase import known_purchase_models as known_purchase_models
from gpuhub.purchase import register_purchase_model as register_purchase_model

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


class Instance(InstanceDerived, _Frozen):
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

    # seller_name, via, channel, machine: gpuhub.derived.InstanceDerived
    @computed_field  # type: ignore[prop-decorator]
    @property
    def gpu_memory_gib(self) -> float | None:
        """Usable VRAM per GPU in GiB: the card's memory, or the slice's for a fractional GPU (half an A10: 12)."""
        return usable_vram_gib(self)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def gpu_memory_total_gib(self) -> float | None:
        """Total VRAM of the instance in GiB (per-GPU memory × GPU count)."""
        return total_vram_gib(self)


class Price(PriceDerived, _Frozen):
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


class Source(SourceDerived, _Frozen):
    """Where an offer's data came from."""

    mode: Literal["live", "replay", "static"] = Field(
        description="live: fetched now; replay: from a recording; static: a provider's shipped price table")
    recording: str | None = Field(default=None, description="recording directory name or label, when replayed")
    recorded_at: dt.date | None = Field(default=None, description="date the data was captured or verified")
    kind: str | None = Field(default=None, description="live-capture or reconstructed (from published prices)")
    data_date: dt.date | None = Field(default=None, description="date of the prices themselves (a reconstructed "
                                      "recording is built later than the facts it holds); None when unknown")
    data_date_known: bool = Field(default=True, description="False when the data's own date is not known")

    # source_kind, date_of_data, label: gpuhub.derived.SourceDerived


class Offer(OfferDerived, _Frozen):
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

    # provider, instance_type, seller, via, gpu_name, gpu_count, data_date, price_per_hour, capacity_label and
    # to_record: gpuhub.derived.OfferDerived
    @computed_field  # type: ignore[prop-decorator]
    @property
    def price_per_gpu_hour(self) -> Decimal | None:
        """Price per GPU-hour (instance price / GPU count, fractions included); None without GPUs."""
        return gpu_hour_price(self)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def price_per_vram_gib_hour(self) -> Decimal | None:
        """Price per GiB of GPU memory per hour; None when the VRAM is unknown."""
        return vram_price(self)
