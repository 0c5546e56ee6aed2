"""Pure parsing of AWS EC2 price and spec data (no HTTP): offer files, spot-price history, instance-type specs.

Sources and shapes (see ``shared/reference/provider-apis.md`` section 2):

* **Offer file** (Price List bulk API, public): ``{formatVersion, offerCode, version, publicationDate,
  products: {SKU: {sku, productFamily, attributes}}, terms: {OnDemand: {SKU: {TERM: {priceDimensions, ...}}},
  Reserved: {...}}}``. Prices are strings per ``unit`` (``Hrs`` per instance-hour, ``Quantity`` for an upfront fee)
  in the currency named by the ``pricePerUnit`` key (USD; CNY in the China partition). Parsed as a stream by
  :class:`OfferFileParser`, never held whole.
* **DescribeSpotPriceHistory** (EC2 Query API, XML): ``spotPriceHistorySet/item/{availabilityZone,
  availabilityZoneId, instanceType, productDescription, spotPrice, timestamp}``; ``spotPrice`` is USD per
  instance-hour for one availability zone.
* **DescribeInstanceTypes** (EC2 Query API, XML; or botocore's PascalCase JSON): vCPUs, memory in MiB, and
  ``GpuInfo`` / ``NeuronInfo`` / ``InferenceAcceleratorInfo`` / ``FpgaInfo`` / ``MediaAcceleratorInfo``.

Selection rules for "the" Linux on-demand price of an instance type in a region: product family
``Compute Instance`` (or ``Compute Instance (bare metal)``), ``operatingSystem`` Linux, ``tenancy`` Shared,
``preInstalledSw`` NA, ``licenseModel`` "No License required", ``capacitystatus`` Used (capacity-reservation rows
``AllocatedCapacityReservation``/``UnusedCapacityReservation`` are not on-demand offers), ``marketoption``
OnDemand (capacity blocks are not), price dimension unit ``Hrs``, price > 0.
"""

from __future__ import annotations

import datetime as dt
import json
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from importlib import resources
from typing import Any

from gpuhub.plugin import Gpu, Instance, ProviderError
from gpuhub_aws.jsonstream import Action, JsonObjectWalker, JsonStreamError
from gpuhub_aws.network import NetworkSpec, network_from_api

__all__ = [
    "GPU_ALIASES",
    "HOURS_PER_YEAR",
    "AcceleratorSpec",
    "InstanceSpec",
    "OfferFileParser",
    "OfferFileResult",
    "RegionPrices",
    "SpotItem",
    "TermPrice",
    "build_instance",
    "bundled_specs",
    "ec2_error",
    "ec2_items",
    "is_accelerated",
    "latest_spot_prices",
    "on_demand_price",
    "parse_describe_instance_types",
    "parse_offer_file",
    "parse_spot_history",
    "product_rejection",
    "reserved_prices",
    "spec_from_api",
]

HOURS_PER_YEAR = 8760
"""Hours in one year of a reserved term (AWS bills a 1-year term as 8760 hours, a 3-year term as 26280)."""

GPU_ALIASES: dict[str, str] = {
    "RTX PRO Server 6000": "RTXPRO6000",  # DescribeInstanceTypes name of the g7e GPU
    "T4g": "T4",  # g5g (Graviton) name of the T4
    "Gaudi HL-205": "Gaudi",
}
"""AWS ``DescribeInstanceTypes`` GPU names mapped to canonical gpuhub names (registered by the plugin)."""

_LEASE_YEARS = {"1yr": 1, "1 yr": 1, "3yr": 3, "3 yr": 3}
_PRODUCT_FAMILIES = frozenset({"Compute Instance", "Compute Instance (bare metal)"})
_PRICE_DECIMALS = Decimal("0.0000000001")  # offer files publish 10 decimal places
_EC2_NS = "{http://ec2.amazonaws.com/doc/2016-11-15}"


# --------------------------------------------------------------------------------------------------------------
# Offer files
# --------------------------------------------------------------------------------------------------------------
def product_rejection(product: Mapping[str, Any]) -> str | None:
    """Why an offer-file product is not a Linux, shared-tenancy, plain on-demand compute instance (None: it is).

    The reasons are short labels (``"operating system Windows"``, ``"capacity status UnusedCapacityReservation"``)
    used for counting. A missing ``marketoption`` (older files) counts as OnDemand.
    """
    family = product.get("productFamily")
    if family not in _PRODUCT_FAMILIES:
        return f"product family {family}"
    attrs = product.get("attributes")
    if not isinstance(attrs, Mapping):
        return "no attributes"
    checks = (("operatingSystem", "Linux", "operating system"), ("tenancy", "Shared", "tenancy"),
              ("preInstalledSw", "NA", "pre-installed software"),
              ("licenseModel", "No License required", "license model"),
              ("capacitystatus", "Used", "capacity status"))
    for key, wanted, label in checks:
        value = attrs.get(key)
        if value != wanted:
            return f"{label} {value}"
    market = attrs.get("marketoption", "OnDemand")
    if market != "OnDemand":
        return f"market option {market}"
    return None


def _money(text: object) -> Decimal:
    """A price string as Decimal; raises ValueError when it is not a finite number."""
    try:
        value = Decimal(str(text).strip())
    except InvalidOperation:
        raise ValueError(f"price {text!r} is not a number") from None
    if not value.is_finite():
        raise ValueError(f"price {text!r} is not finite")
    return value


def _one_currency(price_per_unit: Mapping[str, Any]) -> tuple[str, Decimal]:
    if not isinstance(price_per_unit, Mapping) or len(price_per_unit) != 1:
        raise ValueError(f"pricePerUnit must name exactly one currency, got {price_per_unit!r}")
    [(currency, amount)] = price_per_unit.items()
    return str(currency), _money(amount)


@dataclass(frozen=True)
class TermPrice:
    """One price of an instance type in a region, per instance-hour.

    ``amount`` is the effective hourly price (for a reserved term: upfront / hours in the term + hourly),
    ``upfront`` the one-off fee (reserved only), ``term_hours`` 8760 or 26280, ``payment_option`` as AWS names it
    (``No Upfront``, ``Partial Upfront``, ``All Upfront``), with `` (convertible)`` appended for convertible RIs.
    """

    amount: Decimal
    currency: str
    purchase: str
    upfront: Decimal | None = None
    term_hours: int | None = None
    payment_option: str | None = None


def on_demand_price(terms: Mapping[str, Any]) -> TermPrice:
    """The on-demand price from one SKU's ``terms.OnDemand`` entry (``{TERM: {priceDimensions: ...}}``).

    Raises:
        ValueError: no ``Hrs`` dimension, several different hourly prices, more than one currency, or a price of
            zero (a placeholder, never an offer).
    """
    found: set[tuple[str, Decimal]] = set()
    for term in terms.values():
        for dim in term["priceDimensions"].values():
            if dim.get("unit") != "Hrs":
                continue
            found.add(_one_currency(dim["pricePerUnit"]))
    if not found:
        raise ValueError("no hourly (Hrs) price dimension")
    if len(found) > 1:
        raise ValueError(f"ambiguous on-demand prices {sorted(str(a) for _, a in found)}")
    [(currency, amount)] = found
    if amount <= 0:
        raise ValueError("zero on-demand price")
    return TermPrice(amount=amount, currency=currency, purchase="on_demand")


def reserved_prices(terms: Mapping[str, Any]) -> list[TermPrice]:
    """Reserved prices from one SKU's ``terms.Reserved`` entry, as effective hourly prices.

    Each term has an upfront fee (dimension unit ``Quantity``, one-off, in the currency) and/or an hourly part
    (unit ``Hrs``). Effective hourly = upfront / (8760 × years) + hourly, rounded to 10 decimal places. Terms
    whose effective price is zero are dropped; unknown lease lengths raise ValueError.
    """
    out: list[TermPrice] = []
    for term in terms.values():
        attrs = term.get("termAttributes") or {}
        lease = str(attrs.get("LeaseContractLength", "")).strip()
        years = _LEASE_YEARS.get(lease)
        if years is None:
            raise ValueError(f"unknown reserved lease length {lease!r}")
        option = str(attrs.get("PurchaseOption") or "unknown")
        if str(attrs.get("OfferingClass", "standard")).lower() == "convertible":
            option += " (convertible)"
        upfront, hourly, currencies = Decimal(0), Decimal(0), set()
        for dim in term["priceDimensions"].values():
            currency, amount = _one_currency(dim["pricePerUnit"])
            unit = dim.get("unit")
            if unit == "Quantity":
                upfront += amount
            elif unit == "Hrs":
                hourly += amount
            else:
                continue
            currencies.add(currency)
        if len(currencies) != 1:
            raise ValueError(f"reserved term with currencies {sorted(currencies)}")
        hours = HOURS_PER_YEAR * years
        effective = (upfront / hours + hourly).quantize(_PRICE_DECIMALS)
        if effective <= 0:
            continue
        out.append(TermPrice(amount=effective, currency=currencies.pop(), purchase=f"reserved_{years}y",
                             upfront=upfront, term_hours=hours, payment_option=option))
    return out


@dataclass
class RegionPrices:
    """The prices of one instance type in one region from an offer file.

    ``attributes`` keeps the product attributes the instance is built from when no spec is known
    (``vcpu``, ``memory``, ``gpu``, ``processorArchitecture``).
    """

    instance_type: str
    region: str
    attributes: dict[str, str]
    on_demand: TermPrice | None = None
    reserved: list[TermPrice] = field(default_factory=list)


@dataclass
class OfferFileResult:
    """What one offer file gave: prices per instance type, and counters of what was left out and why.

    ``filtered`` counts accelerator products left out by the selection rules (by reason); ``malformed`` counts
    records that could not be read (by reason); ``products`` counts every product seen.
    """

    region: str
    publication_date: str | None = None
    prices: dict[str, RegionPrices] = field(default_factory=dict)
    products: int = 0
    filtered: Counter[str] = field(default_factory=Counter)
    malformed: Counter[str] = field(default_factory=Counter)
    conflicts: set[str] = field(default_factory=set)
    listed: dict[str, dict[str, str]] = field(default_factory=dict)
    """Accelerator types the file lists only under another market option (Capacity Blocks, e.g. p5e): their
    kept attributes. They have no on-demand price but may have spot prices."""


_KEEP_ATTRS = ("vcpu", "memory", "gpu", "gpuMemory", "processorArchitecture", "instanceFamily", "physicalProcessor")


class OfferFileParser:
    """Streams one EC2 offer file: feed it byte chunks as they arrive, then call :meth:`finish`.

    Memory stays bounded whatever the file size: only the selected products (accelerator instance types that pass
    :func:`product_rejection`) and their prices are kept, and only their terms are decoded; every other term is
    passed over by :class:`~gpuhub_aws.jsonstream.JsonObjectWalker` without being built. Products must come before
    terms, as in AWS's files; otherwise :class:`ProviderError` is raised.

    Args:
        region: the region code the file was requested for (used when a product lacks ``regionCode``).
        is_accelerated: predicate on ``(instance type, attributes)`` choosing the instance types to keep.
    """

    def __init__(self, region: str, is_accelerated: Callable[[str, Mapping[str, Any]], bool]) -> None:
        self.result = OfferFileResult(region=region)
        self._accept = is_accelerated
        self._walker = JsonObjectWalker(self._route, self._value, self._enter)
        self._selected: dict[str, RegionPrices] = {}  # sku -> prices
        self._sku_of_type: dict[str, str] = {}
        self._twins: dict[str, list[str]] = {}  # instance type -> its SKUs, when more than one
        self._terms_seen = False
        self.bytes = 0

    def feed(self, chunk: bytes) -> None:
        """Parse the next piece of the file.

        Raises:
            ProviderError: the bytes are not JSON, or products come after terms.
        """
        self.bytes += len(chunk)
        try:
            self._walker.feed(chunk)
        except JsonStreamError as exc:
            raise ProviderError(f"offer file for {self.result.region} is not valid JSON: {exc}") from None

    def finish(self) -> OfferFileResult:
        """End of the stream: check the JSON was complete and return the result.

        Raises:
            ProviderError: the file ended early (truncated) or is not JSON.
        """
        try:
            self._walker.close()
        except JsonStreamError as exc:
            raise ProviderError(f"offer file for {self.result.region} is incomplete or not JSON "
                                f"(after {self.bytes} bytes): {exc}") from None
        self._settle_twins()
        for sku in self.result.conflicts:
            self._selected.pop(sku, None)
        for prices in self._selected.values():
            if prices.on_demand is None and not prices.reserved:
                continue
            self.result.prices[prices.instance_type] = prices
        return self.result

    def _settle_twins(self) -> None:
        """Several "plain Linux on-demand" products for one type: identical rows (same attributes and prices) are
        one product listed twice, kept once and counted; differing ones are not guessed between: all dropped and
        counted as malformed."""
        for itype, skus in self._twins.items():
            rows = [self._selected[s] for s in skus if s in self._selected]
            if rows and all(r == rows[0] for r in rows[1:]):
                self.result.conflicts.update(skus[1:])
                self.result.malformed[f"the same on-demand Linux product listed {len(skus)} times for {itype} "
                                     "(kept once)"] += len(skus) - 1
            else:
                self.result.conflicts.update(skus)
                self.result.malformed[f"two on-demand Linux products for {itype}"] += len(skus) - 1

    def _route(self, path: tuple[str, ...], key: str) -> Action:
        if not path:
            if key in ("products", "terms"):
                return "enter"
            return "decode" if key == "publicationDate" else "skip"
        if path == ("products",):
            return "decode"
        if path == ("terms",):
            return "enter" if key in ("OnDemand", "Reserved") else "skip"
        if len(path) == 2 and key in self._selected:
            return "decode"
        return "skip"

    def _enter(self, path: tuple[str, ...]) -> None:
        if path == ("products",) and self._terms_seen:
            raise ProviderError(f"offer file for {self.result.region} lists products after terms; "
                                "it cannot be streamed")
        if len(path) == 2:
            self._terms_seen = True

    def _value(self, path: tuple[str, ...], key: str, value: Any) -> None:
        if not path:
            self.result.publication_date = str(value)
        elif path == ("products",):
            self._product(key, value)
        else:
            self._terms("terms." + path[1], key, value)

    def _product(self, sku: str, product: Any) -> None:
        self.result.products += 1
        try:
            attrs = product.get("attributes") or {}
            itype = attrs.get("instanceType")
            if not itype or not self._accept(str(itype), attrs):
                return
            reason = product_rejection(product)
            if reason is not None:
                self.result.filtered[reason] += 1
                if reason.startswith("market option") and product_rejection(
                        {**product, "attributes": {**attrs, "marketoption": "OnDemand"}}) is None:
                    self.result.listed.setdefault(str(itype), {k: str(attrs[k]) for k in _KEEP_ATTRS if k in attrs})
                return
            region = str(attrs.get("regionCode") or self.result.region)
            kept = {k: str(attrs[k]) for k in _KEEP_ATTRS if k in attrs}
            other_sku = self._sku_of_type.setdefault(str(itype), sku)
            if other_sku != sku:  # two "plain Linux on-demand" SKUs for one type: settled at the end
                self._twins.setdefault(str(itype), [other_sku]).append(sku)
            self._selected[sku] = RegionPrices(instance_type=str(itype), region=region, attributes=kept)
        except (AttributeError, TypeError) as exc:
            self.result.malformed[f"product: {type(exc).__name__}"] += 1

    def _terms(self, section: str, sku: str, terms: Any) -> None:
        prices = self._selected.get(sku)
        if prices is None:
            return
        try:
            if section == "terms.OnDemand":
                prices.on_demand = on_demand_price(terms)
            else:
                prices.reserved = reserved_prices(terms)
        except (KeyError, TypeError, ValueError, AttributeError, ArithmeticError) as exc:
            what = "on-demand term" if section == "terms.OnDemand" else "reserved term"
            text = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
            self.result.malformed[f"{what}: {text[:80]}"] += 1


def parse_offer_file(chunks: Iterable[bytes], region: str,
                     is_accelerated: Callable[[str, Mapping[str, Any]], bool]) -> OfferFileResult:
    """Parse a whole offer file given as an iterable of byte chunks (a convenience over :class:`OfferFileParser`)."""
    parser = OfferFileParser(region, is_accelerated)
    for chunk in chunks:
        parser.feed(chunk)
    return parser.finish()


# --------------------------------------------------------------------------------------------------------------
# EC2 Query API XML
# --------------------------------------------------------------------------------------------------------------
def _xml_root(body: bytes) -> ET.Element:
    try:
        return ET.fromstring(body)
    except ET.ParseError as exc:
        raise ProviderError(f"EC2 answer is not XML: {exc}") from None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def ec2_error(body: bytes) -> tuple[str, str] | None:
    """``(code, message)`` of an EC2 error envelope (``<Response><Errors><Error>``), or None when not one."""
    try:
        root = ET.fromstring(body)
    except ET.ParseError:
        return None
    if _local(root.tag) != "Response":
        return None
    for error in root.iter():
        if _local(error.tag) == "Error":
            code = next((c.text or "" for c in error if _local(c.tag) == "Code"), "")
            message = next((c.text or "" for c in error if _local(c.tag) == "Message"), "")
            return code, message
    return None


@dataclass(frozen=True)
class SpotItem:
    """One spot-price history entry: USD per instance-hour in one availability zone at ``timestamp``."""

    instance_type: str
    zone: str
    zone_name: str | None
    zone_id: str | None
    product: str
    price: Decimal
    timestamp: dt.datetime


def _child_text(elem: ET.Element, name: str) -> str | None:
    for child in elem:
        if _local(child.tag) == name:
            return (child.text or "").strip()
    return None


def _timestamp(text: str) -> dt.datetime:
    when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)


def ec2_items(body: bytes, action: str, item_set: str) -> tuple[list[ET.Element], str | None]:
    """The ``<item>`` elements under ``<item_set>`` and the ``nextToken`` (None on the last page) of one EC2 Query
    XML answer to ``action`` (``DescribeSpotPriceHistory``, ...); the frame every ``Describe*`` parser shares.

    Raises:
        ProviderError: the body is not XML, is an EC2 error, or is not an answer to ``action``.
    """
    root = _xml_root(body)
    if _local(root.tag) != f"{action}Response":
        error = ec2_error(body)
        detail = f"{error[0]}: {error[1]}" if error else f"unexpected root <{_local(root.tag)}>"
        raise ProviderError(f"{action} failed: {detail}")
    items: list[ET.Element] = []
    token: str | None = None
    for child in root:
        name = _local(child.tag)
        if name == "nextToken":
            token = (child.text or "").strip() or None
        elif name == item_set:
            items.extend(child)
    return items, token


def parse_spot_history(body: bytes, skip: Callable[[str], None] | None = None
                       ) -> tuple[list[SpotItem], str | None]:
    """Items and the ``nextToken`` (None on the last page) of one ``DescribeSpotPriceHistory`` XML answer.

    The zone is the availability-zone ID (``use1-az3``, the same for every account) when present, else the zone
    name (``us-east-1a``). A malformed item is reported through ``skip(reason)`` and left out.

    Raises:
        ProviderError: the body is not XML, is an EC2 error, or is not a DescribeSpotPriceHistory answer.
    """
    elements, token = ec2_items(body, "DescribeSpotPriceHistory", "spotPriceHistorySet")
    items: list[SpotItem] = []
    for item in elements:
        try:
            zone_id = _child_text(item, "availabilityZoneId") or None
            zone_name = _child_text(item, "availabilityZone") or None
            zone = zone_id or zone_name
            itype = _child_text(item, "instanceType")
            if not zone or not itype:
                raise ValueError("no zone or instance type")
            price = _money(_child_text(item, "spotPrice"))
            items.append(SpotItem(instance_type=itype, zone=zone, zone_name=zone_name, zone_id=zone_id,
                                  product=_child_text(item, "productDescription") or "",
                                  price=price, timestamp=_timestamp(_child_text(item, "timestamp") or "")))
        except (ValueError, TypeError) as exc:
            if skip is not None:
                skip(f"spot price item: {str(exc)[:80]}")
    return items, token


def latest_spot_prices(items: Iterable[SpotItem]) -> dict[tuple[str, str], SpotItem]:
    """The current spot price per (instance type, zone): the entry with the latest timestamp (Linux/UNIX only).

    Entries for other products (Windows, SUSE, ...) are ignored; ``Linux/UNIX`` and ``Linux/UNIX (Amazon VPC)``
    both count. On equal timestamps the later entry in the answer wins.
    """
    out: dict[tuple[str, str], SpotItem] = {}
    for item in items:
        if not item.product.startswith("Linux/UNIX"):
            continue
        key = (item.instance_type, item.zone)
        current = out.get(key)
        if current is None or item.timestamp >= current.timestamp:
            out[key] = item
    return out


_XML_RENAMES = {"workloadSet": "Workloads", "vCpuInfo": "VCpuInfo"}


def _xml_to_api(elem: ET.Element) -> Any:
    """An EC2 XML element as botocore's PascalCase structure (``item`` children become lists; leaves strings)."""
    children = list(elem)
    if not children:
        return (elem.text or "").strip()
    if all(_local(c.tag) in ("item", "member") for c in children):
        return [_xml_to_api(c) for c in children]
    out: dict[str, Any] = {}
    for child in children:
        name = _local(child.tag)
        key = _XML_RENAMES.get(name, name[:1].upper() + name[1:])
        out[key] = _xml_to_api(child)
    return out


def parse_describe_instance_types(body: bytes) -> tuple[list[dict[str, Any]], str | None]:
    """``DescribeInstanceTypes`` XML as botocore-shaped dicts (``InstanceType``, ``GpuInfo``, ...) and nextToken.

    Raises:
        ProviderError: the body is not XML, is an EC2 error, or is not a DescribeInstanceTypes answer.
    """
    elements, token = ec2_items(body, "DescribeInstanceTypes", "instanceTypeSet")
    values = (_xml_to_api(item) for item in elements)
    return [value for value in values if isinstance(value, dict)], token


# --------------------------------------------------------------------------------------------------------------
# Specs
# --------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AcceleratorSpec:
    """The accelerators of an instance type as AWS describes them.

    ``kind``: ``gpu`` (GpuInfo), ``neuron`` (NeuronInfo: Inferentia, Trainium), ``inference``
    (InferenceAcceleratorInfo only, e.g. Qualcomm AI100), ``fpga`` (FpgaInfo), ``media`` (MediaAcceleratorInfo).
    ``count`` is AWS's ``Count`` (0 for a fractional GPU), ``partition`` the ``GpuPartitionSize`` (1.0 for a whole
    GPU), ``memory_mib`` the memory per device as AWS reports it (MiB).
    """

    kind: str
    name: str
    manufacturer: str | None
    count: int
    partition: float = 1.0
    memory_mib: int | None = None

    @property
    def gpu_count(self) -> float:
        """Devices per instance, a fraction for a partitioned GPU (g6f.4xlarge: Count 0, partition 0.5 -> 0.5)."""
        if self.partition < 1:
            return max(self.count, 1) * self.partition
        return float(self.count)


@dataclass(frozen=True)
class InstanceSpec:
    """Specs of one instance type: vCPUs, memory (GiB), accelerators, CPU architecture, bare metal."""

    instance_type: str
    vcpus: int | None
    memory_gib: float | None
    accelerator: AcceleratorSpec | None
    cpu_arch: str = "x86_64"
    bare_metal: bool | None = None
    network: str | None = None
    net: NetworkSpec = field(default_factory=NetworkSpec)
    """Network bandwidth, EFA and local storage (:mod:`gpuhub_aws.network`)."""


def _int(value: Any) -> int | None:
    if value is None or value == "":
        return None
    return int(float(value))


def _device(kind: str, raw: Mapping[str, Any]) -> AcceleratorSpec:
    memory = raw.get("MemoryInfo") or {}
    return AcceleratorSpec(kind=kind, name=str(raw["Name"]), manufacturer=raw.get("Manufacturer"),
                           count=_int(raw.get("Count")) or 0,
                           partition=float(raw.get("GpuPartitionSize") or 1.0),
                           memory_mib=_int(memory.get("SizeInMiB")) if isinstance(memory, Mapping) else None)


def spec_from_api(item: Mapping[str, Any]) -> InstanceSpec:
    """An :class:`InstanceSpec` from one botocore-shaped ``DescribeInstanceTypes`` item.

    Accelerator precedence: ``GpuInfo`` (GPUs, including Habana Gaudi), then ``NeuronInfo`` (Inferentia,
    Trainium), then ``InferenceAcceleratorInfo``, ``FpgaInfo``, ``MediaAcceleratorInfo``. A type without any is
    CPU-only (``accelerator`` None). Raises KeyError/ValueError on malformed items.
    """
    accel: AcceleratorSpec | None = None
    blocks = (("GpuInfo", "Gpus", "gpu"), ("NeuronInfo", "NeuronDevices", "neuron"),
              ("InferenceAcceleratorInfo", "Accelerators", "inference"), ("FpgaInfo", "Fpgas", "fpga"),
              ("MediaAcceleratorInfo", "Accelerators", "media"))
    for block, key, kind in blocks:
        info = item.get(block)
        if not isinstance(info, Mapping):
            continue
        devices = info.get(key) or []
        if devices:
            accel = _device(kind, devices[0])
            break
    arches = (item.get("ProcessorInfo") or {}).get("SupportedArchitectures") or ["x86_64"]
    mib = _int((item.get("MemoryInfo") or {}).get("SizeInMiB"))
    bare = item.get("BareMetal")
    return InstanceSpec(
        instance_type=str(item["InstanceType"]),
        vcpus=_int((item.get("VCpuInfo") or {}).get("DefaultVCpus")),
        memory_gib=mib / 1024 if mib is not None else None,
        accelerator=accel,
        cpu_arch="arm64" if "arm64" in arches and "x86_64" not in arches else "x86_64",
        bare_metal=(str(bare).lower() == "true") if bare is not None else None,
        network=(item.get("NetworkInfo") or {}).get("NetworkPerformance"),
        net=network_from_api(item),
    )


@lru_cache(maxsize=1)
def bundled_specs() -> dict[str, InstanceSpec]:
    """The bundled spec table (``gpuhub_aws/specs.json``), keyed by instance type.

    Built by ``scripts/build_recording.py`` from moto 5.2.1's copy of AWS's DescribeInstanceTypes data (GPU,
    Neuron, inference, FPGA and media accelerator types), plus p3/f1 rows from the SkyPilot AWS catalog's
    ``GpuInfo``/accelerator columns for types moto lacks.
    """
    text = resources.files("gpuhub_aws").joinpath("specs.json").read_text(encoding="utf-8")
    data = json.loads(text)
    return {item["InstanceType"]: spec_from_api(item) for item in data["InstanceTypes"]}


_MEMORY_VARIANT_MODELS = frozenset({"A100", "V100", "H100"})  # models sold in several memory sizes
# Families whose GPUs are SXM modules on an NVLink/NVSwitch board (AWS "Accelerated computing" instance pages:
# P3 "NVLink", P4d/P4de "NVSwitch", P5/P5e/P5en "NVSwitch", P6 "NVLink"); the API names only the model ("H100"), and
# the SXM part's throughput differs from the PCIe card's.
_SXM_FAMILIES = {"p3": "NVLink", "p3dn": "NVLink", "p4d": "NVSwitch", "p4de": "NVSwitch", "p5": "NVSwitch",
                 "p5e": "NVSwitch", "p5en": "NVSwitch", "p6-b200": "NVSwitch", "p6e-gb200": "NVLink"}
_LEFT_OUT_KINDS = {"fpga": "FPGA", "media": "video transcoding accelerator"}


def build_instance(spec: InstanceSpec | None, prices_attrs: Mapping[str, str], instance_type: str,
                   resolve_gpu: Callable[[str, float | None], Gpu], warn: Callable[[str], None],
                   provider: str = "aws") -> Instance:
    """The :class:`Instance` for an instance type, from its spec (preferred) and offer-file attributes.

    Rules:
        * GPUs (``GpuInfo``) resolve through the GPU table with the reported memory (MiB / 1024) to pick the
          variant (A100 40 vs 80 GB); a known GPU carries the table's marketed memory (L4: AWS reports 22888 MiB,
          the card is sold as 24 GiB). The reported figure is kept in ``note`` when it differs, and a warning is
          given when it differs from the marketed size by more than 10 % (a sign of a wrong mapping).
        * A partitioned GPU (g6f: ``Count`` 0, ``GpuPartitionSize`` 0.5) is a fractional offer
          (``gpu_count`` 0.5, ``fractional`` True), never CPU-only.
        * Neuron devices (Inferentia, Trainium) and other inference accelerators are carried truthfully as
          accelerators with their own names (vendor AWS or their maker) and a note saying they are not GPUs.
        * FPGA and video-transcoding types are left out (ValueError "left out: ..."): they are not GPUs.

    Raises:
        ValueError: the type is left out by rule, or nothing says what accelerator it has.
    """
    if spec is None:
        raise ValueError("no spec for instance type")
    accel = spec.accelerator
    if accel is None:
        raise ValueError("no accelerator in spec")
    if accel.kind in _LEFT_OUT_KINDS:
        raise ValueError(f"left out: {_LEFT_OUT_KINDS[accel.kind]} instance type, not a GPU")
    vcpus = spec.vcpus if spec.vcpus is not None else _int(prices_attrs.get("vcpu"))
    memory = spec.memory_gib if spec.memory_gib is not None else _memory_attr(prices_attrs.get("memory"))
    reported_gib = accel.memory_mib / 1024 if accel.memory_mib else None
    spelling = accel.name
    if reported_gib and accel.partition >= 1 and accel.name.strip().upper() in _MEMORY_VARIANT_MODELS:
        # The GPU table maps a bare "A100" to the 40 GB part before looking at memory: name the size.
        spelling = f"{accel.name} {round(reported_gib)}GB"
    family = instance_type.split(".")[0]
    interconnect = _SXM_FAMILIES.get(family)
    if interconnect is not None and accel.kind == "gpu":
        spelling += " SXM"
    gpu = resolve_gpu(spelling, reported_gib)
    if gpu.raw_name != accel.name:
        gpu = gpu.model_copy(update={"raw_name": accel.name})
    note: str | None = None
    if accel.kind == "gpu":
        if not gpu.known and accel.manufacturer:
            gpu = gpu.model_copy(update={"vendor": accel.manufacturer})
        if gpu.known and reported_gib and gpu.memory_gib:
            marketed = float(gpu.memory_gib)
            per_card = reported_gib / accel.partition if accel.partition < 1 else reported_gib
            if abs(per_card - marketed) > 0.01:
                unit = "slice" if accel.partition < 1 else "GPU"
                note = f"AWS reports {accel.memory_mib} MiB of GPU memory per {unit}"
            if abs(per_card - marketed) > 0.1 * marketed:
                warn(f"AWS reports {accel.name} on {instance_type} with {accel.memory_mib} MiB per GPU, not the "
                     f"{marketed:g} GiB of {gpu.name}; check the GPU mapping")
    else:
        if not gpu.known and accel.manufacturer:
            gpu = gpu.model_copy(update={"vendor": accel.manufacturer})
        note = f"{accel.name} accelerator ({accel.manufacturer or 'AWS'}), not a GPU"
    count = accel.gpu_count
    if count <= 0:
        raise ValueError(f"accelerator count {accel.count} with partition {accel.partition}")
    return Instance(provider=provider, instance_type=instance_type, gpu=gpu, gpu_count=count,
                    fractional=count < 1, vcpus=vcpus, memory_gib=memory, cpu_arch=spec.cpu_arch,
                    bare_metal=spec.bare_metal, tenancy="dedicated" if spec.bare_metal else "shared",
                    control_source="EC2 DescribeInstanceTypes BareMetal; price list tenancy Shared", note=note,
                    interconnect=interconnect if accel.kind == "gpu" else None, **spec.net.instance_fields())


_ACCELERATED_FAMILIES = frozenset({"GPU instance", "Machine Learning ASIC Instances", "FPGA Instances"})


def is_accelerated(instance_type: str, attrs: Mapping[str, Any]) -> bool:
    """True for instance types with GPUs or other accelerators: in the spec table, or an offer-file product whose
    ``gpu`` attribute is a positive count or whose ``instanceFamily`` is a GPU/ML-ASIC/FPGA family."""
    if instance_type in bundled_specs():
        return True
    if attrs.get("instanceFamily") in _ACCELERATED_FAMILIES:
        return True
    gpu = str(attrs.get("gpu", "")).strip()
    return gpu.replace(".", "", 1).isdigit() and float(gpu) > 0


def _memory_attr(text: str | None) -> float | None:
    """Offer-file memory attribute (``"2048 GiB"``, ``"1,152 GiB"``) in GiB; None when absent or NA."""
    if not text or text.strip().upper() == "NA":
        return None
    number = text.replace(",", "").split()[0]
    return float(number)
