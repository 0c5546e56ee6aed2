"""The Nebius provider: offers from the bundled price table (no HTTP: Nebius prices come through gRPC).

The table names Nebius's own objects: platforms (``gpu-h100-sxm``) with presets (``8gpu-128vcpu-1600gb``:
``resources.vcpu_count``, ``memory_gibibytes``, ``gpu_count``) and the platform's ``gpu_memory_gigabytes``, and one
price per platform, preset and region in USD per instance-hour, on-demand and, where the platform allows
preemptible VMs, preemptible (sold as ``spot``). Every row is validated: CPU-only presets, zero or negative
placeholder prices, unknown platforms or presets and region names that are not Nebius regions are skipped and
counted; GPU memory that contradicts gpuhub's GPU table is warned about.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
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

__all__ = ["FABRICS", "FABRIC_RATES", "REGIONS", "Nebius", "Preset", "load_table", "network_fields"]

RECORDING = Path(__file__).resolve().parent / "recording"
TABLE_FILE = "price_table.json"
REGIONS = ("eu-north1", "eu-west1", "us-central1")
"""Nebius AI Cloud region codes (the ``project.status.region`` values); a price row naming anything else (a display
name, a zone, another cloud's region) is skipped and counted."""
PURCHASES = {"on_demand": "on_demand", "preemptible": "spot"}


@dataclass(frozen=True)
class Preset:
    """One preset of a platform: ``gpu_count`` GPUs, ``vcpu_count`` vCPUs, ``memory_gibibytes`` GiB of RAM."""

    platform: str
    name: str
    gpu_count: int
    vcpu_count: int
    memory_gibibytes: float
    gpu_memory_gigabytes: float | None
    allowed_for_preemptibles: bool
    allow_gpu_clustering: bool | None = None
    """Nebius's ``allow_gpu_clustering`` of the preset (it may join a GPU cluster over InfiniBand); None: the
    table does not say (SkyPilot's file, the bundled table's source, has no such column)."""


def load_table(directory: Path | None = None) -> dict[str, Any]:
    """The price table in ``directory`` (default: the bundled one), decoded.

    Raises:
        ProviderError: the table is missing or not a JSON object (a broken install or a bad ``--fixtures``).
    """
    return load_price_table(directory, RECORDING, TABLE_FILE, label="Nebius price table", package="gpuhub-nebius")


def presets(data: Mapping[str, Any]) -> dict[tuple[str, str], Preset]:
    """Every (platform, preset) of the table's ``platforms``.

    Raises:
        KeyError, TypeError, ValueError: a platform entry is malformed.
    """
    found = {}
    for platform in data["platforms"]:
        memory = platform.get("gpu_memory_gigabytes")
        for preset in platform["presets"]:
            res = preset["resources"]
            found[(platform["name"], preset["name"])] = Preset(
                platform=platform["name"], name=preset["name"], gpu_count=int(res.get("gpu_count") or 0),
                vcpu_count=int(res["vcpu_count"]), memory_gibibytes=float(res["memory_gibibytes"]),
                gpu_memory_gigabytes=float(memory) if memory else None,
                allowed_for_preemptibles=bool(platform.get("allowed_for_preemptibles")),
                allow_gpu_clustering=(bool(preset["allow_gpu_clustering"]) if "allow_gpu_clustering" in preset
                                      else None))
    return found


FABRICS: dict[tuple[str, str], tuple[str, ...]] = {
    ("gpu-h100-sxm", "eu-north1"): ("fabric-2", "fabric-3", "fabric-4", "fabric-6"),
    ("gpu-h200-sxm", "eu-west1"): ("fabric-5",),
    ("gpu-h200-sxm", "eu-north1"): ("fabric-7",),
    ("gpu-h200-sxm", "eu-north2"): ("eu-north2-a",),
    ("gpu-h200-sxm", "us-central1"): ("us-central1-a",),
    ("gpu-b200-sxm", "us-central1"): ("us-central1-b",),
    ("gpu-b200-sxm-a", "me-west1"): ("me-west1-a",),
    ("gpu-b300-sxm", "uk-south1"): ("uk-south1-a",),
}
"""Nebius's InfiniBand fabrics per (platform, region), as its GPU-cluster documentation lists them
(https://docs.nebius.com/compute/clusters/gpu#fabrics; the same table is in dstack's gpuhunt, commit 3584151,
2026-08-19, read 2026-12-02). A preset gets the fabric only where the table says it may join a GPU cluster
(``allow_gpu_clustering``); the rate per VM is not stated there (see :data:`FABRIC_RATES`)."""
FABRIC_SOURCE = ("Nebius docs, GPU clusters (docs.nebius.com/compute/clusters/gpu#fabrics, read 2026-12-02): "
                 "InfiniBand fabric {fabrics} for {platform} in {region}; the preset allows GPU clustering")
FABRIC_RATES: dict[str, tuple[int, int, str]] = {
    "gpu-h200-sxm": (8, 400, "nebius_h200_n64.json"),
    "gpu-b200-sxm": (8, 400, "nebius_b200_n2.json"),
    "gpu-b300-sxm": (8, 800, "nebius_b300_n1.json"),
}
"""InfiniBand adapters per 8-GPU VM and their rate (Gb/s) per platform, from Nebius's own MLPerf Training v5.1
system descriptions (status "Available cloud"; github.com/mlcommons/training_results_v5.1, Nebius/systems/<file>,
``host_networking``: "8x ConnectX-7 IB NDR 400Gb/s" for H200 and B200, "8x ConnectX-8 IB XDR 800Gb/s" for B300;
read 2026-12-02). H100 has no such description: its rate stays unknown."""
RATE_SOURCE = ("; {count} x {rate} Gb/s InfiniBand per VM: Nebius's MLPerf Training v5.1 system description "
               "(mlcommons/training_results_v5.1 Nebius/systems/{file}, host_networking)")


def network_fields(preset: Preset, region: str) -> dict[str, Any]:
    """The :class:`gpuhub.plugin.Instance` fabric fields of a preset in a region: ``fabric="InfiniBand"`` and its
    ``network_source`` where the preset may join a GPU cluster and Nebius documents a fabric for its platform
    there; empty otherwise (unknown stays unknown)."""
    fabrics = FABRICS.get((preset.platform, region))
    if not preset.allow_gpu_clustering or not fabrics:
        return {}
    source = FABRIC_SOURCE.format(fabrics=", ".join(fabrics), platform=preset.platform, region=region)
    fields: dict[str, Any] = {"fabric": "InfiniBand"}
    rate = FABRIC_RATES.get(preset.platform)
    if rate is not None and preset.gpu_count == 8:  # the descriptions are of 8-GPU VMs
        count, gbps, file = rate
        fields.update(fabric_gbps=float(count * gbps), fabric_interfaces=count)
        source += RATE_SOURCE.format(count=count, rate=gbps, file=file)
    return {**fields, "network_source": source}


def gpu_spelling(platform: str) -> str:
    """The GPU spelling of a platform name: ``gpu-h100-sxm`` -> ``H100 SXM``, ``gpu-l40s-a`` -> ``L40S``."""
    parts = platform.split("-")[1:]
    return " ".join(p.upper() for p in parts if len(p) > 1)


class Nebius(Provider):
    """Nebius AI Cloud (GPU specialist): a dated static price table; ``fetch`` never touches the network."""

    name: ClassVar[str] = "nebius"
    display_name: ClassVar[str] = "Nebius AI Cloud"
    kind: ClassVar[ProviderKind] = "specialist"
    price_change_period_s: ClassVar[float] = 30 * 86400.0  # list prices, changed a few times a year
    static: ClassVar[bool] = True

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Every valid offer of the table (``--fixtures DIR`` replaces it with ``DIR/nebius/price_table.json``).

        Raises:
            ProviderError: the table is unusable as a whole (no platforms or no prices: never a silent empty list).
        """
        yield from self.offers_from_table(ctx, load_table(table_directory(ctx)))

    def offers_from_table(self, ctx: ProviderContext, data: Mapping[str, Any]) -> Iterator[Offer]:
        """Offers from a decoded table (``fetch`` passes the bundled one; tests pass their own)."""
        try:
            known = presets(data)
            rows = data["prices"]
            currency = str(data.get("currency") or "USD")
        except (KeyError, TypeError, ValueError) as exc:
            raise ProviderError(f"Nebius price table is malformed ({type(exc).__name__}: {exc})") from None
        if not known or not isinstance(rows, list) or not rows:
            raise ProviderError("Nebius price table lists no platforms or no prices")
        ctx.warn("Nebius prices are a static table from the SkyPilot catalog (date unknown); live prices need "
                 "Nebius's gRPC billing API, which gpuhub does not speak; availability is not published")
        yield from guarded_offers(ctx, rows, "price row", lambda row: self._offers(ctx, known, row, currency))

    def _offers(self, ctx: ProviderContext, known: Mapping[tuple[str, str], Preset], row: Mapping[str, Any],
                currency: str) -> list[Offer]:
        preset = known.get((row["platform"], row["preset"]))
        if preset is None:
            ctx.skip("price for a platform/preset the table does not describe")
            return []
        if preset.gpu_count <= 0:
            ctx.skip("CPU-only preset (no GPU)")
            return []
        region = str(row["region"])
        if region not in REGIONS:
            ctx.skip("region name that is not a Nebius region code")
            return []
        gpu, problem = checked_gpu(ctx, gpu_spelling(preset.platform), preset.gpu_memory_gigabytes,
                                   preset.gpu_count)
        if problem:
            ctx.warn(f"{preset.platform}: gpu_memory_gigabytes {problem}")
        instance = Instance(provider=self.name, instance_type=f"{preset.platform} {preset.name}", gpu=gpu,
                            gpu_count=preset.gpu_count, vcpus=preset.vcpu_count,
                            memory_gib=preset.memory_gibibytes, **network_fields(preset, region))
        offers, skipped = [], False
        for field, purchase in PURCHASES.items():
            amount = decimal_amount(row.get(field), field)
            if amount is None:
                continue
            if placeholder_price(amount):
                ctx.skip(f"placeholder {field} price (zero or negative)")
                skipped = True
                continue
            if purchase == "spot" and not preset.allowed_for_preemptibles:
                ctx.skip("preemptible price for a platform that does not allow preemptible VMs")
                skipped = True
                continue
            offers.append(Offer(instance=instance, region=ctx.region(region),
                                price=Price(amount=amount, currency=currency, purchase=purchase),
                                available=None, source=ctx.source))
        if not offers and not skipped:
            ctx.skip("price row without a usable price")
        return offers
