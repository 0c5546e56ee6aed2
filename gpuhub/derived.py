"""What an offer's parts derive from their fields, written once over attributes: the channel label, usable VRAM,
price per GPU-hour, the capacity label, the source label and the flat record (``to_record``).

Two families of classes inherit these mixins: the pydantic models of :mod:`gpuhub.model` (what plugins build and
Python callers get) and the read-only views of stored rows (:mod:`gpuhub.store.rows`), which a search served from
the store prints without importing pydantic. Whatever either family shows is computed here, so the two cannot
drift apart.

The bottom layer: imports only the standard library and :mod:`gpuhub.display`.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from gpuhub.display import source_label

__all__ = [
    "EMPTY_OBTAIN_RECORD",
    "InstanceDerived",
    "ObtainDerived",
    "OfferDerived",
    "PriceDerived",
    "SourceDerived",
    "data_date_of",
    "gpu_hour_price",
    "money_figure",
    "total_vram_gib",
    "usable_vram_gib",
    "vram_price",
]


def usable_vram_gib(instance: InstanceDerived) -> float | None:
    """Usable VRAM per GPU in GiB: the card's memory, or the slice's for a fractional GPU (half an A10: 12)."""
    if instance.gpu is None or instance.gpu.memory_gib is None:
        return None
    card = float(instance.gpu.memory_gib)
    if 0 < instance.gpu_count < 1:
        return instance.slice_memory_gib if instance.slice_memory_gib is not None else card * instance.gpu_count
    return card


def total_vram_gib(instance: InstanceDerived) -> float | None:
    """Total VRAM of the instance in GiB (per-GPU memory × GPU count)."""
    if instance.gpu is None or instance.gpu.memory_gib is None:
        return None
    if 0 < instance.gpu_count < 1:
        return usable_vram_gib(instance)
    return float(instance.gpu.memory_gib) * instance.gpu_count


def gpu_hour_price(offer: OfferDerived) -> Decimal | None:
    """Price per GPU-hour (instance price / GPU count, fractions included); None without GPUs."""
    if offer.instance.gpu_count <= 0:
        return None
    amount: Decimal = offer.price.amount
    return amount / Decimal(str(offer.instance.gpu_count))


def vram_price(offer: OfferDerived) -> Decimal | None:
    """Price per GiB of GPU memory per hour; None when the VRAM is unknown."""
    total = total_vram_gib(offer.instance)
    if not total:
        return None
    amount: Decimal = offer.price.amount
    return amount / Decimal(str(total))


def data_date_of(data_date: dt.date | None, recorded_at: dt.date | None, known: bool) -> dt.date | None:
    """The date of a source's prices: ``data_date``, else (older recordings that do not say) ``recorded_at``; None
    when the data's own date is not ``known``."""
    return (data_date or recorded_at) if known else None


def money_figure(value: Decimal | None) -> float | None:
    """Derived money figures are rounded to 6 decimal places (a micro-unit) for export."""
    if value is None:
        return None
    return float(value.quantize(Decimal("0.000001")))


class InstanceDerived:
    """Who sells an instance and through whom, and its usable VRAM (:class:`gpuhub.model.Instance`)."""

    if TYPE_CHECKING:  # the fields the derivations read (declared by the models and the views)
        provider: str
        instance_type: str
        gpu: Any
        gpu_count: float
        slice_memory_gib: float | None
        seller: str | None
        seller_instance_type: str | None

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
    def gpu_memory_gib(self) -> float | None:
        """Usable VRAM per GPU in GiB (:func:`usable_vram_gib`)."""
        return usable_vram_gib(self)

    @property
    def gpu_memory_total_gib(self) -> float | None:
        """Total VRAM of the instance in GiB (:func:`total_vram_gib`)."""
        return total_vram_gib(self)

    @property
    def machine(self) -> str:
        """How the same machine is recognised through another channel: ``seller:instance type`` in the seller's
        own naming when known (``lambda:gpu_8x_a100_80gb_sxm4`` directly and through Prime Intellect)."""
        return f"{self.seller_name}:{self.seller_instance_type or self.instance_type}"


class PriceDerived:
    """The listing label of a price (:class:`gpuhub.model.Price`)."""

    if TYPE_CHECKING:
        listing_stat: str | None
        listing_count: int | None

    def listing_label(self) -> str | None:
        """``"median of 12 listings"``, ``"median of listings"`` (count unknown), or None for one listing (a
        ``listing_count`` without ``listing_stat`` says nothing and is ignored)."""
        if self.listing_stat is None:
            return None
        count = f" of {self.listing_count} listing{'s' if self.listing_count != 1 else ''}" \
            if self.listing_count is not None else " of listings"
        return f"{self.listing_stat}{count}"


class SourceDerived:
    """The kind, date and label of a data source (:class:`gpuhub.model.Source`)."""

    if TYPE_CHECKING:
        mode: str
        recording: str | None
        recorded_at: dt.date | None
        kind: str | None
        data_date: dt.date | None
        data_date_known: bool

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
        """The date of the prices (:func:`data_date_of`)."""
        return data_date_of(self.data_date, self.recorded_at, self.data_date_known)

    def label(self, data_date: dt.date | None = None) -> str:
        """Short human label with the date of the data, e.g. ``replay:lambda@2026-09-20`` (``@undated`` when the
        data's own date is unknown); ``data_date``: an offer's own price date, which takes precedence."""
        return source_label(self.mode, self.recording, data_date or self.date_of_data, self.data_date_known)


class ObtainDerived:
    """The flat record of an offer's obtainability facts (:class:`gpuhub.obtain.model.Obtainability`)."""

    if TYPE_CHECKING:
        risk: Any
        reservation: Any
        placement_score: int | None
        quota_instances: int | None
        capacity: bool | None

    def record(self) -> dict[str, Any]:
        """The flat keys ``Offer.to_record`` adds (documented in the README)."""
        risk, res = self.risk, self.reservation
        return {
            "interruption": risk.label if risk else None,
            "interruption_max_pct": risk.max_pct if risk else None,
            "risk_source": (f"{risk.source}@{risk.as_of.isoformat()}" if risk.as_of else risk.source)
            if risk else None,
            "placement_score": self.placement_score,
            "reservation_start": res.start.isoformat() if res and res.start else None,
            "reservation_hours": res.duration_hours if res else None,
            "reservation_total": float(res.total) if res else None,
            "quota_instances": self.quota_instances,
            "capacity": self.capacity,
        }


class _NothingSaid(ObtainDerived):
    risk = reservation = placement_score = quota_instances = capacity = None


EMPTY_OBTAIN_RECORD: dict[str, Any] = _NothingSaid().record()
"""The record of an offer no obtainability source said anything about (``Offer.obtain`` None)."""


class OfferDerived:
    """The flat views and the record of an offer (:class:`gpuhub.model.Offer`)."""

    if TYPE_CHECKING:
        instance: Any
        region: Any
        price: Any
        source: Any
        available: bool | None
        available_count: int | None
        provisionable_count: int | None
        provision_wait_s: int | None
        obtain: Any

    # Flat read-only views, so callers and filters need not walk the nesting.
    @property
    def provider(self) -> str:
        """The provider's name (the API the offer came through)."""
        name: str = self.instance.provider
        return name

    @property
    def instance_type(self) -> str:
        """The provider's instance type name."""
        name: str = self.instance.instance_type
        return name

    @property
    def seller(self) -> str:
        """Who runs the machine (:attr:`Instance.seller_name`); :attr:`provider` is the API it came through."""
        name: str = self.instance.seller_name
        return name

    @property
    def via(self) -> str | None:
        """The aggregator this offer came through, or None when the seller offers it directly."""
        via: str | None = self.instance.via
        return via

    @property
    def gpu_name(self) -> str | None:
        """The canonical GPU name (GPU table), or None for a CPU-only offer."""
        return self.instance.gpu.name if self.instance.gpu else None

    @property
    def gpu_count(self) -> float:
        """GPUs per instance (a fraction for a share of one GPU)."""
        count: float = self.instance.gpu_count
        return count

    @property
    def data_date(self) -> dt.date | None:
        """The date of this offer's price: the price's own (``price.data_date``), else the source's; None when
        unknown."""
        when: dt.date | None = self.price.data_date or self.source.date_of_data
        return when

    @property
    def price_per_hour(self) -> Decimal:
        """Instance price per hour in ``price.currency``."""
        amount: Decimal = self.price.amount
        return amount

    @property
    def price_per_gpu_hour(self) -> Decimal | None:
        """Price per GPU-hour (:func:`gpu_hour_price`)."""
        return gpu_hour_price(self)

    @property
    def price_per_vram_gib_hour(self) -> Decimal | None:
        """Price per GiB of GPU memory per hour (:func:`vram_price`)."""
        return vram_price(self)

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
            "gpu_memory_gib": usable_vram_gib(inst),
            "gpu_memory_total_gib": total_vram_gib(inst),
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
            "price_per_gpu_hour": money_figure(gpu_hour_price(self)),
            "price_per_vram_gib_hour": money_figure(vram_price(self)),
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
            **(self.obtain.record() if self.obtain is not None else EMPTY_OBTAIN_RECORD),
        }
