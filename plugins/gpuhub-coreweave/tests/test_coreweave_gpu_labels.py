"""CoreWeave's own GPU labels resolve to canonical GPUs, through parse.py and through gpuhub's GPU table."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from gpuhub_coreweave.parse import GPU_LABELS, canonical_gpu_name, cpu_arch_for, gpu_label

from gpuhub.plugin import Registry

# Every CoreWeave label that has a canonical GPU, with the GPU, form factor and memory CoreWeave's docs give.
EXPECTED = {
    "H100_NVLINK_80GB": ("H100", "SXM", 80),
    "H100_PCIE": ("H100", "PCIe", 80),
    "H100_SXM5": ("H100", "SXM", 80),
    "H200": ("H200", "SXM", 141),
    "A100_NVLINK": ("A100", "SXM", 40),
    "A100_NVLINK_80GB": ("A100-80GB", "SXM", 80),
    "A100_PCIE_40GB": ("A100", "PCIe", 40),
    "A100_PCIE_80GB": ("A100-80GB", "PCIe", 80),
    "A40": ("A40", "PCIe", 48),
    "RTX_A6000": ("RTXA6000", "PCIe", 48),
    "Quadro_RTX_6000": ("RTX6000", "PCIe", 24),
    "Tesla_V100_NVLINK": ("V100", "SXM", 16),
    "Tesla_V100_PCIE": ("V100", "PCIe", 16),
    "Tesla_V100": ("V100", "PCIe", 16),
    "Tesla_P100_NVLINK": ("P100", "SXM", 16),
    "L40": ("L40", "PCIe", 48),
    "L40S": ("L40S", "PCIe", 48),
    "GH200": ("GH200", "Superchip", 96),
    "B200": ("B200", "SXM", 180),
    "GB200": ("GB200", "Superchip", 186),
    "RTX_A5000": ("RTXA5000", "PCIe", 24),
    "RTX_A4000": ("RTXA4000", "PCIe", 16),
}
# Labels of GPUs gpuhub's table does not have: they must stay unknown, never become a neighbouring model.
NO_CANONICAL = {"Quadro_RTX_5000": 16, "Quadro_RTX_4000": 8}


@pytest.mark.parametrize("label", sorted(EXPECTED))
def test_label_to_canonical(label: str) -> None:
    name, form, memory = EXPECTED[label]
    assert canonical_gpu_name(label) == name
    assert canonical_gpu_name(label.lower()) == name
    spec = gpu_label(label)
    assert spec is not None and (spec.form_factor, spec.memory_gib) == (form, memory)


@pytest.mark.parametrize("label", sorted(EXPECTED))
def test_label_resolves_through_gpu_table(registry: Registry, label: str) -> None:
    name, _, memory = EXPECTED[label]
    spec = registry.gpus.resolve(label)
    assert spec is not None, label
    assert (spec.name, spec.memory_gib) == (name, memory)
    assert registry.gpus.lookup(label) == name


@pytest.mark.parametrize("label", sorted(NO_CANONICAL))
def test_labels_without_canonical_gpu_stay_unknown(registry: Registry, label: str) -> None:
    assert canonical_gpu_name(label) is None
    assert gpu_label(label) is not None and gpu_label(label).memory_gib == NO_CANONICAL[label]  # type: ignore[union-attr]
    assert registry.gpus.resolve(label) is None
    gpu = registry.gpus.to_gpu(label, NO_CANONICAL[label])
    assert not gpu.known and gpu.raw_name == label


def test_every_label_is_covered() -> None:
    assert set(GPU_LABELS) == set(EXPECTED) | set(NO_CANONICAL)
    assert canonical_gpu_name("H100_NVLINK_96GB") is None  # an unknown label is not guessed


def test_cpu_arch() -> None:
    assert (cpu_arch_for("GH200"), cpu_arch_for("GB200"), cpu_arch_for("H100"), cpu_arch_for(None)) == (
        "arm64", "arm64", "x86_64", "x86_64")


def _docs_gpu_rows(path: Path) -> list[dict[str, str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = []
    for version in data["versions"]:
        for table in version["tables"]:
            if "GPU" not in table["heading"]:
                continue
            for cells in table["rows"]:
                row = dict(zip(table["header"], cells, strict=False))
                row["label"] = row.get("Resource Label") or row.get("Label") or ""
                row["date"] = version["commit_date"]
                if row.get("Type", "GPU") == "GPU":
                    rows.append(row)
    return rows


def test_every_label_in_coreweave_docs_is_mapped(shared_sample: Callable[[str], Path]) -> None:
    """Every GPU label of every version of CoreWeave's pricing docs (2021-2023) is known, and where the docs give
    VRAM, it is the memory the label maps to."""
    path = shared_sample("resource-based-pricing.tables-by-doc-version.2021-2023.coreweave-kubernetes-cloud-docs.json")
    rows = _docs_gpu_rows(path)
    labels = {r["label"] for r in rows}
    assert len(labels) == 17 and "A100_PCIE_80GB" in labels
    assert labels <= set(GPU_LABELS), labels - set(GPU_LABELS)
    for row in rows:
        vram = row.get("VRAM", "")
        if vram and vram != "N/A":
            spec = gpu_label(row["label"])
            assert spec is not None and vram.startswith(f"{spec.memory_gib}GB"), (row, spec)
