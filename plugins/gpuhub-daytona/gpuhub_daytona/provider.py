"""The Daytona provider: GPU sandbox shapes from the bundled, dated price table (no HTTP).

Daytona bills a sandbox per second for its GPUs, vCPUs and memory; SkyPilot's catalog states whole-sandbox prices
for 1 to 8 GPUs of each type with 8 vCPUs and 100 GiB (50 GiB for consumer cards) per GPU, on-demand and spot, in
Daytona's shared GPU fleet (region ``earth``). The table keeps those rows as published (USD per instance-hour).
Every row is validated: CPU-only sandboxes, zero or negative prices, GPU counts that are not whole positive
numbers and GPU memory that contradicts the GPU table (warned) are skipped and counted.
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

__all__ = ["TABLE_FILE", "Daytona", "load_table"]

RECORDING = Path(__file__).resolve().parent / "recording"
TABLE_FILE = "price_table.json"
PURCHASES = (("price", "on_demand"), ("spot_price", "spot"))


def load_table(directory: Path | None = None) -> dict[str, Any]:
    """The price table in ``directory`` (default: the bundled one), decoded.

    Raises:
        ProviderError: the table is missing or not a JSON object (a broken install or a bad ``--fixtures``).
    """
    return load_price_table(directory, RECORDING, TABLE_FILE, label="Daytona price table", package="gpuhub-daytona",
                            rows="sandboxes")


class Daytona(Provider):
    """Daytona (sandboxes for AI agents, with GPUs): a dated static price table; ``fetch`` never touches the
    network."""

    name: ClassVar[str] = "daytona"
    display_name: ClassVar[str] = "Daytona"
    kind: ClassVar[ProviderKind] = "specialist"
    static: ClassVar[bool] = True
    price_change_period_s: ClassVar[float] = 30 * 86400.0  # list prices

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Every valid offer of the table (``--fixtures DIR`` replaces it with ``DIR/daytona/price_table.json``).

        Raises:
            ProviderError: the table is unusable as a whole (never a silent empty list).
        """
        data = load_table(table_directory(ctx))
        currency = str(data.get("currency") or "")
        if not currency:
            raise ProviderError("Daytona price table names no currency (prices are never assumed to be USD)")
        ctx.warn("Daytona prices are a static table from the SkyPilot catalog (date unknown): whole-sandbox prices "
                 "of SkyPilot's shapes (8 vCPUs and 100 GiB, or 50 GiB for consumer GPUs, per GPU); disk is billed "
                 "apart; availability is not published")
        yield from guarded_offers(ctx, data["sandboxes"], "sandbox row", lambda row: self._offers(ctx, row, currency),
                                  objects="row")

    def _offers(self, ctx: ProviderContext, row: Mapping[str, Any], currency: str) -> list[Offer]:
        gpu_type = str(row.get("gpu_type") or "").strip()
        count = row.get("gpu_count") or 0
        if not gpu_type or count == 0:
            ctx.skip("CPU-only sandbox (no GPU)")
            return []
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"gpu_count is not a whole number: {count!r}")
        gpu, problem = checked_gpu(ctx, gpu_type, row.get("gpu_memory_mib"), count, unit="MiB per GPU")
        if problem:
            ctx.warn(f"{row['instance_type']}: gpu_memory_mib {problem}")
        instance = Instance(provider=self.name, instance_type=str(row["instance_type"]), gpu=gpu, gpu_count=count,
                            fractional=False, vcpus=float(row["vcpus"]), memory_gib=float(row["memory_gib"]),
                            note="a Daytona GPU sandbox in the shared GPU fleet (ephemeral); disk billed apart")
        offers, placeholders = [], []
        for field, purchase in PURCHASES:
            amount = decimal_amount(row.get(field), field)
            if amount is None:
                continue
            if placeholder_price(amount):
                placeholders.append(f"placeholder {field} (zero or negative)")
                continue
            offers.append(Offer(instance=instance, region=ctx.region(str(row["region"])),
                                price=Price(amount=amount, currency=currency, purchase=purchase,
                                            billing_increment_s=1),
                                available=None, source=ctx.source))
        if not offers:  # the row is skipped once, for its first problem
            ctx.skip(placeholders[0] if placeholders else "sandbox row without a price")
        for problem in placeholders if offers else ():
            ctx.warn(f"{row['instance_type']}: {problem}, left out")
        return offers
