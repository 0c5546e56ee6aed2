"""AWS Capacity Blocks for ML as priced offers (purchase model ``capacity_block``).

``DescribeCapacityBlockOfferings`` (EC2 Query API, signed; ``InstanceType``, ``InstanceCount`` 1,
``CapacityDurationHours`` from ``GPUHUB_AWS_CAPACITY_BLOCK_HOURS``, default 24) is asked once per region for each
capacity-block instance type the region's offer file lists (:data:`FAMILIES`). Each offering becomes one offer:
the price per instance-hour is ``UpfrontFee / InstanceCount / duration``, ``upfront`` the fee, ``term_hours`` the
whole hours of the block, and ``Offer.obtain.reservation`` the start, duration, instance count, total and id.

A failed or refused call (no permission for the action, an API error) never fails the provider: the status says
``ok (partial)`` naming the type and region, and there are no capacity block offers there. The calls are side
sources (:mod:`gpuhub_aws.side`): each region's are walked in a job of their own, concurrently, inside the side
sources' time budget; a region that does not answer in time is partial the same way. An offering whose start has
passed at the fetch (a recorded answer replayed later) is left out and counted.

Where no offering still to come was read (the call failed or was refused, was not recorded, or its offerings
have all started), a region and type the offer files cover get windows for the fetch's own time at the published
per-hour rate (``data/capacity_block_rates.csv``, the capacity blocks pricing page of 2026-07-22): the next
:data:`STARTS` daily start times (blocks start and end at 11:30 UTC) for one day, and the first one also for 7 and
14 days (AWS sells 1-day steps up to 14 days and 7-day steps up to 182); they are prices, not capacity held. The
search leaves out any whose start has passed by its own time (``past_start``).
"""

from __future__ import annotations

import csv
import datetime as dt
import math
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

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
from gpuhub_aws.parse import _PRICE_DECIMALS, _local, _money, _timestamp, ec2_items

__all__ = ["DEFAULT_HOURS", "FAMILIES", "LADDER_DAYS", "RATES_DATE", "STARTS", "Answers", "capacity_block_hours",
           "capacity_block_offers", "capacity_block_params", "capacity_block_types", "is_capacity_block_type",
           "next_starts", "parse_capacity_block_offerings", "published_blocks", "published_rates",
           "read_capacity_blocks"]

EC2_API_VERSION = "2016-11-15"
DEFAULT_HOURS = 24
FAMILIES = ("p4d.", "p4de.", "p5.", "p5e.", "p5en.", "p6-b200.", "p6-b300.", "p6e-", "u-p6e-", "trn1.", "trn2.")
"""Instance type prefixes sold as Capacity Blocks for ML (AWS's capacity blocks pricing page, 2026-07)."""


RATES_DATE = dt.date(2026, 7, 22)
"""The date of the published rates (the pricing page as scraped)."""
_RATES = Path(__file__).resolve().parent / "data" / "capacity_block_rates.csv"
BLOCK_START = dt.time(11, 30)
"""Capacity Blocks start and end at 11:30 UTC (the real offerings start then; a shorter block ends then)."""
STARTS = 7
"""How many daily start times are offered (from the next one after the fetch)."""
LADDER_DAYS = (1, 7, 14)
"""Durations offered at the first start, days (AWS: 1-day steps up to 14 days, 7-day steps up to 182)."""


@lru_cache(maxsize=1)
def published_rates() -> dict[tuple[str, str], Decimal]:
    """(instance type, region) -> the published price per instance-hour in USD (``data/capacity_block_rates.csv``)."""
    with _RATES.open(encoding="utf-8") as handle:
        rows = csv.DictReader(line for line in handle if not line.startswith("#"))
        return {(r["instance_type"], r["region"]): Decimal(r["usd_per_instance_hour"]) for r in rows}


def next_starts(now: dt.datetime, count: int = STARTS) -> list[dt.datetime]:
    """The next ``count`` block start times (daily at :data:`BLOCK_START` UTC) strictly after ``now``."""
    now = now.astimezone(dt.timezone.utc)
    first = dt.datetime.combine(now.date(), BLOCK_START, tzinfo=dt.timezone.utc)
    if first <= now:
        first += dt.timedelta(days=1)
    return [first + dt.timedelta(days=n) for n in range(count)]


def published_blocks(ctx: ProviderContext, region: str, types: list[str], instances: Mapping[str, Instance | None],
                     now: dt.datetime, served: set[tuple[str, str]] | None = None) -> Iterator[Offer]:
    """Capacity block windows for the time ``now`` at the published rates of ``region`` (module docstring), of
    ``types`` (empty: every type with a published rate there) but those in ``served``."""
    rates = published_rates()
    starts = next_starts(now)
    unknown = []
    for itype in types or sorted(t for t, r in rates if r == region):
        rate, instance = rates.get((itype, region)), instances.get(itype)
        if rate is None or (region, itype) in (served or ()):
            continue
        if instance is None:
            unknown.append(itype)
            continue
        windows = [(start, 1) for start in starts] + [(starts[0], days) for days in LADDER_DAYS if days > 1]
        for start, days in windows:
            hours = 24 * days
            total = rate * hours
            price = Price(amount=rate, currency="USD", purchase="capacity_block", upfront=total, term_hours=hours,
                          data_date=RATES_DATE, data_origin="AWS capacity blocks pricing page (published rate)")
            reservation = Reservation(start=start, duration_hours=hours, total=total,
                                      note="the published rate for this start time, not an offering: the fee and "
                                           "whether capacity is free come from DescribeCapacityBlockOfferings")
            yield Offer(instance=instance, region=ctx.region(region), price=price, source=ctx.source,
                        obtain=Obtainability(reservation=reservation))
    if unknown:
        ctx.warn(f"{region}: published capacity block rates of {', '.join(unknown)} not offered (no instance facts "
                 "for them in the offer files or the bundled specs)")


def _recorded(ctx: ProviderContext) -> set[tuple[str, str]]:
    """(region, instance type) pairs whose DescribeCapacityBlockOfferings answer the replayed recording holds."""
    from urllib.parse import parse_qs

    found: set[tuple[str, str]] = set()
    for exchange in (ctx.recording.exchanges if ctx.recording is not None else None) or []:
        request = exchange.get("request") or {}
        body = parse_qs(str(request.get("body") or ""))
        url = str(request.get("url") or "")
        if body.get("Action") == ["DescribeCapacityBlockOfferings"] and url.startswith("https://ec2."):
            found.add((url.removeprefix("https://ec2.").split(".", 1)[0], (body.get("InstanceType") or [""])[0]))
    return found


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
    elements, token = ec2_items(body, "DescribeCapacityBlockOfferings", "capacityBlockOfferingSet")
    items: list[dict[str, str]] = []
    for item in elements:
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
    # a computed rate, to the offer files' 10 decimals (not 28 digits of a repeating fraction: 11.7916666667)
    per_hour = (fee / count / Decimal(str(duration))).quantize(_PRICE_DECIMALS)
    price = Price(amount=per_hour, currency=fields.get("currencyCode") or "USD", purchase="capacity_block",
                  upfront=fee, term_hours=math.ceil(duration))
    zone = fields.get("availabilityZone") or None
    reservation = Reservation(start=start, duration_hours=duration, instance_count=count, total=fee,
                              offering_id=fields.get("capacityBlockOfferingId") or None,
                              note="paid up front when purchased, non-refundable")
    return Offer(instance=instance, region=ctx.region(region, zone), price=price, source=ctx.source,
                 obtain=Obtainability(reservation=reservation, capacity=True))  # an offering is capacity held


Answers = dict[str, list[dict[str, str]] | ProviderError]
"""Instance type -> its offerings (field name to text, every page) or the error asking for them."""


def capacity_block_types(ctx: ProviderContext, region: str, types: list[str],
                         instances: Mapping[str, Instance | None]) -> list[str]:
    """The types of ``types`` whose offerings are asked in ``region``: capacity block families that make offers
    (an instance was built), and when replayed only those the recording holds an answer for."""
    recorded = _recorded(ctx) if ctx.mode == "replay" else None
    return [t for t in types if instances.get(t) is not None and is_capacity_block_type(t)
            and (recorded is None or (region, t) in recorded)]


def read_capacity_blocks(ctx: ProviderContext, types: list[str], hours: int,
                         call: Callable[[list[tuple[str, str]]], bytes]) -> Answers:
    """Ask for the offerings of each of ``types`` (``call`` sends one signed EC2 request of the region); a type
    whose call fails has its error instead, and a refusal (:class:`CredentialsError`) ends the walk: no other type
    of the region would be allowed."""
    out: Answers = {}
    for itype in types:
        token: str | None = None
        seen: set[str] = set()
        items: list[dict[str, str]] = []
        try:
            while True:
                page, token = parse_capacity_block_offerings(call(capacity_block_params(itype, hours, token)),
                                                             ctx.skip)
                items += page
                if token is None:
                    break
                if token in seen or len(seen) > 20:
                    raise ProviderError("DescribeCapacityBlockOfferings: pagination loop or page cap")
                seen.add(token)
        except ProviderError as exc:
            out[itype] = exc
            if isinstance(exc, CredentialsError):
                break
            continue
        out[itype] = items
    return out


def capacity_block_offers(ctx: ProviderContext, region: str, answers: Answers | str,
                          instances: Mapping[str, Instance | None],
                          served: set[tuple[str, str]] | None = None) -> Iterator[Offer]:
    """The capacity block offers of ``region`` from the ``answers`` of :func:`read_capacity_blocks` (a text: why
    there are none, e.g. the side sources' time ran out); ``served`` collects the (region, type) pairs that got an
    offering still to come (the provider adds published-rate windows, :func:`published_blocks`, for the others).
    A failed or refused type makes the fetch partial, naming it."""
    if isinstance(answers, str):
        ctx.partial("capacity block offerings that could not be read",
                    detail=f"capacity blocks in {region} unavailable: {answers}"[:300])
        return
    now = dt.datetime.now(dt.timezone.utc)
    for itype, answer in answers.items():
        instance = instances.get(itype)
        if isinstance(answer, CredentialsError):  # not authorized: no type in this region will be
            ctx.partial("capacity block offerings that could not be read",
                        detail=f"capacity blocks in {region} not authorized: {str(answer)[:160]}")
            return
        if isinstance(answer, ProviderError):  # this type only: the region's other types were still asked
            ctx.partial("capacity block offerings that could not be read",
                        detail=f"capacity blocks of {itype} in {region} unavailable: {str(answer)[:160]}")
            continue
        if instance is None:
            continue
        for fields in answer:
            with ctx.guard("capacity block offering"):
                offer = _offer(fields, instance, region, ctx)
                reservation = offer.obtain.reservation if offer.obtain is not None else None
                if reservation is not None and reservation.start is not None and reservation.start < now:
                    ctx.skip("capacity block offering whose start has passed (left out)")
                    continue
                if served is not None:
                    served.add((region, itype))
                yield offer


def capacity_block_hours(ctx: ProviderContext) -> int:
    """The block length asked for, hours (``GPUHUB_AWS_CAPACITY_BLOCK_HOURS``, default :data:`DEFAULT_HOURS`).

    Raises:
        ProviderError: not whole hours from 1 to 4368.
    """
    return _hours(ctx)


def _hours(ctx: ProviderContext) -> int:
    text = ctx.setting("CAPACITY_BLOCK_HOURS") or str(DEFAULT_HOURS)
    try:
        hours = int(text)
    except ValueError:
        raise ProviderError(f"GPUHUB_AWS_CAPACITY_BLOCK_HOURS={text!r}: give whole hours, e.g. 24") from None
    if not 1 <= hours <= 182 * 24:
        raise ProviderError(f"GPUHUB_AWS_CAPACITY_BLOCK_HOURS={text!r}: from 24 to 4368 hours (1 to 182 days)")
    return hours

