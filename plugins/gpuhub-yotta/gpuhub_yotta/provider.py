"""The Yotta provider: GPU pod types from the bundled, dated price table (no HTTP).

Yotta Labs names its pod types by shape: ``1x14v119g_NVIDIA_GeForce_RTX_5090_32G_SECURE`` is 1 GPU, 14 vCPUs and
119 GB of RAM in the secure cloud. The table keeps SkyPilot's catalog rows (USD per instance-hour, on-demand only).
Every row is validated against its own name: the GPU count, vCPUs and RAM the name spells out must equal the row's
columns (a row that contradicts itself is skipped and counted, never guessed); zero or negative prices are skipped;
GPU memory that contradicts the GPU table is warned about.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

from gpuhub.plugin import (
    Instance,
    Offer,
    Price,
    Provider,
    ProviderContext,
    ProviderKind,
    checked_gpu,
    decimal_amount,
    guarded_offers,
    load_price_table,
    placeholder_price,
    table_directory,
)

__all__ = ["POD_NAME", "TABLE_FILE", "Yotta", "pod_shape"]

RECORDING = Path(__file__).resolve().parent / "recording"
TABLE_FILE = "pod_types.json"
POD_NAME = re.compile(r"^(?P<gpus>\d+)x(?P<vcpus>\d+)v(?P<ram>\d+)g_(?P<gpu>.+?)_(?P<cloud>[A-Z]+)$")
"""Yotta's pod type name: ``<GPUs>x<vCPUs>v<RAM GB>g_<GPU name>_<cloud type>``."""


def pod_shape(name: str) -> tuple[int, int, int, str, str] | None:
    """GPUs, vCPUs, RAM GB, GPU name (underscores as spaces) and cloud type a pod type name spells out, or None."""
    match = POD_NAME.match(name)
    if match is None:
        return None
    return (int(match["gpus"]), int(match["vcpus"]), int(match["ram"]), match["gpu"].replace("_", " "),
            match["cloud"].lower())


class Yotta(Provider):
    """Yotta Labs (GPU cloud): a dated static price table; ``fetch`` never touches the network."""

    name: ClassVar[str] = "yotta"
    display_name: ClassVar[str] = "Yotta Labs"
    kind: ClassVar[ProviderKind] = "specialist"
    static: ClassVar[bool] = True
    price_change_period_s: ClassVar[float] = 30 * 86400.0  # list prices

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Every valid pod type of the table (``--fixtures DIR`` replaces it with ``DIR/yotta/pod_types.json``).

        Raises:
            ProviderError: the table is missing, unreadable or lists no pod types.
        """
        data = load_price_table(table_directory(ctx), RECORDING, TABLE_FILE, label="Yotta table",
                                package="gpuhub-yotta", rows="pod_types", rows_label="pod types")
        ctx.warn("Yotta prices are a static table from the SkyPilot catalog (date unknown); Yotta's API lists no "
                 "prices; availability is not published")
        yield from guarded_offers(ctx, data["pod_types"], "pod type", lambda pod: self._offers(ctx, pod),
                                  objects="pod type")

    def _offers(self, ctx: ProviderContext, pod: Mapping[str, Any]) -> list[Offer]:
        name = str(pod["instance_type"])
        shape = pod_shape(name)
        if shape is None:
            ctx.skip("pod type name that does not spell out its shape")
            return []
        gpus, vcpus, ram, gpu_name, cloud = shape
        if (gpus, vcpus, ram) != (pod["gpu_count"], pod["vcpus"], pod["memory_gib"]):
            ctx.skip("row contradicting its pod type name (GPUs, vCPUs or RAM)")
            return []
        if gpus <= 0:
            ctx.skip("pod type without a GPU")
            return []
        amount = decimal_amount(pod.get("price"))
        if amount is None or placeholder_price(amount):
            ctx.skip("missing, zero or negative price (placeholder)")
            return []
        gpu, problem = checked_gpu(ctx, gpu_name, pod.get("gpu_memory_mib"), gpus, unit="MiB per GPU")
        if problem:
            ctx.warn(f"{name}: gpu_memory_mib {problem}")
        instance = Instance(provider=self.name, instance_type=name, gpu=gpu, gpu_count=gpus, fractional=False,
                            vcpus=vcpus, memory_gib=ram, note=f"a Yotta pod in the {cloud} cloud")
        return [Offer(instance=instance, region=ctx.region(str(pod["region"])),
                      price=Price(amount=amount, currency=str(pod["currency"]), purchase="on_demand"),
                      available=None, source=ctx.source)]
