"""AWS Capacity Blocks for ML as priced offers (purchase model ``capacity_block``).

``DescribeCapacityBlockOfferings`` (EC2 Query API, signed; ``InstanceType``, ``InstanceCount`` 1,
``CapacityDurationHours`` from ``GPUHUB_AWS_CAPACITY_BLOCK_HOURS``, default 24) is asked once per region for each
capacity-block instance type the region's offer file lists (:data:`FAMILIES`). Each offering becomes one offer:
the price per instance-hour is ``UpfrontFee / InstanceCount / duration``, ``upfront`` the fee, ``term_hours`` the
whole hours of the block, and ``Offer.obtain.reservation`` the start, duration, instance count, total and id.

A failed or refused call (no permission for the action, an API error, a recording without it) never fails the
provider: the status says ``ok (partial)`` naming the type and region, and there are no capacity block offers
there.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal

from gpuhub.plugin import (
    CredentialsError,
    Instance,
    Obtainability,
    Offer,
    Price,
    ProviderContext,
    ProviderError,
    Reservation,
)
from gpuhub_aws.parse import _local, _money, _timestamp, _xml_root, ec2_error

__all__ = ["DEFAULT_HOURS", "FAMILIES", "capacity_block_offers", "capacity_block_params", "is_capacity_block_type",
           "parse_capacity_block_offerings"]

EC2_API_VERSION = "2016-11-15"
DEFAULT_HOURS = 24
FAMILIES = ("p4d.", "p4de.", "p5.", "p5e.", "p5en.", "p6-b200.", "p6-b300.", "p6e-", "u-p6e-", "trn1.", "trn2.")
"""Instance type prefixes sold as Capacity Blocks for ML (AWS's capacity blocks pricing page, 2026-07)."""


def is_capacity_block_type(instance_type: str) -> bool:
    """True for an instance type of a family sold as Capacity Blocks (:data:`FAMILIES`)."""
    return instance_type.startswith(FAMILIES)


def capacity_block_params(instance_type: str, hours: int, token: str | None = None) -> list[tuple[str, str]]:
    """EC2 Query parameters of one ``DescribeCapacityBlockOfferings`` page: one instance for ``hours`` hours."""
    params = [("Action", "DescribeCapacityBlockOfferings"), ("Version", EC2_API_VERSION),
              ("InstanceType", instance_type), ("InstanceCount", "1"), ("CapacityDurationHours", str(hours))]
    return params + ([("NextToken", token)] if token else [])


def parse_capacity_block_offerings(body: bytes, skip: Callable[[str], None]
                                   ) -> tuple[list[dict[str, str]], str | None]:
    """The offerings (field name to text) and the ``nextToken`` of one answer.

    Raises:
        ProviderError: the body is not XML, is an EC2 error, or is not a DescribeCapacityBlockOfferings answer.
    """
    root = _xml_root(body)
    if _local(root.tag) != "DescribeCapacityBlockOfferingsResponse":
        error = ec2_error(body)
        detail = f"{error[0]}: {error[1]}" if error else f"unexpected root <{_local(root.tag)}>"
        raise ProviderError(f"DescribeCapacityBlockOfferings failed: {detail}")
    items: list[dict[str, str]] = []
    token: str | None = None
    for child in root:
        name = _local(child.tag)
        if name == "nextToken":
            token = (child.text or "").strip() or None
        elif name == "capacityBlockOfferingSet":
            for item in child:
                fields = {_local(e.tag): (e.text or "").strip() for e in item}
                if not fields.get("instanceType") or not fields.get("upfrontFee"):
                    skip("capacity block offering: no instance type or upfront fee")
                    continue
                items.append(fields)
    return items, token


def _offer(fields: Mapping[str, str], instance: Instance, region: str, ctx: ProviderContext) -> Offer:
    fee = _money(fields["upfrontFee"])
    count = int(fields.get("instanceCount") or 1)
    hours = int(fields.get("capacityBlockDurationHours") or 0)
    minutes = int(fields.get("capacityBlockDurationMinutes") or 0)
    duration = hours + minutes / 60
    if count < 1 or duration <= 0:
        raise ValueError("capacity block without instances or duration")
    start = _timestamp(fields["startDate"]) if fields.get("startDate") else None
    per_hour = fee / count / Decimal(str(duration))
    price = Price(amount=per_hour, currency=fields.get("currencyCode") or "USD", purchase="capacity_block",
                  upfront=fee, term_hours=math.ceil(duration))
    zone = fields.get("availabilityZone") or None
    reservation = Reservation(start=start, duration_hours=duration, instance_count=count, total=fee,
                              offering_id=fields.get("capacityBlockOfferingId") or None,
                              note="paid up front when purchased, non-refundable")
    return Offer(instance=instance, region=ctx.region(region, zone), price=price, source=ctx.source,
                 obtain=Obtainability(reservation=reservation, capacity=True))  # an offering is capacity held


def capacity_block_offers(ctx: ProviderContext, region: str, types: list[str],
                          instances: Mapping[str, Instance | None],
                          call: Callable[[list[tuple[str, str]]], bytes]) -> Iterator[Offer]:
    """The capacity block offers of ``types`` in ``region`` (``call`` sends one signed EC2 request)."""
    hours = _hours(ctx)
    for itype in types:
        instance = instances.get(itype)
        if instance is None or not is_capacity_block_type(itype):
            continue
        token: str | None = None
        seen: set[str] = set()
        try:
            while True:
                items, token = parse_capacity_block_offerings(call(capacity_block_params(itype, hours, token)),
                                                              ctx.skip)
                for fields in items:
                    with ctx.guard("capacity block offering"):
                        yield _offer(fields, instance, region, ctx)
                if token is None:
                    break
                if token in seen or len(seen) > 20:
                    raise ProviderError("DescribeCapacityBlockOfferings: pagination loop or page cap")
                seen.add(token)
        except CredentialsError as exc:  # not authorized: no type in this region will be
            ctx.partial("capacity block offerings that could not be read",
                        detail=f"capacity blocks in {region} not authorized: {str(exc)[:160]}")
            return
        except ProviderError as exc:  # this type only: the region's other types are still asked
            ctx.partial("capacity block offerings that could not be read",
                        detail=f"capacity blocks of {itype} in {region} unavailable: {str(exc)[:160]}")


def _hours(ctx: ProviderContext) -> int:
    text = ctx.setting("CAPACITY_BLOCK_HOURS") or str(DEFAULT_HOURS)
    try:
        hours = int(text)
    except ValueError:
        raise ProviderError(f"GPUHUB_AWS_CAPACITY_BLOCK_HOURS={text!r}: give whole hours, e.g. 24") from None
    if not 1 <= hours <= 182 * 24:
        raise ProviderError(f"GPUHUB_AWS_CAPACITY_BLOCK_HOURS={text!r}: from 24 to 4368 hours (1 to 182 days)")
    return hours

