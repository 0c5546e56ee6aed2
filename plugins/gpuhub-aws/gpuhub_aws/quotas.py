"""EC2 vCPU quotas from AWS Service Quotas: "you can run N of these here".

``ListServiceQuotas`` (``ServiceCode`` ``ec2``; JSON 1.1 protocol: ``POST https://servicequotas.<region>.amazonaws.com/``
with ``X-Amz-Target: ServiceQuotasV20190624.ListServiceQuotas``, SigV4 service ``servicequotas``) gives each
quota's code, name and value in vCPUs: ``L-417A185B`` "Running On-Demand P instances", ``L-DB2E81BA`` "Running
On-Demand G and VT instances", ``L-7212CCBC`` "All P Spot Instance Requests", ``L-3819A6DF`` "All G and VT Spot
Instance Requests", ... The instance classes come from the quota names themselves ("G and VT" -> G, VT), so a
class AWS adds is read without a table here. N = quota vCPUs // the instance type's vCPUs; it is the limit, not
what is left (usage needs CloudWatch): the note says so.

When: live with credentials (``GPUHUB_AWS_QUOTAS=0`` turns it off); replayed only for the regions the recording
holds an answer for. A refused or failed call never fails the provider: the quota stays unknown, and the offers'
``obtain.checks`` say why.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

from gpuhub.plugin import Obtainability, Offer, ProviderError

__all__ = ["QUOTA_TARGET", "Quotas", "instance_class", "list_quotas_body", "parse_quotas", "quota_error",
           "with_quotas"]

QUOTA_TARGET = "ServiceQuotasV20190624.ListServiceQuotas"
NO_LIVE_CAPACITY = ("capacity: EC2 publishes no live capacity for on-demand or spot (a capacity block offering is "
                    "one)")
_EMPTY = Obtainability()
_ON_DEMAND_RX = re.compile(r"^Running On-Demand (?P<classes>.+?) instances$")
_SPOT_RX = re.compile(r"^All (?P<classes>.+?) Spot Instance Requests$")
_CLASS_RX = re.compile(r"^(?P<letters>[a-z]+)\d")


def list_quotas_body(token: str | None = None) -> str:
    """The JSON body of one ``ListServiceQuotas`` page for EC2 (compact, stable key order)."""
    body: dict[str, object] = {"ServiceCode": "ec2", "MaxResults": 100}
    if token:
        body["NextToken"] = token
    return json.dumps(body, separators=(",", ":"))


def instance_class(instance_type: str) -> str | None:
    """The quota class of an instance type: ``p5.48xlarge`` -> ``P``, ``g6e.xlarge`` -> ``G``, ``vt1.3xlarge`` ->
    ``VT``, ``dl1.24xlarge`` -> ``DL``, ``trn1.32xlarge`` -> ``TRN``; ``gr6`` (G family) -> ``G``."""
    found = _CLASS_RX.match(instance_type)
    if found is None:
        return None
    letters = found.group("letters").upper()
    return "G" if letters == "GR" else letters


def _classes(text: str) -> list[str]:
    text = re.sub(r"\(.*?\)", "", text)
    return [c.strip().upper() for c in re.split(r",| and ", text) if c.strip()]


@dataclass(frozen=True)
class Quotas:
    """vCPU quotas of one region by (class, ``on_demand``/``spot``), with the quota code behind each."""

    region: str
    vcpus: Mapping[tuple[str, str], tuple[float, str]]

    def instances(self, instance_type: str, purchase: str, vcpus: float | None) -> tuple[int, str] | None:
        """How many of ``instance_type`` the quota allows (and the quota code), or None when unknown."""
        klass = instance_class(instance_type)
        kind = "spot" if purchase == "spot" else "on_demand"
        found = self.vcpus.get((klass or "", kind))
        if found is None or not vcpus:
            return None
        return int(found[0] // vcpus), found[1]


def parse_quotas(region: str, pages: Iterable[object], skip: Callable[[str], None]) -> Quotas:
    """Read ``ListServiceQuotas`` answers (decoded JSON) into :class:`Quotas`.

    Raises:
        ValueError: an answer without a ``Quotas`` list.
    """
    out: dict[tuple[str, str], tuple[float, str]] = {}
    for page in pages:
        if not isinstance(page, dict) or not isinstance(page.get("Quotas"), list):
            raise ValueError("the ListServiceQuotas answer has no 'Quotas' list")
        for quota in page["Quotas"]:
            name, code, value = (quota.get("QuotaName"), quota.get("QuotaCode"), quota.get("Value")) \
                if isinstance(quota, dict) else (None, None, None)
            if not isinstance(name, str) or not isinstance(code, str) or not isinstance(value, (int, float)):
                skip("service quota: no name, code or value")
                continue
            for kind, rx in (("on_demand", _ON_DEMAND_RX), ("spot", _SPOT_RX)):
                found = rx.match(name)
                if found:
                    for klass in _classes(found.group("classes")):
                        out[(klass, kind)] = (float(value), code)
    return Quotas(region, out)


def with_quotas(offers: Iterable[Offer], quotas: Mapping[str, Quotas | str]) -> Iterator[Offer]:
    """Each on-demand and spot offer with ``obtain.quota_instances`` (or a check saying why it is unknown)."""
    # Keyed by the base object's id, with the base kept in the value and checked: an id is only unique while its
    # object lives (a freed temporary's id is reused, and would hand one offer another's risk).
    cache: dict[tuple[int, int | None, str], tuple[Obtainability, Obtainability]] = {}
    for offer in offers:
        found = quotas.get(offer.region.code)
        purchase = offer.price.purchase
        if found is None or purchase not in ("on_demand", "spot"):
            yield offer
            continue
        base = offer.obtain or _EMPTY
        check: str | None
        if isinstance(found, str):
            n, check = None, found
        else:
            allowed = found.instances(offer.instance_type, purchase, offer.instance.vcpus)
            n = allowed[0] if allowed else None
            check = None if allowed else (f"quota: no {purchase} vCPU quota for the "
                                          f"{instance_class(offer.instance_type)} class in {found.region}")
        key = (id(base), n, check or "")
        cached = cache.get(key)
        if cached is not None and cached[0] is base:
            obtain = cached[1]
        else:
            checks = base.checks + ((check,) if check else ()) + (NO_LIVE_CAPACITY,)
            obtain = base.model_copy(update={"quota_instances": n, "checks": checks})
            cache[key] = (base, obtain)
        yield offer.model_copy(update={"obtain": obtain})


def quota_error(region: str, exc: ProviderError | ValueError) -> str:
    """The check text of a failed quota call."""
    return f"quota: Service Quotas in {region} failed ({str(exc)[:120]})"
