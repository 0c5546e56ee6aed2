"""Synthetic EC2 offer files in the real bulk-file shape, for tests and the streaming benchmark.

Nothing here is a price anyone publishes: :func:`product` and :func:`offer_document` build small documents whose
values a test chooses; :func:`write_large_offer_file` writes a file of a requested size (hundreds of MB or more)
whose mix resembles a real regional file: mostly non-GPU products with many reserved terms, a few GPU products.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = ["offer_document", "on_demand_terms", "product", "reserved_terms", "write_large_offer_file"]

ON_DEMAND_CODE = "JRTCKXETXF"
RATE_CODE = "6YS6EN2CT7"


def product(sku: str, instance_type: str, region: str = "us-east-1", **attrs: str) -> dict[str, Any]:
    """A ``Compute Instance`` product: Linux, Shared, no software, no licence, Used, OnDemand unless overridden.

    A keyword ``productFamily`` replaces the product family; any other keyword replaces an attribute.
    """
    family = attrs.pop("productFamily", "Compute Instance")
    base = {"servicecode": "AmazonEC2", "location": "US East (N. Virginia)", "locationType": "AWS Region",
            "instanceType": instance_type, "instanceFamily": "GPU instance", "vcpu": "8", "memory": "32 GiB",
            "tenancy": "Shared", "operatingSystem": "Linux", "licenseModel": "No License required",
            "usagetype": f"BoxUsage:{instance_type}", "operation": "RunInstances", "capacitystatus": "Used",
            "marketoption": "OnDemand", "preInstalledSw": "NA", "regionCode": region, "gpuMemory": "NA"}
    base.update(attrs)
    return {"sku": sku, "productFamily": family, "attributes": base}


def on_demand_terms(sku: str, price: str, currency: str = "USD", unit: str = "Hrs") -> dict[str, Any]:
    """``terms.OnDemand[sku]``: one term with one price dimension."""
    term = f"{sku}.{ON_DEMAND_CODE}"
    return {term: {"offerTermCode": ON_DEMAND_CODE, "sku": sku, "effectiveDate": "2026-11-01T00:00:00Z",
                   "priceDimensions": {f"{term}.{RATE_CODE}": {
                       "rateCode": f"{term}.{RATE_CODE}", "description": "synthetic", "beginRange": "0",
                       "endRange": "Inf", "unit": unit, "pricePerUnit": {currency: price}, "appliesTo": []}},
                   "termAttributes": {}}}


def reserved_terms(sku: str, options: list[tuple[str, str, str, str, str]],
                   currency: str = "USD") -> dict[str, Any]:
    """``terms.Reserved[sku]`` from ``(lease "1yr"|"3yr", class, purchase option, upfront, hourly)`` tuples;
    an empty upfront or hourly string leaves that dimension out."""
    out: dict[str, Any] = {}
    for n, (lease, klass, option, upfront, hourly) in enumerate(options):
        code = f"RSV{n:07d}"
        term = f"{sku}.{code}"
        dims: dict[str, Any] = {}
        if upfront:
            dims[f"{term}.2TG2D8R56U"] = {"rateCode": f"{term}.2TG2D8R56U", "description": "Upfront Fee",
                                          "unit": "Quantity", "pricePerUnit": {currency: upfront}, "appliesTo": []}
        if hourly:
            dims[f"{term}.6YS6EN2CT7"] = {"rateCode": f"{term}.6YS6EN2CT7", "description": "hourly",
                                          "beginRange": "0", "endRange": "Inf", "unit": "Hrs",
                                          "pricePerUnit": {currency: hourly}, "appliesTo": []}
        out[term] = {"offerTermCode": code, "sku": sku, "effectiveDate": "2026-11-01T00:00:00Z",
                     "priceDimensions": dims,
                     "termAttributes": {"LeaseContractLength": lease, "OfferingClass": klass,
                                        "PurchaseOption": option}}
    return out


def offer_document(products: Mapping[str, Any], on_demand: Mapping[str, Any] | None = None,
                   reserved: Mapping[str, Any] | None = None,
                   publication_date: str = "2026-11-30T00:00:00Z") -> dict[str, Any]:
    """A whole offer file: envelope, ``products``, ``terms.OnDemand`` and ``terms.Reserved``."""
    return {"formatVersion": "v1.0", "disclaimer": "synthetic", "offerCode": "AmazonEC2",
            "version": "20261130000000", "publicationDate": publication_date, "products": dict(products),
            "terms": {"OnDemand": dict(on_demand or {}), "Reserved": dict(reserved or {})}, "attributesList": {}}


_OPTIONS = [(lease, klass, option) for lease in ("1yr", "3yr") for klass in ("standard", "convertible")
            for option in ("No Upfront", "Partial Upfront", "All Upfront")]


def _sku(n: int) -> str:
    return f"SYN{n:013d}"


def _products(count: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every 50th product is a Linux/Shared/Used GPU product of its own type; the others are CPU products with
    a mix of operating systems, tenancies and capacity statuses."""
    oses = ("Linux", "Windows", "RHEL", "SUSE")
    for n in range(count):
        if n % 50 == 0:
            yield _sku(n), product(_sku(n), f"gsyn{n}.xlarge", gpu="1")
            continue
        attrs = {"operatingSystem": oses[(n // 7) % 4], "tenancy": "Shared" if n % 3 else "Dedicated",
                 "capacitystatus": ("Used", "UnusedCapacityReservation", "AllocatedCapacityReservation")[n % 3],
                 "instanceFamily": "General purpose"}
        yield _sku(n), product(_sku(n), f"m{5 + n % 3}.{n % 7}xlarge", **attrs)


def write_large_offer_file(path: Path, target_bytes: int) -> dict[str, int]:
    """Write a synthetic offer file of at least ``target_bytes`` to ``path``; returns counts written.

    The layout follows AWS's: envelope, all products, then ``terms.OnDemand``, then ``terms.Reserved`` with 12
    terms per product (1y/3y × standard/convertible × 3 payment options). The file grows by products; each
    product with its terms takes about 8 kB. Memory use while writing is constant.
    """
    per_product = 8_000
    count = max(10, target_bytes // per_product + 1)
    dumps = json.JSONEncoder(separators=(",", ":")).encode
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('{"formatVersion":"v1.0","disclaimer":"synthetic","offerCode":"AmazonEC2",'
                 '"version":"20261130000000","publicationDate":"2026-11-30T00:00:00Z","products":{')
        for i, (sku, prod) in enumerate(_products(count)):
            fh.write(("," if i else "") + dumps(sku) + ":" + dumps(prod))
        fh.write('},"terms":{"OnDemand":{')
        for n in range(count):
            price = f"{1 + (n % 997) / 100:.10f}"
            fh.write(("," if n else "") + dumps(_sku(n)) + ":" + dumps(on_demand_terms(_sku(n), price)))
        fh.write('},"Reserved":{')
        for n in range(count):
            options = [(lease, klass, option, "" if option == "No Upfront" else f"{1000 + n % 500}",
                        "0.0000000000" if option == "All Upfront" else f"{0.5 + (n % 97) / 100:.10f}")
                       for lease, klass, option in _OPTIONS]
            fh.write(("," if n else "") + dumps(_sku(n)) + ":" + dumps(reserved_terms(_sku(n), options)))
        fh.write('}},"attributesList":{}}\n')
    return {"products": count, "bytes": path.stat().st_size}
