"""Read-only views of stored offer rows: what a search served from the store shows, without pydantic.

A stored snapshot keeps every distinct instance, region, price-terms, source and extras row as the JSON dump of a
validated model (:mod:`gpuhub.store.columns`). A view reads such a dump back into plain attributes, converting only
what JSON cannot carry (``Decimal`` amounts and memory, dates, datetimes), and derives everything else through the
same mixins the models use (:mod:`gpuhub.derived`): a view shows what the model built from the same row would.

A view is made only from a dump with exactly the fields of the model of this code (:data:`FIELDS`, checked against
the models by the tests); any other row (a snapshot of another version) raises :class:`NotCurrent` and the caller
builds the validated model instead.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from gpuhub.derived import InstanceDerived, ObtainDerived, OfferDerived, PriceDerived, SourceDerived

__all__ = ["FIELDS", "NotCurrent", "OfferView", "offer_view"]

FIELDS: dict[str, frozenset[str]] = {
    "gpu": frozenset({"name", "vendor", "memory_gib", "form_factor", "architecture", "raw_name", "known"}),
    "region": frozenset({"provider", "code", "zone", "city", "country", "continent", "latitude", "longitude",
                         "carbon_gco2e_per_kwh"}),
    "instance": frozenset({"provider", "instance_type", "gpu", "gpu_count", "fractional", "vcpus", "memory_gib",
                           "storage_gib", "storage_kind", "storage_disks", "network_gbps", "network_peak_gbps",
                           "fabric", "fabric_gbps", "fabric_interfaces", "network_source", "interconnect",
                           "cpu_arch", "bare_metal", "tenancy", "control_source", "note", "slice_memory_gib",
                           "seller", "seller_instance_type"}),
    "terms": frozenset({"currency", "purchase", "upfront", "term_hours", "payment_option", "billing_increment_s",
                        "minimum_charge_s", "basis", "listing_stat", "listing_count", "data_date", "data_origin",
                        "replaced"}),
    "source": frozenset({"mode", "recording", "recorded_at", "kind", "data_date", "data_date_known"}),
    "extras": frozenset({"available_count", "provisionable_count", "provision_wait_s", "obtain"}),
    "obtain": frozenset({"risk", "placement_score", "placement_as_of", "reservation", "quota_instances", "capacity",
                         "checks"}),
    "risk": frozenset({"label", "min_pct", "max_pct", "savings_pct", "source", "as_of", "period", "note"}),
    "reservation": frozenset({"start", "duration_hours", "instance_count", "total", "offering_id", "note"}),
}
"""The fields of each stored dump a view reads: the fields of :class:`gpuhub.model.Gpu`, ``Region``,
``Instance``, ``Price`` (but the amount), ``Source``, the Offer fields beyond the core (``extras``) and the parts of
:class:`gpuhub.obtain.model.Obtainability`."""


class NotCurrent(ValueError):
    """A stored dump that does not have the fields of this code's models (written by another version)."""


def _fields(kind: str, data: Any) -> Mapping[str, Any]:
    if not isinstance(data, dict) or data.keys() != FIELDS[kind]:
        raise NotCurrent(kind)
    return data


def _decimal(text: Any) -> Decimal | None:
    return None if text is None else Decimal(str(text))


def _date(text: Any) -> dt.date | None:
    return None if text is None else dt.date.fromisoformat(text)


def _datetime(text: Any) -> dt.datetime | None:
    # pydantic writes UTC as "Z", which datetime.fromisoformat reads only from Python 3.11
    return None if text is None else dt.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)


class _View:
    """Attributes from a dump."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.__dict__.update(data)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.__dict__!r})"


class GpuView(_View):
    """A stored :class:`gpuhub.model.Gpu`."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        super().__init__(_fields("gpu", data))
        self.memory_gib = _decimal(data["memory_gib"])


class RegionView(_View):
    """A stored :class:`gpuhub.model.Region`."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        super().__init__(_fields("region", data))


class InstanceView(InstanceDerived, _View):
    """A stored :class:`gpuhub.model.Instance`."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        super().__init__(_fields("instance", data))
        self.gpu = None if data["gpu"] is None else GpuView(data["gpu"])


class PriceView(PriceDerived, _View):
    """A stored :class:`gpuhub.model.Price`: its terms and its amount (the exact published decimal text)."""

    def __init__(self, terms: Mapping[str, Any], amount: str) -> None:
        super().__init__(_fields("terms", terms))
        self.amount = Decimal(amount)
        self.upfront = _decimal(terms["upfront"])
        self.data_date = _date(terms["data_date"])


class SourceView(SourceDerived, _View):
    """A stored :class:`gpuhub.model.Source`."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        super().__init__(_fields("source", data))
        self.recorded_at = _date(data["recorded_at"])
        self.data_date = _date(data["data_date"])


class SpotRiskView(_View):
    """A stored :class:`gpuhub.obtain.model.SpotRisk`."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        super().__init__(_fields("risk", data))
        self.as_of = _date(data["as_of"])

    @property
    def known(self) -> bool:
        """True when the source gave an upper bound."""
        return self.max_pct is not None  # type: ignore[attr-defined]


class ReservationView(_View):
    """A stored :class:`gpuhub.obtain.model.Reservation`."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        super().__init__(_fields("reservation", data))
        self.start = _datetime(data["start"])
        self.total = Decimal(str(data["total"]))


class ObtainView(ObtainDerived, _View):
    """A stored :class:`gpuhub.obtain.model.Obtainability`."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        super().__init__(_fields("obtain", data))
        self.risk = None if data["risk"] is None else SpotRiskView(data["risk"])
        self.reservation = None if data["reservation"] is None else ReservationView(data["reservation"])
        self.placement_as_of = _datetime(data["placement_as_of"])
        self.checks = tuple(data["checks"])


_NO_EXTRAS = dict.fromkeys(FIELDS["extras"])


class OfferView(OfferDerived, _View):
    """A stored :class:`gpuhub.model.Offer`, read-only, with the attributes, properties and :meth:`to_record` of
    the model (the computed figures included)."""

    def __init__(self, instance: InstanceView, region: RegionView, price: PriceView, available: bool | None,
                 source: SourceView, extras: Mapping[str, Any] | None) -> None:
        super().__init__(_NO_EXTRAS if extras is None else _fields("extras", extras))
        self.instance, self.region, self.price, self.available, self.source = \
            instance, region, price, available, source
        obtain = None if extras is None else extras["obtain"]
        self.obtain = None if obtain is None else ObtainView(obtain)


def offer_view(tables: Mapping[str, list[Any]], codes: Mapping[str, int], available: int,
               parts: dict[tuple[str, int], Any]) -> OfferView:
    """The view of one stored row.

    Args:
        tables: the snapshot's tables (:attr:`gpuhub.store.columns.OfferColumns.tables`).
        codes: the row's code per column (``instance``, ``region``, ``terms``, ``amount``, ``source``, ``extra``;
            ``extra`` -1: no extra fields).
        available: the row's availability column (1 yes, 0 no, -1 unknown).
        parts: the views of shared parts built so far, by (table, code): filled here, reused across rows.

    Raises:
        NotCurrent: a dump of the row does not have this code's fields.
    """
    def part(table: str, make: Any) -> Any:
        key = (table, codes[table])
        view = parts.get(key)
        if view is None:
            view = parts[key] = make(tables[table + "s"][codes[table]])
        return view

    extra = codes["extra"]
    return OfferView(part("instance", InstanceView), part("region", RegionView),
                     PriceView(tables["terms"][codes["terms"]], tables["amounts"][codes["amount"]]),
                     None if available < 0 else bool(available), part("source", SourceView),
                     tables["extras"][extra] if extra >= 0 else None)
