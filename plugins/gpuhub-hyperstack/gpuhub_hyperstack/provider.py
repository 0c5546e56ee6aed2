"""The Hyperstack provider: offers from the bundled price table (no HTTP; see README for why).

One row per flavor (``n3-H100x8``) and region (``CANADA-1``): the GPU as Hyperstack names it
(``H100-80G-PCIe-NVLink``), GPUs, per-GPU memory in GB, vCPUs, RAM in GB and the on-demand price in USD per
instance-hour. Every row is validated: CPU-only rows, zero or negative placeholder prices and region names that are
not Hyperstack region codes are skipped and counted; GPU memory that contradicts gpuhub's GPU table is warned about.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

from gpuhub.plugin import (
    Instance,
    Offer,
    Price,
    Provider,
    ProviderContext,
    ProviderError,
    ProviderKind,
    checked_gpu,
    decimal_amount,
    guarded_offers,
    load_price_table,
    placeholder_price,
    table_directory,
)

__all__ = ["REGIONS", "Hyperstack", "load_table", "storage_fields"]

RECORDING = Path(__file__).resolve().parent / "recording"
TABLE_FILE = "price_table.json"
REGIONS = ("CANADA-1", "NORWAY-1", "US-1")
"""Hyperstack region codes; a row naming anything else (a city, a lower-case code, a zone) is skipped and counted."""
PURCHASES = {"on_demand": "on_demand", "spot": "spot"}
GIB_PER_GB = 10**9 / 2**30
EPHEMERAL_SOURCE = ("Hyperstack documentation, 'Flavors - GPU/CPU Configurations' "
                    "(https://infrahub-doc.nexgencloud.com/docs/hardware/flavors/, read 2026-12-02), H100-80GB-PCIe "
                    "in CANADA-1: {flavor}, {cpu} CPU cores, {ram} GB RAM, root disk 100 GB, ephemeral disk {gb:,} GB; "
                    "the page names no network bandwidth")
"""Where a flavor's local (ephemeral) disk comes from; the page's figures for the flavor are filled in."""
_EPHEMERAL_GB: dict[str, tuple[int, int, int]] = {
    "n3-H100x1": (28, 180, 750), "n3-H100x2": (60, 360, 1500), "n3-H100x4": (124, 720, 3200),
    "n3-H100x8": (252, 1440, 6500)}
"""Flavor -> (CPU cores, RAM GB, ephemeral disk GB) as Hyperstack's flavors page lists them (the H100 PCIe table,
the only one found); a row whose cores or RAM differ from the page's gets no disk figure."""


def storage_fields(flavor: str, cpu: Any, ram_gb: Any) -> dict[str, Any]:
    """The :class:`gpuhub.plugin.Instance` local-disk fields of a flavor (``storage_gib``: the page's ephemeral disk,
    GB converted to GiB, and its ``network_source``) when the flavors page lists it with these CPU cores and RAM
    (GB); empty otherwise (unknown stays unknown)."""
    known = _EPHEMERAL_GB.get(flavor)
    if known is None or (cpu, ram_gb) != known[:2]:
        return {}
    return {"storage_gib": round(known[2] * GIB_PER_GB, 1),
            "network_source": EPHEMERAL_SOURCE.format(flavor=flavor, cpu=known[0], ram=known[1], gb=known[2])}


def load_table(directory: Path | None = None) -> dict[str, Any]:
    """The price table in ``directory`` (default: the bundled one), decoded.

    Raises:
        ProviderError: the table is missing or not a JSON object.
    """
    return load_price_table(directory, RECORDING, TABLE_FILE, label="Hyperstack price table",
                            package="gpuhub-hyperstack")


class Hyperstack(Provider):
    """Hyperstack by NexGen Cloud (GPU specialist): a dated static price table; ``fetch`` never uses the network."""

    name: ClassVar[str] = "hyperstack"
    display_name: ClassVar[str] = "Hyperstack"
    kind: ClassVar[ProviderKind] = "specialist"
    price_change_period_s: ClassVar[float] = 30 * 86400.0  # list prices, changed a few times a year
    static: ClassVar[bool] = True

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Every valid offer of the table (``--fixtures DIR`` replaces it with ``DIR/hyperstack/``).

        Raises:
            ProviderError: the table lists no flavors (never a silent empty list).
        """
        yield from self.offers_from_table(ctx, load_table(table_directory(ctx)))

    def offers_from_table(self, ctx: ProviderContext, data: Mapping[str, Any]) -> Iterator[Offer]:
        """Offers from a decoded table (``fetch`` passes the bundled one; tests pass their own)."""
        rows = data.get("flavors")
        if not isinstance(rows, list) or not rows:
            raise ProviderError("Hyperstack price table lists no flavors")
        currency = str(data.get("currency") or "USD")
        ctx.warn("Hyperstack prices are a static table from the SkyPilot catalog (date unknown); availability "
                 "is not published")
        yield from guarded_offers(ctx, rows, "flavor row", lambda row: self._offers(ctx, row, currency))

    def _offers(self, ctx: ProviderContext, row: Mapping[str, Any], currency: str) -> list[Offer]:
        count = int(row.get("gpu_count") or 0)
        if count <= 0 or not row.get("gpu"):
            ctx.skip("CPU-only flavor (no GPU)")
            return []
        region = str(row["region"])
        if region not in REGIONS:
            ctx.skip("region name that is not a Hyperstack region code")
            return []
        raw = str(row["gpu"])
        nvlink = raw.lower().endswith("-nvlink")  # a PCIe card with NVLink bridges, not an SXM part
        gpu, problem = checked_gpu(ctx, raw[: -len("-nvlink")] if nvlink else raw, row.get("gpu_memory_gb"), count)
        if problem:
            ctx.warn(f"{row['flavor']}: gpu_memory_gb {problem}")
        instance = Instance(provider=self.name, instance_type=str(row["flavor"]), gpu=gpu, gpu_count=count,
                            vcpus=row.get("cpu"), memory_gib=row.get("ram_gb"),
                            interconnect="NVLink" if nvlink else None,
                            **storage_fields(str(row["flavor"]), row.get("cpu"), row.get("ram_gb")))
        offers, skipped = [], False
        for field, purchase in PURCHASES.items():
            amount = decimal_amount(row.get(field), field)
            if amount is None:
                continue
            if placeholder_price(amount):
                ctx.skip(f"placeholder {field} price (zero or negative)")
                skipped = True
                continue
            offers.append(Offer(instance=instance, region=ctx.region(region),
                                price=Price(amount=amount, currency=currency, purchase=purchase),
                                available=None, source=ctx.source))
        if not offers and not skipped:
            ctx.skip("flavor row without a usable price")
        return offers
