"""Pure parsing for CoreWeave: GPU labels, the pricing page's wording, and the bundled price table.

CoreWeave has no price API. Its prices are whole-node prices per instance-hour in USD, published on
https://www.coreweave.com/pricing. The plugin ships them as a versioned table (``recording/price_table.json``),
built by ``scripts/build_recording.py`` from a transcription of that page; the functions here turn the page's
wording into table rows and the table into typed rows. Nothing here does I/O.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = [
    "GPU_LABELS",
    "GRACE_GPUS",
    "GpuLabel",
    "PageRow",
    "Quota",
    "TableMeta",
    "TableRow",
    "canonical_gpu_name",
    "cpu_arch_for",
    "gpu_label",
    "page_row",
    "parse_money",
    "parse_quota",
    "parse_spot",
    "read_transcription_plans",
    "row_from_json",
    "storage_tb_to_gib",
    "table_meta",
]


# --- CoreWeave's GPU labels ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GpuLabel:
    """One CoreWeave GPU label (``gpu.nvidia.com/class`` node label) and the GPU it names.

    Attributes:
        label: CoreWeave's spelling, e.g. ``"A100_PCIE_80GB"``.
        canonical: gpuhub's canonical GPU name, or None when gpuhub's GPU table has no such GPU.
        form_factor: ``SXM`` (CoreWeave writes "NVLINK"/"HGX"), ``PCIe`` or ``Superchip``.
        memory_gib: memory per GPU in GiB, as CoreWeave's docs state it for this label.
        source: where the label and its memory come from.
    """

    label: str
    canonical: str | None
    form_factor: str
    memory_gib: int
    source: str


_DOCS = "CoreWeave docs, resource-based pricing tables 2021-2023 (coreweave/kubernetes-cloud)"
_SKYPILOT = "SkyPilot's CoreWeave label formatter"
_CKS = "CoreWeave pricing page 2026-09-20 (current GPU models)"

GPU_LABELS: dict[str, GpuLabel] = {g.label: g for g in (
    # The memory of each label is the one CoreWeave's docs give for that label: the 80 GB parts say so in the
    # label (their docs' VRAM column is empty or "N/A"), the bare A100_NVLINK is the 40 GB part (known fault C06).
    GpuLabel("H100_NVLINK_80GB", "H100", "SXM", 80, _DOCS),
    GpuLabel("H100_PCIE", "H100", "PCIe", 80, _DOCS),
    GpuLabel("H100_SXM5", "H100", "SXM", 80, _SKYPILOT),
    GpuLabel("H200", "H200", "SXM", 141, _SKYPILOT),
    GpuLabel("A100_NVLINK", "A100", "SXM", 40, _DOCS),
    GpuLabel("A100_NVLINK_80GB", "A100-80GB", "SXM", 80, _DOCS),
    GpuLabel("A100_PCIE_40GB", "A100", "PCIe", 40, _DOCS),
    GpuLabel("A100_PCIE_80GB", "A100-80GB", "PCIe", 80, _DOCS),
    GpuLabel("A40", "A40", "PCIe", 48, _DOCS),
    GpuLabel("RTX_A6000", "RTXA6000", "PCIe", 48, _DOCS),
    GpuLabel("RTX_A5000", "RTXA5000", "PCIe", 24, _DOCS),
    GpuLabel("RTX_A4000", "RTXA4000", "PCIe", 16, _DOCS),
    GpuLabel("Quadro_RTX_6000", "RTX6000", "PCIe", 24, _DOCS),
    GpuLabel("Quadro_RTX_5000", None, "PCIe", 16, _DOCS),
    GpuLabel("Quadro_RTX_4000", None, "PCIe", 8, _DOCS),
    GpuLabel("Tesla_V100_NVLINK", "V100", "SXM", 16, _DOCS),
    GpuLabel("Tesla_V100_PCIE", "V100", "PCIe", 16, _DOCS),
    GpuLabel("Tesla_V100", "V100", "PCIe", 16, _DOCS),  # the 2021 docs: "NVIDIA V100 for PCIe"
    GpuLabel("Tesla_P100_NVLINK", "P100", "SXM", 16, _DOCS),
    GpuLabel("L40", "L40", "PCIe", 48, _CKS),
    GpuLabel("L40S", "L40S", "PCIe", 48, _CKS),
    GpuLabel("GH200", "GH200", "Superchip", 96, _CKS),
    GpuLabel("B200", "B200", "SXM", 180, _CKS),
    GpuLabel("GB200", "GB200", "Superchip", 186, _CKS),
)}
_LABELS_LOWER = {label.lower(): spec for label, spec in GPU_LABELS.items()}

GRACE_GPUS = frozenset({"GH200", "GB200"})
"""Canonical GPUs that come with NVIDIA Grace (Arm) host CPUs: their nodes are ``arm64``."""


def gpu_label(label: str) -> GpuLabel | None:
    """The :class:`GpuLabel` for a CoreWeave GPU label (any case, surrounding spaces ignored), or None."""
    return _LABELS_LOWER.get(label.strip().lower())


def canonical_gpu_name(label: str) -> str | None:
    """gpuhub's canonical GPU name for a CoreWeave GPU label, e.g. ``A100_PCIE_80GB`` -> ``A100-80GB``.

    The memory variant comes from the label itself (``A100_NVLINK`` is the 40 GB A100, ``A100_NVLINK_80GB`` the
    80 GB one), never from another field. Returns None for an unknown label and for a label whose GPU gpuhub's
    table does not have (``Quadro_RTX_5000``, ``Quadro_RTX_4000``).
    """
    spec = gpu_label(label)
    return spec.canonical if spec else None


def cpu_arch_for(canonical_gpu: str | None) -> str:
    """``arm64`` for Grace superchip nodes (GH200, GB200), else ``x86_64``."""
    return "arm64" if canonical_gpu in GRACE_GPUS else "x86_64"


# --- the pricing page's wording ---------------------------------------------------------------------------------

_MONEY = re.compile(r"\$\s*(\d[\d,]*(?:\.\d+)?)")
_SPOT = re.compile(r"\bspot(?:\s+price)?\s*:?\s*\$\s*(\d[\d,]*(?:\.\d+)?)\s*(?:/\s*hour)?\s*(?:\(([^)]*)\))?", re.I)


def _number(text: str) -> Decimal:
    try:
        value = Decimal(text.replace(",", ""))
    except InvalidOperation:
        raise ValueError(f"not a number: {text!r}") from None
    if not value.is_finite():
        raise ValueError(f"not a finite number: {text!r}")
    return value


def parse_money(text: str | None) -> Decimal | None:
    """The first dollar amount in a price text (``"$49.24"`` -> 49.24, ``"$1,250"`` -> 1250), exact.

    Returns None when the text has no dollar amount (``"Contact sales"``, ``"Free"``, None).
    """
    if not text:
        return None
    match = _MONEY.search(text)
    return _number(match.group(1)) if match else None


def parse_spot(text: str | None) -> tuple[Decimal, str | None] | None:
    """The spot price per instance-hour in a page text, and the region note in parentheses.

    ``"Spot Price: $19.71 / Hour (NA)"`` -> ``(19.71, "NA")``; ``"Spot $9.65/hour (NA)"`` -> ``(9.65, "NA")``.
    Returns None when the text names no spot price.
    """
    if not text:
        return None
    match = _SPOT.search(text)
    if not match:
        return None
    note = match.group(2).strip() if match.group(2) else None
    return _number(match.group(1)), note


@dataclass(frozen=True)
class Quota:
    """What one node includes, as the page states it. GB/TB are the page's units; None when not stated."""

    gpus: int | None = None
    vram_gb_per_gpu: Decimal | None = None
    vcpus: int | None = None
    ram_gb: Decimal | None = None
    local_storage_tb: Decimal | None = None


_Q_GPUS = re.compile(r"(\d+)\s*GPUs?\b", re.I)
_Q_VRAM = re.compile(r"(\d[\d,.]*)\s*GB\s+VRAM\b", re.I)
_Q_VCPUS = re.compile(r"(\d[\d,]*)\s*vCPUs?\b", re.I)
_Q_RAM = re.compile(r"(\d[\d,.]*)\s*GB\s+RAM\b", re.I)
_Q_STORAGE = re.compile(r"(\d[\d,.]*)\s*TB\s+local\s+storage\b", re.I)


def parse_quota(text: str | None) -> Quota:
    """Parse the page's "included" text, e.g. ``"8 GPUs, 180 GB VRAM, 128 vCPUs, 2,048 GB RAM"``.

    Each figure is taken from its own labelled field: VRAM (per GPU) only from "GB VRAM", host RAM only from
    "GB RAM", local storage only from "TB local storage" — a node's RAM or disk is never read as GPU memory.
    """
    if not text:
        return Quota()

    def find(rx: re.Pattern[str]) -> Decimal | None:
        match = rx.search(text)
        return _number(match.group(1)) if match else None

    gpus, vcpus = find(_Q_GPUS), find(_Q_VCPUS)
    return Quota(gpus=int(gpus) if gpus is not None else None, vram_gb_per_gpu=find(_Q_VRAM),
                 vcpus=int(vcpus) if vcpus is not None else None, ram_gb=find(_Q_RAM),
                 local_storage_tb=find(_Q_STORAGE))


@dataclass(frozen=True)
class PageRow:
    """One GPU node of the pricing page, normalized: prices are USD per instance-hour."""

    page_name: str
    instance_type: str
    gpu: str
    quota: Quota
    on_demand: Decimal
    spot: Decimal | None
    price_region_note: str | None


_PURCHASE_SUFFIX = re.compile(r"\s*\((?:on-demand|on demand)[^)]*\)\s*$", re.I)
_NVL = re.compile(r"\bNVL(\d+)\b", re.I)


def page_row(plan: Mapping[str, Any]) -> PageRow | None:
    """A GPU node from one plan of the page transcription, or None for what is not a priced GPU node.

    ``plan`` has the transcription's keys: ``name``, ``price_text`` (on-demand, per hour), ``included_quota``
    and ``overage`` (where the transcription put the spot price). Returns None for storage, network and CPU-only
    rows (no GPUs), and for "Contact sales" rows (no on-demand price).
    """
    name = str(plan.get("name", "")).strip()
    quota = parse_quota(plan.get("included_quota"))
    on_demand = parse_money(plan.get("price_text"))
    if not name or not quota.gpus or on_demand is None:
        return None
    if str(plan.get("unit", "per hour")).strip().lower() not in ("per hour", "hour", "per-hour"):
        return None
    spot = parse_spot(plan.get("overage"))
    base = _PURCHASE_SUFFIX.sub("", name)
    base = re.sub(r"^NVIDIA\s+", "", base).strip()
    instance_type = base
    nvl = _NVL.search(base)
    if nvl and quota.gpus < int(nvl.group(1)):
        instance_type = f"{base} ({quota.gpus}-GPU slice)"
    region_note = spot[1] if spot else None
    if re.search(r"north america", name, re.I):
        region_note = "North America"
    return PageRow(page_name=name, instance_type=instance_type, gpu=base, quota=quota, on_demand=on_demand,
                   spot=spot[0] if spot else None, price_region_note=region_note)


def storage_tb_to_gib(tb: Decimal | float) -> float:
    """Decimal terabytes (a disk's marketed size) to GiB, to 0.1 GiB: 30.72 TB -> 28610.2 GiB."""
    return round(float(tb) * 1e12 / 2**30, 1)


def read_transcription_plans(text: str) -> list[dict[str, str]]:
    """The ``plans:`` list of a pricing-page transcription YAML file, as string dicts.

    Reads the subset of YAML those files use (a top-level ``plans:`` sequence of flat mappings with plain,
    single- or double-quoted scalars), so no YAML library is needed. Keys outside ``plans`` are ignored.
    """
    plans: list[dict[str, str]] = []
    in_plans = False
    current: dict[str, str] | None = None
    last_key: str | None = None
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        line = raw.strip()
        if indent == 0 and not line.startswith("- "):
            in_plans = line == "plans:"
            current, last_key = None, None
            continue
        if not in_plans:
            continue
        if line.startswith("- "):
            current = {}
            plans.append(current)
            line = line[2:]
        if current is None:
            continue
        match = re.match(r"^([A-Za-z_][\w-]*):\s*(.*)$", line)
        if match and (indent <= 2 or last_key is None):
            last_key = match.group(1)
            current[last_key] = _scalar(match.group(2))
        elif last_key is not None:  # a folded continuation line of the previous value
            current[last_key] = f"{current[last_key]} {_scalar(line)}".strip()
    return plans


def _scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1].replace('\\"', '"')
    if text.startswith("'"):  # opening quote of a multi-line scalar
        return text[1:].replace("''", "'")
    if text.endswith("'"):
        return text[:-1].replace("''", "'")
    return text


# --- the bundled price table --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TableMeta:
    """The price table's header: provenance and where its prices apply.

    Attributes:
        verified_at: the date the prices were read from the page.
        source_url: the pricing page.
        currency: ISO 4217 code of every price.
        price_region: where the page says the prices apply (``"North America"``).
        regions: CoreWeave region codes the prices are offered in.
        region_rule: how ``regions`` was chosen.
        billing_increment_s: billing granularity, seconds.
    """

    verified_at: dt.date
    source_url: str
    currency: str
    price_region: str
    regions: tuple[str, ...]
    region_rule: str
    billing_increment_s: int | None = None


@dataclass(frozen=True)
class TableRow:
    """One node type of the price table. Prices are per instance-hour in the table's currency.

    Attributes:
        gpu: the GPU as CoreWeave's page names it (resolved through gpuhub's GPU table with ``gpu_memory_gb``).
        gpu_memory_gb: memory per GPU from the page's VRAM figure (GB as marketed).
        ram_gb: host RAM as published (the page's "GB" are binary sizes: 2,048 GB); None when not published.
        local_storage_tb: local NVMe in decimal TB; None when not published.
        prices: purchase model -> price per instance-hour; a purchase with no published price is absent.
    """

    instance_type: str
    page_name: str
    gpu: str
    gpu_count: int
    gpu_memory_gb: float | None
    vcpus: int | None
    ram_gb: float | None
    local_storage_tb: float | None
    cpu_arch: str
    prices: dict[str, Decimal] = field(default_factory=dict)
    note: str | None = None


_PURCHASE_KEYS = ("on_demand", "spot")


def table_meta(data: Mapping[str, Any]) -> TableMeta:
    """The header of a price table (the decoded ``price_table.json``).

    Raises:
        KeyError, TypeError, ValueError: the header is missing a field or has one of the wrong shape.
    """
    regions = data["regions"]
    if not isinstance(regions, list) or not all(isinstance(r, str) and r for r in regions):
        raise ValueError("'regions' must be a list of region codes")
    increment = data.get("billing_increment_s")
    return TableMeta(verified_at=dt.date.fromisoformat(str(data["verified_at"])),
                     source_url=str(data["source_url"]), currency=str(data["currency"]),
                     price_region=str(data["price_region"]), regions=tuple(regions),
                     region_rule=str(data.get("region_rule", "")),
                     billing_increment_s=int(increment) if increment is not None else None)


def _opt_float(value: Any) -> float | None:
    if value is None:
        return None
    number = float(value)
    if number != number or number < 0:
        raise ValueError(f"bad size {value!r}")
    return number


def row_from_json(item: Mapping[str, Any]) -> TableRow:
    """One table row from its JSON object. Prices are decimal strings and keep their exact digits.

    Raises:
        KeyError, TypeError, ValueError: a required field is missing or malformed (GPU count not a positive
            whole number, a price that is not a number).
    """
    count = item["gpu_count"]
    if isinstance(count, bool) or not isinstance(count, int) or count <= 0:
        raise ValueError(f"gpu_count must be a positive whole number, not {count!r}")
    prices: dict[str, Decimal] = {}
    for key in _PURCHASE_KEYS:
        value = item.get(key)
        if value is None or value == "":
            continue
        if isinstance(value, float):
            raise TypeError(f"{key} must be a decimal string (exact), not a float")
        prices[key] = _number(str(value))
    vcpus = item.get("vcpus")
    return TableRow(instance_type=str(item["instance_type"]).strip() or _missing("instance_type"),
                    page_name=str(item.get("page_name", "")), gpu=str(item["gpu"]).strip() or _missing("gpu"),
                    gpu_count=count, gpu_memory_gb=_opt_float(item.get("gpu_memory_gb")),
                    vcpus=int(vcpus) if vcpus is not None else None, ram_gb=_opt_float(item.get("ram_gb")),
                    local_storage_tb=_opt_float(item.get("local_storage_tb")),
                    cpu_arch=str(item.get("cpu_arch", "x86_64")), prices=prices,
                    note=str(item["note"]) if item.get("note") else None)


def _missing(name: str) -> str:
    raise ValueError(f"{name} is empty")

