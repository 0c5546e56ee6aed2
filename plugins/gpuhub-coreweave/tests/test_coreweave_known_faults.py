"""Known fault C06 and its kind: a GPU's memory variant taken from the wrong field (or from a per-model default)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

from gpuhub_coreweave.parse import canonical_gpu_name, page_row, parse_quota, read_transcription_plans

import gpuhub
from gpuhub.plugin import Offer, Registry, make_engine

PAGE = "pricing-page-transcription.coreweave.com-pricing.2026-09-20.api-evangelist.yml"


def test_c06_a100_node_is_the_80gb_a100(offers: tuple[Offer, ...]) -> None:
    """The page calls the node just "NVIDIA A100"; its VRAM field says 80 GB: it is an A100-80GB, not the 40 GB A100
    a per-model default would give."""
    a100 = [o for o in offers if o.instance_type == "A100"]
    assert a100 and {o.gpu_name for o in a100} == {"A100-80GB"}
    assert {o.instance.gpu_memory_gib for o in a100} == {80.0}
    assert {o.instance.gpu_memory_total_gib for o in a100} == {640.0}
    assert {o.instance.gpu.raw_name for o in a100 if o.instance.gpu} == {"A100"}


def test_c06_search_a100_80gb_versus_40gb(registry: Registry) -> None:
    engine = make_engine(registry)
    big = gpuhub.search(gpu="A100-80GB", provider="coreweave", purchase="on_demand", engine=engine)
    assert {(o.instance_type, o.price.amount) for o in big} == {("A100", Decimal("21.60"))}
    small = gpuhub.search(gpu="A100", provider="coreweave", engine=engine)
    assert len(small) == 0  # CoreWeave's table has no 40 GB A100 node


def test_c06_label_decides_the_variant_not_another_memory_field(registry: Registry) -> None:
    """A CoreWeave label carries its variant: canonical_gpu_name reads only the label, so no memory figure from
    elsewhere (a node's RAM, a stale VRAM column, a default) can turn the 40 GB A100_NVLINK into an 80 GB part; and
    where the label writes the size, gpuhub's table keeps it against a contradicting memory figure."""
    assert (canonical_gpu_name("A100_NVLINK"), canonical_gpu_name("A100_PCIE_40GB")) == ("A100", "A100")
    assert (canonical_gpu_name("A100_NVLINK_80GB"), canonical_gpu_name("A100_PCIE_80GB")) == ("A100-80GB",) * 2
    gpus = registry.gpus
    assert gpus.resolve("A100_NVLINK").name == "A100"  # type: ignore[union-attr]
    assert gpus.resolve("A100_NVLINK_80GB", 40).name == "A100-80GB"  # type: ignore[union-attr]
    assert gpus.resolve("A100_PCIE_80GB", 40).name == "A100-80GB"  # type: ignore[union-attr]
    assert gpus.resolve("A100_PCIE_40GB", 80).name == "A100"  # type: ignore[union-attr]
    assert gpus.resolve("H100_PCIE").memory_gib == 80  # type: ignore[union-attr]


def test_c06_docs_rows_without_vram_still_get_label_memory(shared_sample: Callable[[str], Path]) -> None:
    """CoreWeave's 2022 docs list A100_PCIE_80GB as "NVIDIA A100 for PCIE" with an empty VRAM column, and
    H100_PCIE with "N/A": the 80 GB comes from the label."""
    import json

    path = shared_sample("resource-based-pricing.tables-by-doc-version.2021-2023.coreweave-kubernetes-cloud-docs.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    seen = set()
    for version in data["versions"]:
        for table in version["tables"]:
            for cells in table["rows"]:
                row = dict(zip(table["header"], cells, strict=False))
                label = row.get("Resource Label") or row.get("Label")
                if label in ("A100_PCIE_80GB", "H100_PCIE") and row.get("VRAM", "") in ("", "N/A"):
                    seen.add((label, row.get("Description")))
                    assert canonical_gpu_name(label) in ("A100-80GB", "H100")
    assert ("A100_PCIE_80GB", "NVIDIA A100 for PCIE") in seen
    assert ("H100_PCIE", "H100 for PCIe (80GB)") in seen


def test_c06_node_ram_and_disk_are_not_gpu_memory() -> None:
    """Per-GPU VRAM comes only from the "GB VRAM" figure, never from "GB RAM" or "TB local storage"."""
    gb200 = parse_quota("4 GPUs, 186 GB VRAM, 144 vCPUs, 960 GB RAM, 30.72 TB local storage")
    assert (gb200.gpus, gb200.vram_gb_per_gpu, gb200.vcpus, gb200.ram_gb, gb200.local_storage_tb) == (
        4, Decimal(186), 144, Decimal(960), Decimal("30.72"))
    ram_first = parse_quota("2,048 GB RAM, 128 vCPUs, 8 GPUs, 180 GB VRAM")
    assert (ram_first.vram_gb_per_gpu, ram_first.ram_gb) == (Decimal(180), Decimal(2048))
    no_vram = parse_quota("8 GPUs, 2,048 GB RAM")
    assert no_vram.vram_gb_per_gpu is None and no_vram.ram_gb == Decimal(2048)


def test_c06_every_page_node_gets_its_own_vram(shared_sample: Callable[[str], Path], registry: Registry) -> None:
    """Each GPU node of the real 2026-09-20 page resolves, with its own VRAM figure, to the GPU of that size."""
    plans = read_transcription_plans(shared_sample(PAGE).read_text(encoding="utf-8"))
    got = {}
    for plan in plans:
        row = page_row(plan)
        if row is None:
            continue
        vram = float(row.quota.vram_gb_per_gpu) if row.quota.vram_gb_per_gpu is not None else None
        spec = registry.gpus.resolve(row.gpu, vram)
        assert spec is not None, row
        got[row.instance_type] = (spec.name, spec.memory_gib)
    assert got == {
        "GB200 NVL72 (4-GPU slice)": ("GB200", 186), "HGX B200": ("B200", 180), "HGX H100": ("H100", 80),
        "HGX H200": ("H200", 141), "A100": ("A100-80GB", 80), "L40S": ("L40S", 48), "L40": ("L40", 48),
        "RTX PRO 6000 Blackwell Server Edition (High Memory)": ("RTXPRO6000", 96), "GH200": ("GH200", 96)}
