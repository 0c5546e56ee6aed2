from __future__ import annotations

import pytest

from gpuhub import GpuSpec, Registry, UnknownGpuError, hookimpl

SPELLINGS = {
    "Tesla V100-SXM2-16GB": ("V100", "SXM", 16),
    "nvidia-tesla-a100": ("A100", "SXM", 40),
    "nvidia-a100-80gb": ("A100-80GB", "SXM", 80),
    "nvidia-h100-mega-80gb": ("H100", "SXM", 80),
    "H100_NVLINK_80GB": ("H100", "SXM", 80),
    "A100 80GB SXM4": ("A100-80GB", "SXM", 80),
    "NVIDIA H100 80GB HBM3": ("H100", "SXM", 80),
    "A10G": ("A10G", "PCIe", 24),
    "RTX PRO Server 6000": ("RTXPRO6000", "PCIe", 96),
    "A100 (40 GB PCIe)": ("A100", "PCIe", 40),
    "A100 (80 GB SXM4)": ("A100-80GB", "SXM", 80),
    "H100 (80 GB PCIe)": ("H100", "PCIe", 80),
    "A100_PCIE_40GB": ("A100", "PCIe", 40),
    "RTX_A6000": ("RTXA6000", "PCIe", 48),
    "H100 NVL": ("H100-NVL", "PCIe", 94),
    "nvidia-l4": ("L4", "PCIe", 24),
    "Tesla T4": ("T4", "PCIe", 16),
    "V100 32GB": ("V100-32GB", "SXM", 32),
}


@pytest.mark.parametrize("raw", sorted(SPELLINGS))
def test_provider_spellings_resolve_to_canonical_names(registry: Registry, raw: str) -> None:
    spec = registry.gpus.resolve(raw)
    assert spec is not None
    assert (spec.name, spec.form_factor, spec.memory_gib) == SPELLINGS[raw]


@pytest.mark.parametrize(("typed", "expected"), [
    ("a100-80", ("A100-80GB", None)), ("A100 80", ("A100-80GB", None)), ("v100-32", ("V100-32GB", None)),
    ("H100 PCIe", ("H100", "PCIe")), ("h100-sxm", ("H100", "SXM")), ("H100 NVL", ("H100-NVL", None)),
    ("nvidia-tesla-t4", ("T4", None)), ("A100 (80 GB SXM4)", ("A100-80GB", "SXM")), ("h100", ("H100", None)),
])
def test_user_spellings(registry: Registry, typed: str, expected: tuple[str, str | None]) -> None:
    assert registry.gpus.lookup_form(typed) == expected


@pytest.mark.parametrize("typed", ["H100\U0001f4a5", "not an a100 but 80gb", "H100 maybe", "a100-81", "x"])
def test_user_junk_is_an_error_not_a_guess(registry: Registry, typed: str) -> None:
    with pytest.raises(UnknownGpuError):
        registry.gpus.lookup_form(typed)


def test_a100_40_and_80_are_different_gpus(registry: Registry) -> None:
    table = registry.gpus
    assert table.resolve("A100", memory_gib=80).name == "A100-80GB"  # type: ignore[union-attr]
    assert table.resolve("A100", memory_gib=40).name == "A100"  # type: ignore[union-attr]
    # A size written in the spelling wins over a wrong hint from another field.
    assert table.resolve("A100 (80 GB SXM4)", memory_gib=40).name == "A100-80GB"  # type: ignore[union-attr]
    assert table.lookup("a100-80gb") == "A100-80GB" and table.lookup("A100") == "A100"


def test_known_gpu_carries_marketed_memory_not_reported_mib(registry: Registry) -> None:
    # AWS reports an L4 as 22888 MiB (22.35 GiB); it is sold as 24 GB.
    gpu = registry.gpus.to_gpu("L4", memory_gib=22888 / 1024)
    assert gpu.known and gpu.name == "L4" and gpu.memory_gib == 24 and gpu.raw_name == "L4"


def test_unknown_gpu_stays_visible_with_raw_name(registry: Registry) -> None:
    gpu = registry.gpus.to_gpu("Radeon Mystery 9000", memory_gib=20)
    assert not gpu.known and gpu.name == "Radeon Mystery 9000" and gpu.memory_gib == 20


def test_unknown_user_name_lists_closest_known(registry: Registry) -> None:
    with pytest.raises(UnknownGpuError) as info:
        registry.gpus.lookup("H1000")
    assert info.value.suggestions[:3] == ["H100", "V100", "P100"]
    assert "Did you mean: H100" in str(info.value)


def test_plugins_extend_the_table_through_the_hook() -> None:
    class Plugin:
        @hookimpl
        def register_gpu_specs(self, register, alias):  # type: ignore[no-untyped-def]
            register(GpuSpec(name="X1", vendor="Internal", form_factor="PCIe", memory_gib=64, bf16_tflops=100))
            alias("xcorp-accel-1", "X1")
            alias("HGX-H100-internal", "H100")

    registry = Registry(entry_points=[], extra_plugins=[("xcorp", Plugin())])
    assert registry.gpus.lookup("xcorp-accel-1") == "X1"
    # A plugin's alias is pinned for its own providers: a memory figure reported beside it does not make it
    # another variant there; another provider's identical spelling is read on its own merits (94 GiB: H100 NVL).
    registry.gpus.bind_provider("xcloud", "xcorp")
    assert registry.gpus.resolve("HGX-H100-internal", memory_gib=94, provider="xcloud").name == "H100"  # type: ignore[union-attr]
    assert registry.gpus.resolve("HGX-H100-internal", memory_gib=94).name == "H100-NVL"  # type: ignore[union-attr]
    assert registry.gpus.resolve("HGX-H100-internal").name == "H100"  # type: ignore[union-attr]
    assert registry.gpus.spec("X1").memory_gib == 64  # type: ignore[union-attr]


def test_builtin_table_keeps_sources_and_specs(registry: Registry) -> None:
    h100 = registry.gpus.spec("H100", "SXM")
    assert h100 is not None and h100.bf16_tflops == 989.5 and h100.source.startswith("https://")
    assert registry.gpus.spec("H100", "PCIe").bf16_tflops == 756  # type: ignore[union-attr]
    assert not registry.gpus.is_gpu("Inferentia2") and registry.gpus.is_gpu("H100")


def test_the_fingerprint_follows_every_change_of_the_table() -> None:
    from gpuhub.facts.gpus import GpuTable, load_builtin_specs

    table = GpuTable()
    for spec in load_builtin_specs():
        table.add(spec)
    first = table.fingerprint()
    assert table.fingerprint() == first  # remembered, and the same
    table.add_alias("nvidia-hopper-80", "H100", scope="mycloud")
    scoped = table.fingerprint()
    assert scoped != first
    table.bind_provider("mycloud", "mycloud")
    assert table.fingerprint() not in (first, scoped)
