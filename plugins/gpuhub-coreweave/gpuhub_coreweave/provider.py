"""The CoreWeave provider: offers from the bundled, dated price table (no HTTP: CoreWeave has no price API).

Prices are CoreWeave's published whole-node prices in USD per instance-hour (on-demand and, where published, spot),
as read from https://www.coreweave.com/pricing on the table's ``verified_at`` date. The page states them for North
America; they are offered in each general-access North America region listed in the table.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any

from gpuhub.plugin import (
    Instance,
    Offer,
    Price,
    Provider,
    ProviderContext,
    ProviderError,
    guarded_offers,
    load_price_table,
    table_directory,
)
from gpuhub_coreweave.parse import TableMeta, TableRow, row_from_json, storage_tb_to_gib, table_meta

__all__ = ["TABLE_FILE", "CoreWeave", "load_table", "network_fields"]

STORAGE_SOURCE = "CoreWeave pricing page (the price table): local storage in TB (10^12 bytes), converted to GiB"
"""Where a node's local storage figure comes from."""
INFINIBAND_SOURCE = (
    "CoreWeave docs, read 2026-12-02: the HGX H100 node is CKS instance type gd-8xh100ib-i128, an InfiniBand ('ib') "
    "type; 'Use GPUDirect RDMA with InfiniBand' (docs.coreweave.com/products/networking/hpc-interconnect/"
    "use-gpudirect-rdma) lists GPUDirect RDMA over InfiniBand for such types; the rate per node is not published "
    "there")
"""Where the HGX H100's fabric comes from (no rate: the pages found state none)."""
_FABRICS = {"HGX H100": "InfiniBand"}
"""Instance types whose inter-node fabric CoreWeave documents; every other type's fabric stays unknown."""


def network_fields(instance_type: str, has_storage: bool) -> dict[str, Any]:
    """The :class:`gpuhub.plugin.Instance` fabric fields of a price-table row (``fabric``) and the
    ``network_source`` naming where they and the row's local storage come from; empty when neither is known."""
    fabric = _FABRICS.get(instance_type)
    sources = [s for s, known in ((INFINIBAND_SOURCE, fabric), (STORAGE_SOURCE, has_storage)) if known]
    fields: dict[str, Any] = {"fabric": fabric} if fabric else {}
    if sources:
        fields["network_source"] = "; ".join(sources)
    return fields

TABLE_FILE = "price_table.json"


def _recording_dir() -> Path:
    return Path(str(resources.files("gpuhub_coreweave").joinpath("recording")))


def load_table(directory: Path | None = None) -> dict[str, Any]:
    """The price table in ``directory`` (default: the bundled one), decoded.

    Raises:
        ProviderError: the table is missing or not valid JSON (a broken installation or a bad ``--fixtures``).
    """
    return load_price_table(directory, _recording_dir(), TABLE_FILE, label="CoreWeave price table",
                            package="gpuhub-coreweave")


class CoreWeave(Provider):
    """CoreWeave (GPU specialist cloud): a static price table; ``fetch`` never touches the network."""

    name = "coreweave"
    display_name = "CoreWeave"
    kind = "specialist"
    price_change_period_s = 30 * 86400.0  # a static list-price table, read from the pricing page
    static = True

    def fixtures_dir(self) -> Path:
        """The bundled recording: ``manifest.json`` (provenance, no exchanges) and ``price_table.json``."""
        return _recording_dir()

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Every offer of the bundled table: each node type x region x purchase model with a published price.

        Raises:
            ProviderError: the table or its header is unusable, or it lists no regions (never a silent empty
                catalog). A malformed row is skipped and counted instead.
        """
        # ``--fixtures DIR`` (DIR/coreweave/) replaces the bundled table: the engine hands over its manifest.
        yield from self.offers_from_table(ctx, load_table(table_directory(ctx)))

    def offers_from_table(self, ctx: ProviderContext, data: Mapping[str, Any]) -> Iterator[Offer]:
        """Offers from a decoded price table (``fetch`` passes the bundled one; tests pass their own)."""
        try:
            meta = table_meta(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise ProviderError(f"CoreWeave price table header is malformed ({type(exc).__name__}: {exc}); "
                                "reinstall gpuhub-coreweave") from None
        if not meta.regions:
            raise ProviderError("CoreWeave price table lists no regions to offer its prices in")
        items = data.get("instances")
        if not isinstance(items, list) or not items:
            raise ProviderError("CoreWeave price table lists no instance types")
        ctx.warn(f"CoreWeave publishes one {meta.price_region} price per node type (verified "
                 f"{meta.verified_at.isoformat()}, {meta.source_url}); it is offered in all {len(meta.regions)} "
                 f"general-access {meta.price_region} regions, and per-region availability is not published")
        yield from guarded_offers(ctx, items, "price table row",
                                  lambda item: self._offers(ctx, meta, row_from_json(item)), objects="row")

    def _offers(self, ctx: ProviderContext, meta: TableMeta, row: TableRow) -> list[Offer]:
        gpu = ctx.gpu(row.gpu, row.gpu_memory_gb)
        note = (f"CoreWeave list price for {meta.price_region} (pricing page, verified "
                f"{meta.verified_at.isoformat()}); region availability not published")
        if row.note:
            note = f"{note}; {row.note}"
        instance = Instance(
            provider=self.name, instance_type=row.instance_type, gpu=gpu, gpu_count=row.gpu_count,
            fractional=False, vcpus=row.vcpus, memory_gib=row.ram_gb,
            storage_gib=storage_tb_to_gib(row.local_storage_tb) if row.local_storage_tb is not None else None,
            **network_fields(row.instance_type, row.local_storage_tb is not None), cpu_arch=row.cpu_arch,
            note=note, bare_metal=True, tenancy="dedicated",
            control_source="CoreWeave: GPU instances are bare-metal nodes of CoreWeave Kubernetes Service")
        prices: list[Price] = []
        for purchase, amount in row.prices.items():
            if amount <= Decimal(0):
                ctx.skip(f"{purchase} price {amount} is not a price (placeholder)")
                continue
            prices.append(Price(amount=amount, currency=meta.currency, purchase=purchase,
                                billing_increment_s=meta.billing_increment_s,
                                basis=f"CoreWeave list price for {meta.price_region}, the same in every region"))
        if not prices:
            ctx.skip("price table row without a positive price")
            return []
        return [Offer(instance=instance, region=ctx.region(code), price=price, available=None, source=ctx.source)
                for price in prices for code in meta.regions]
