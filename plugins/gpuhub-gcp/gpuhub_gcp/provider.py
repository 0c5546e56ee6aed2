"""The GCP provider: walks the Cloud Billing Catalog's Compute Engine SKUs and prices the bundled machine types.

Live: ``GET https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus?key=…&pageSize=5000[&pageToken=…]``,
following ``nextPageToken`` until it is empty, with an API key from ``GOOGLE_API_KEY`` in the query string (the
recorder scrubs ``key``). Replay: the bundled recording in ``recording/`` (real 2023/2024 SKUs plus SKUs
reconstructed from the SkyPilot GCP catalog). Types are offered only where the zone table (:mod:`gpuhub_gcp.zones`)
says Google sells them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gpuhub.plugin import Credential, Instance, Offer, Price, Provider, ProviderContext, ProviderError
from gpuhub_gcp.machines import ACCELERATORS, MachineType, machine_types
from gpuhub_gcp.network import network_fields
from gpuhub_gcp.obtain import attach_risk, dws_offers
from gpuhub_gcp.parse import Component, Notes, PricedType, PriceIndex, Unpriced, build_index, price_machine_type
from gpuhub_gcp.zones import ZoneTable, zone_table

__all__ = ["COMPUTE_ENGINE_SERVICE", "MAX_PAGES", "GcpProvider", "offers_from_skus"]

COMPUTE_ENGINE_SERVICE = "6F81-5844-456A"
MAX_PAGES = 200
PAGE_SIZE = 5000
_TERM_HOURS = {"reserved_1y": 8760, "reserved_3y": 26280}
_RECORDING = Path(__file__).resolve().parent / "recording"


def _listing(items: Iterable[str], limit: int = 8) -> str:
    items = sorted(set(items))
    text = ", ".join(items[:limit])
    return text + (f" and {len(items) - limit} more" if len(items) > limit else "")


class GcpProvider(Provider):
    """Google Cloud Compute Engine GPU VMs (A2, A3, A4, G2, G4, N1 + T4/V100/P100/P4), priced per component.

    Prices are per instance-hour in the catalog's currency (USD by default); purchase models on_demand, spot,
    reserved_1y and reserved_3y (resource-based commitments). Per-second billing with a one-minute minimum.
    """

    name = "gcp"
    display_name = "Google Cloud"
    kind = "hyperscaler"
    price_change_period_s = 30 * 86400.0  # Google changes Spot VM prices up to once every 30 days
    base_url = "https://cloudbilling.googleapis.com"
    credentials = (Credential(("GOOGLE_API_KEY",), "a Google Cloud API key allowed to call the Cloud Billing API"),)

    def fixtures_dir(self) -> Path:
        """The bundled recording (re-paged real Compute Engine SKUs of 2024-09-16)."""
        return _RECORDING

    def fetch(self, ctx: ProviderContext) -> list[Offer]:
        """Walk every SKU page, then price each machine type in each region and purchase model.

        Raises:
            ProviderError: a page that is not a SKU page, a repeated page token, or more than :data:`MAX_PAGES`
                pages (a partial walk is never returned as a catalog).
        """
        skus = self.walk(ctx)
        offers = attach_risk(offers_from_skus(ctx, skus))  # spot: no published rate (gpuhub_gcp.obtain)
        instances = {o.instance_type: o.instance for o in offers if o.price.purchase == "on_demand"}
        dws = dws_offers(ctx, skus, instances=instances)  # DWS flex-start / calendar (gpuhub_gcp.obtain)
        return offers + [o for o in dws if zone_table().sells(o.instance_type, o.region.code)]

    def walk(self, ctx: ProviderContext) -> list[Any]:
        """All SKU objects of the Compute Engine service, following ``nextPageToken``."""
        key = ctx.require_secret("GOOGLE_API_KEY")
        url = f"{ctx.base_url()}/v1/services/{COMPUTE_ENGINE_SERVICE}/skus"
        skus: list[Any] = []
        token: str | None = None
        seen: set[str] = set()
        for page in range(1, MAX_PAGES + 1):
            params = {"pageSize": str(PAGE_SIZE)}
            if token:
                params["pageToken"] = token
            if key is not None:
                params["key"] = key.get_secret_value()
            data = ctx.get_json(url, params=params)
            if not isinstance(data, dict) or not isinstance(data.get("skus", []), list):
                raise ProviderError(f"page {page} of the SKU list is not a {{'skus': [...]}} object")
            skus.extend(data.get("skus", []))
            token = data.get("nextPageToken") or None
            if token is None:
                return skus
            if not isinstance(token, str) or token in seen:
                raise ProviderError(f"pagination loop: page token {str(token)[:40]!r} came back on page {page}")
            seen.add(token)
        raise ProviderError(f"page cap of {MAX_PAGES} SKU pages hit with a next page token: the list is incomplete")


def offers_from_skus(ctx: ProviderContext, skus: Iterable[Any],
                     machines: Iterable[MachineType] | None = None, zones: ZoneTable | None = None) -> list[Offer]:
    """Offers for ``machines`` (default: the bundled table) priced from ``skus``; findings go to ``ctx``.

    A machine type is offered in a region only where ``zones`` (default: the bundled zone table,
    :mod:`gpuhub_gcp.zones`) says Google sells it; where it is sold but a price is missing, the status says so.
    Types the zone table has no facts for are offered wherever their GPU is priced, and named in the status.
    """
    notes = Notes()
    index = build_index(skus, notes)
    zones = zone_table() if zones is None else zones
    offers: list[Offer] = []
    missing: dict[tuple[str, str], tuple[set[str], set[str]]] = defaultdict(lambda: (set(), set()))
    no_gpu: dict[str, set[str]] = defaultdict(set)
    unpriced_gpu: dict[str, tuple[set[str], set[str]]] = defaultdict(lambda: (set(), set()))
    no_zone_facts: set[str] = set()
    ssd_left_out: set[str] = set()
    instances: dict[tuple[str, bool], Instance] = {}
    for machine in machines if machines is not None else machine_types():
        if not (index.has(Component("gpu", machine.accelerator))
                or index.has(Component("slice", machine.accelerator))):
            no_gpu[machine.accelerator].add(machine.name)
            continue
        sold = zones.regions(machine.name) if zones.covers(machine.name) else None
        for purchase in sorted(machine.purchases):
            priced = index.priced_regions(machine.accelerator, purchase)
            if sold is None:
                regions = priced
                no_zone_facts.update([machine.name] if priced else [])
            else:
                regions = priced & sold
                if sold - priced:  # sold there, but the price list has no GPU price for it (C11: never guessed)
                    names, where = unpriced_gpu[purchase]
                    names.add(machine.name)
                    where.update(sold - priced)
            for region in sorted(regions):
                result = price_machine_type(machine, region, purchase, index)
                if isinstance(result, Unpriced):
                    for component in result.missing:
                        names, where = missing[(component.label(), purchase)]
                        names.add(machine.name)
                        where.add(region)
                    for text in result.ambiguous:
                        notes.warn(f"ambiguous price, not guessed: {text}")
                    continue
                if machine.local_ssd_gib and not result.ssd_included:
                    ssd_left_out.add(machine.name)
                with ctx.guard("machine type"):
                    offers.append(_offer(ctx, instances, result))
    _report(ctx, notes, index, missing, no_gpu, ssd_left_out)
    for purchase, (names, where) in sorted(unpriced_gpu.items()):
        ctx.partial("machine types sold in a region without a GPU price there (not offered there)", len(names),
                    f"no {purchase} GPU price in {_listing(where)} where Google sells {_listing(names, 4)}: "
                    "not offered there")
    if no_zone_facts:
        ctx.warn(f"no zone facts for {_listing(no_zone_facts, 4)}: offered wherever their GPU is priced")
    return offers


def _offer(ctx: ProviderContext, instances: dict[tuple[str, bool], Instance], priced: PricedType) -> Offer:
    machine = priced.machine
    key = (machine.name, priced.ssd_included)
    instance = instances.get(key)
    if instance is None:
        accel = ACCELERATORS[machine.accelerator]
        note = None
        if machine.local_ssd_gib and not priced.ssd_included:
            note = f"price excludes the bundled {machine.local_ssd_gib} GiB local SSD (no Local SSD SKU)"
        # A2/A3/A4 GPUs are SXM modules on NVLink/NVSwitch HGX boards (Google's accelerator-optimized machine
        # family docs); the accelerator name does not say so, and SXM and PCIe parts differ in throughput.
        gpu = ctx.gpu(f"{accel.name} sxm", accel.memory_gib) if machine.name.startswith(("a2-", "a3-", "a4-")) \
            else ctx.gpu(accel.name, accel.memory_gib)
        gpu = gpu.model_copy(update={"raw_name": accel.name})  # the provider's own spelling, as published
        instance = Instance(provider="gcp", instance_type=machine.name, gpu=gpu,
                            gpu_count=machine.gpu_count, vcpus=machine.vcpus, memory_gib=machine.memory_gib,
                            storage_gib=machine.local_ssd_gib or None, interconnect=machine.interconnect,
                            bare_metal=machine.name.endswith("-metal"), tenancy="shared", note=note,
                            control_source="Compute Engine machine families: GPU machine types are VMs on "
                                           "multi-tenant hosts (sole-tenant nodes are sold apart)",
                            **network_fields(machine.name))
        instances[key] = instance
    price = Price(amount=priced.amount, currency=priced.currency, purchase=priced.purchase,
                  term_hours=_TERM_HOURS.get(priced.purchase), billing_increment_s=1, minimum_charge_s=60,
                  data_date=priced.data_date, data_origin=priced.origin, replaced=priced.replaced)
    return Offer(instance=instance, region=ctx.region(priced.region), price=price, source=ctx.source)


def _report(ctx: ProviderContext, notes: Notes, index: PriceIndex,
            missing: dict[tuple[str, str], tuple[set[str], set[str]]], no_gpu: dict[str, set[str]],
            ssd_left_out: set[str]) -> None:
    for reason, count in notes.skipped.items():
        ctx.skip(reason, count)
    if notes.unmatched_gpus:
        listed = _listing(f"{m!r} ({n} SKUs)" for m, n in notes.unmatched_gpus.items())
        ctx.warn(f"GPU SKUs whose model maps to no machine family (not guessed, not used): {listed}")
    if notes.usage_mismatches:
        ctx.warn(f"{len(notes.usage_mismatches)} SKUs whose usageType and description disagree: "
                 f"{'; '.join(notes.usage_mismatches[:3])}")
    for message in notes.warnings:
        ctx.warn(message)
    if index.skus:
        for accelerator, names in sorted(no_gpu.items()):
            ctx.partial("machine types without a GPU price SKU (not offered)", len(names),
                        f"no GPU SKU for {accelerator} in the price list: {_listing(names, 4)} not offered")
    for (label, purchase), (names, regions) in sorted(missing.items()):
        ctx.partial(f"machine types without a {label} price SKU in some regions (not offered there)", len(names),
                    f"no {label} SKU for {purchase} in {_listing(regions)}: {_listing(names, 4)} not offered there")
    if ssd_left_out:
        ctx.warn(f"no Local SSD SKU in the price list: prices of {_listing(ssd_left_out, 4)} exclude the "
                 "bundled local SSD")
    on_demand = {r for (c, p), rs in index.regions.items() if c.kind == "gpu" and p == "on_demand" for r in rs}
    spot = {r for (c, p), rs in index.regions.items() if c.kind == "gpu" and p == "spot" for r in rs}
    if on_demand and on_demand - spot:
        ctx.warn(f"no spot GPU price in regions that have on-demand GPU prices: {_listing(on_demand - spot)}")

