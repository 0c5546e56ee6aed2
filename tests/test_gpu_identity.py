"""GPU identity never depends on which other plugins are installed (issue 13, item 2).

Explicit memory in a spelling beats every alias; a plugin's aliases apply to its own providers' spellings unless it
registers them global; a conflict between two plugins' aliases is reported, never settled by load order.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from gpuhub.facts.gpus import UnknownGpuError
from gpuhub.fetch.hookspecs import hookimpl
from gpuhub.fetch.plugins import Registry


def _installed(*names: str) -> Registry:
    """The real registry (installed entry points) with only ``names`` allowed (all when empty)."""
    env = {"GPUHUB_PLUGINS": ",".join(names)} if names else {}
    return Registry(environ=env)


def test_gcp_alias_does_not_pin_bare_a100_for_other_providers() -> None:
    registry = _installed()
    assert {"gcp", "coreweave"} <= set(registry.providers)
    gpus = registry.gpus
    # CoreWeave's page: "A100", 80 GB per GPU. GCP's "nvidia-tesla-a100" normalizes to the same "a100".
    assert gpus.to_gpu("A100", 80.0, provider="coreweave").name == "A100-80GB"
    assert gpus.to_gpu("A100", 80.0, provider="lambda").name == "A100-80GB"
    # GCP keeps its own pin: nvidia-tesla-a100 is the 40 GB part even beside a rounding-off memory figure.
    assert gpus.to_gpu("nvidia-tesla-a100", 80.0, provider="gcp").name == "A100"
    assert gpus.to_gpu("nvidia-a100-80gb", provider="gcp").name == "A100-80GB"


def test_gcp_alias_does_not_pin_bare_v100_for_other_providers() -> None:
    gpus = _installed().gpus
    assert gpus.to_gpu("V100", 32.0, provider="aws").name == "V100-32GB"
    assert gpus.to_gpu("V100", 32.0, provider="azure").name == "V100-32GB"
    assert gpus.to_gpu("nvidia-tesla-v100", 32.0, provider="gcp").name == "V100"


@pytest.mark.parametrize("alone", ["coreweave", "lambda", "aws", "azure"])
def test_identity_is_the_same_alone_and_with_every_plugin(alone: str) -> None:
    together, solo = _installed().gpus, _installed(alone).gpus
    for raw, memory in (("A100", 80.0), ("A100", 40.0), ("V100", 32.0), ("V100", 16.0), ("H100", 94.0),
                        ("A100 (80 GB SXM4)", None), ("Tesla V100-SXM2-16GB", None), ("L4", 22.35)):
        assert together.to_gpu(raw, memory, provider=alone) == solo.to_gpu(raw, memory, provider=alone), raw


def test_written_memory_beats_a_plugins_own_pinned_alias() -> None:
    class Wrong:
        @hookimpl
        def register_gpu_specs(self, register, alias):  # type: ignore[no-untyped-def]
            alias("cloudx-a100-80gb", "A100")  # a wrong alias: the spelling itself says 80 GB
            alias("cloudx-a100", "A100")

    registry = Registry(entry_points=[], extra_plugins=[("cloudx", Wrong())])
    registry.gpus.bind_provider("cloudx", "cloudx")
    assert registry.gpus.to_gpu("cloudx-a100-80gb", provider="cloudx").name == "A100-80GB"
    assert registry.gpus.to_gpu("cloudx_A100_SXM4_80GB", 40.0, provider="cloudx").name == "A100-80GB"
    # The pinned own spelling without a size still holds against a reported figure.
    assert registry.gpus.to_gpu("cloudx-a100", 80.0, provider="cloudx").name == "A100"


def _aliasing(spelling: str, canonical: str, *, global_alias: bool = False) -> object:
    class Plugin:
        @hookimpl
        def register_gpu_specs(self, register, alias):  # type: ignore[no-untyped-def]
            alias(spelling, canonical, global_alias=global_alias)

    return Plugin()


def test_conflicting_plugin_aliases_are_reported_and_scoped() -> None:
    registry = Registry(entry_points=[], extra_plugins=[("one", _aliasing("zeta-1", "H100")),
                                                         ("two", _aliasing("zeta-1", "A100-80GB"))])
    registry.gpus.bind_provider("p1", "one")
    registry.gpus.bind_provider("p2", "two")
    assert registry.gpus.to_gpu("zeta-1", provider="p1").name == "H100"
    assert registry.gpus.to_gpu("zeta-1", provider="p2").name == "A100-80GB"
    assert not registry.gpus.to_gpu("zeta-1", provider="p3").known  # a third provider gets neither
    [conflict] = registry.gpus.conflicts
    assert "'zeta-1'" in conflict and "'one'" in conflict and "'two'" in conflict
    report = next(r for r in registry.reports if r.name == "two")
    assert report.warnings == [conflict] and report.to_dict()["warnings"] == [conflict]
    with pytest.raises(UnknownGpuError):  # a user's name must not depend on which plugin loaded first
        registry.gpus.lookup("zeta-1")


@pytest.mark.parametrize("order", [("one", "two"), ("two", "one")])
def test_conflicting_global_aliases_are_not_settled_by_load_order(order: tuple[str, str]) -> None:
    plugins = {"one": _aliasing("omega-9", "H100", global_alias=True),
               "two": _aliasing("omega-9", "A100-80GB", global_alias=True)}
    registry = Registry(entry_points=[], extra_plugins=[(name, plugins[name]) for name in order])
    assert len(registry.gpus.conflicts) == 1
    assert not registry.gpus.to_gpu("omega-9", provider="anyone").known


def test_global_alias_applies_to_every_provider() -> None:
    registry = Registry(entry_points=[], extra_plugins=[("maps", _aliasing("omega-9", "H100", global_alias=True))])
    assert registry.gpus.to_gpu("omega-9", provider="anyone").name == "H100"
    assert registry.gpus.lookup("omega-9") == "H100"


def test_a_plugins_own_spellings_still_work_as_user_names() -> None:
    gpus = _installed().gpus
    assert gpus.lookup("A100_PCIE_80GB") == "A100-80GB"  # CoreWeave's label, typed by a user
    assert gpus.lookup("nvidia-tesla-v100") == "V100"    # GCP's accelerator type


def test_fingerprint_changes_with_the_installed_plugins() -> None:
    every, without_gcp = _installed(), Registry(environ={"GPUHUB_DISABLE_PLUGINS": "gcp"})
    assert every.gpus.fingerprint() != without_gcp.gpus.fingerprint()
    assert every.gpus.fingerprint() == _installed().gpus.fingerprint()


# --- Every GPU spelling in the reference SkyPilot catalogs resolves to the right canonical name (issue 31) ---

_CATALOGS = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "skypilot-catalog"
# The canonical name each spelling (AcceleratorName and GpuInfo "Name") must resolve to. None: deliberately unknown
# (not a GPU: FPGAs sold by AWS). AWS's Qualcomm AI100 is a known accelerator, not a GPU (gpuhub-aws registers it:
# shown only with --include-accelerators), like Inferentia and Trainium.
_EXPECTED = {
    "A10": "A10", "A100": "A100", "A100 PCIe": "A100", "A100 SXM": "A100", "A100-40GB": "A100",
    "A100-40GB-320GB": "A100", "A100-80G-PCIe": "A100-80GB", "A100-80G-PCIe-NVLink": "A100-80GB",
    "A100-80GB": "A100-80GB", "A100-80GB-160GB": "A100-80GB", "A100-80GB-320GB": "A100-80GB",
    "A100-80GB-640GB": "A100-80GB", "A100-80GB-SXM": "A100-80GB", "A100_80G_PCIE": "A100-80GB",
    "A100_80G_SXM4": "A100-80GB", "A10G": "A10G", "A16": "A16", "A16_PCIE": "A16", "A30": "A30", "A40": "A40",
    "A4000": "RTXA4000", "A4000_PCIE": "RTXA4000", "A5000": "RTXA5000", "A5000_PCIE": "RTXA5000",
    "A6000": "RTXA6000", "A6000_PCIE_HIGH_PERF": "RTXA6000", "A6000_PCIE_LOW_RAM": "RTXA6000", "A800": "A800",
    "B200": "B200", "B300": "B300", "GB200": "GB200", "GB300": "GB300", "GH200": "GH200", "Gaudi HL-205": "Gaudi",
    "H100": "H100", "H100 NVL": "H100-NVL", "H100 PCIe": "H100", "H100 SXM": "H100", "H100-80G-PCIe": "H100",
    "H100-80G-PCIe-NVLink": "H100", "H100-80G-SXM5": "H100", "H100-MEGA": "H100", "H100-NVL": "H100-NVL",
    "H100-SXM": "H100", "H100_NVL": "H100-NVL", "H100_PCIE": "H100", "H100_PCIE_BAREMETAL": "H100",
    "H100_SXM5": "H100", "H200": "H200", "H200 SXM": "H200", "H200-SXM": "H200", "Inferentia": "Inferentia",
    "Inferentia2": "Inferentia2", "K80": "K80", "L4": "L4", "L40": "L40", "L40S": "L40S", "L40S_PCIE": "L40S",
    "L40S_PCIE_BAREMETAL": "L40S", "L40_PCIE": "L40", "L40s": "L40S", "L4_PCIE": "L4", "M60": "M60",
    "MI300X": "MI300X", "MI355X": "MI355X", "NVIDIA H200 NVL": "H200-NVL", "NVIDIA-H100-80GB-HBM3": "H100",
    "NVIDIA-H200-NVL": "H200-NVL", "P100": "P100", "P4": "P4", "Qualcomm AI100": "AI100",
    "RTX 2000 Ada": "RTX2000-Ada", "RTX 3090": "RTX3090", "RTX 4000 Ada": "RTX4000-Ada", "RTX 4090": "RTX4090",
    "RTX 5090": "RTX5090", "RTX 6000 Ada": "RTX6000-Ada", "RTX A4000": "RTXA4000", "RTX A4500": "RTXA4500",
    "RTX A5000": "RTXA5000", "RTX A6000": "RTXA6000", "RTX PRO 6000": "RTXPRO6000",
    "RTX PRO 6000 WK": "RTXPRO6000-WS", "RTX-6000-Ada": "RTX6000-Ada", "RTX-A4000": "RTXA4000",
    "RTX-A6000": "RTXA6000", "RTX-PRO-6000": "RTXPRO6000", "RTX2000-Ada": "RTX2000-Ada", "RTX3060": "RTX3060",
    "RTX3070": "RTX3070", "RTX3090": "RTX3090", "RTX4000-Ada": "RTX4000-Ada", "RTX4000Ada": "RTX4000-Ada",
    "RTX4090": "RTX4090", "RTX5090": "RTX5090", "RTX5090_PCIE": "RTX5090", "RTX5090_PCIE_BAREMETAL": "RTX5090",
    "RTX6000": "RTX6000", "RTX6000-Ada": "RTX6000-Ada", "RTX6000ADA_PCIE": "RTX6000-Ada",
    "RTX6000Ada": "RTX6000-Ada", "RTXA4000": "RTXA4000", "RTXA4500": "RTXA4500", "RTXA5000": "RTXA5000",
    "RTXA6000": "RTXA6000", "RTXPRO6000": "RTXPRO6000", "RTXPRO6000-WK": "RTXPRO6000-WS",
    "RTXPRO6000WS": "RTXPRO6000-WS", "RTXPRO6000_PCIE": "RTXPRO6000", "RTXPRO6000_PCIE_BAREMETAL": "RTXPRO6000",
    "RTXPro6000": "RTXPRO6000", "Radeon MI25": "MI25", "Radeon Pro V520": "RadeonProV520", "T4": "T4", "T4g": "T4",
    "Tesla-V100": "V100", "Trainium": "Trainium", "V100": "V100", "V100-32GB": "V100-32GB",
    "V100_32G_PCIE": "V100-32GB", "Virtex UltraScale (VU9P)": None, "Virtex UltraScale+ (VU47P)": None,
}


def _catalog_spellings() -> dict[str, set[str]]:
    """Every GPU spelling in the reference catalogs (AcceleratorName and GpuInfo names) -> the files it is in."""
    if not _CATALOGS.is_dir():
        pytest.skip(f"{_CATALOGS} is absent (../shared is not available)")
    found: dict[str, set[str]] = {}
    for path in sorted(_CATALOGS.glob("*/*.csv")):
        with path.open(newline="") as fh:
            for row in csv.DictReader(fh):
                names = {row.get("AcceleratorName") or ""}
                names |= set(re.findall(r"""['"]Name['"]: ['"]([^'"]+)['"]""", row.get("GpuInfo") or ""))
                for name in names - {""}:
                    found.setdefault(name, set()).add(f"{path.parent.name}/{path.name}")
    return found


def test_every_reference_catalog_spelling_resolves_to_its_canonical_name() -> None:
    gpus = _installed().gpus
    spellings = _catalog_spellings()
    assert set(spellings) == set(_EXPECTED), "a spelling was added to or removed from the reference catalogs"
    wrong = {raw: (got.name if (got := gpus.resolve(raw)) else None) for raw in spellings}
    assert {raw: name for raw, name in wrong.items() if name != _EXPECTED[raw]} == {}


@pytest.mark.parametrize(("raw", "memory_gib", "expected"), [
    ("B300", 262.0, "B300"),          # Verda/OCI report 268,288-268,800 MiB for the 288 GB part
    ("B300", 288.0, "B300"),          # Daytona: 294,912 MiB
    ("GB300", 278.0, "GB300"),        # OCI: 284,672 MiB
    ("MI355X", 288.0, "MI355X"),
    ("H100_NVL", 80.0, "H100-NVL"),   # Spheron writes 81,920 MiB beside its NVL label: the label wins
    ("H100", 93.6, "H100-NVL"),       # Vast: 95,830 MiB is the 94 GB NVL card
    ("A800", 80.0, "A800"),
    ("RTX5090", 31.8, "RTX5090"),     # Yotta: 32,607 MiB
])
def test_new_gpus_resolve_beside_the_memory_providers_report(raw: str, memory_gib: float, expected: str) -> None:
    assert _installed().gpus.to_gpu(raw, memory_gib).name == expected


@pytest.mark.parametrize(("typed", "expected"), [
    ("H100NVL", "H100-NVL"), ("H100_NVL", "H100-NVL"), ("h200 nvl", "H200-NVL"), ("H200NVL", "H200-NVL"),
    ("RTXPRO6000-WK", "RTXPRO6000-WS"), ("RTX6000-Ada", "RTX6000-Ada"), ("RTX6000Ada", "RTX6000-Ada"),
    ("A100-80G-PCIe", "A100-80GB"), ("NVIDIA-H100-80GB-HBM3", "H100"), ("b300", "B300"), ("GB300", "GB300"),
    ("mi355x", "MI355X"), ("RTX PRO 4500", "RTXPRO4500"), ("rtx 5090", "RTX5090"), ("RTX4000Ada", "RTX4000-Ada"),
    ("A30", "A30"), ("A800", "A800"), ("rtx 3060", "RTX3060"), ("RTX 3070", "RTX3070"), ("A16", "A16"),
    ("L40", "L40"), ("A40", "A40"), ("H100_PCIE_BAREMETAL", "H100"),
    ("RTX PRO 6000 Blackwell Workstation Edition", "RTXPRO6000-WS"),  # Lium's spellings of the two editions
    ("RTX PRO 6000 Blackwell Server Edition", "RTXPRO6000"),
])
def test_users_may_type_the_new_spellings(typed: str, expected: str) -> None:
    assert _installed().gpus.lookup(typed) == expected


@pytest.mark.parametrize("other_card", ["RTX 3090 Ti", "RTX 4090 D", "RTX 3060 Ti"])
def test_a_ti_or_d_card_is_not_taken_for_the_base_model(other_card: str) -> None:
    assert _installed().gpus.resolve(other_card) is None


def test_new_rows_carry_their_sources_and_specs() -> None:
    gpus = _installed().gpus
    h200_nvl, b300, mi355x = gpus.spec("H200-NVL"), gpus.spec("B300"), gpus.spec("MI355X")
    assert h200_nvl is not None and h200_nvl.memory_gib == 141 and h200_nvl.bf16_tflops == 835.5
    assert h200_nvl.form_factor == "PCIe" and h200_nvl.mig_support
    assert b300 is not None and b300.memory_gib == 288 and b300.fp8_tflops == 4500 and b300.fp64_tflops == 1.25
    assert mi355x is not None and mi355x.vendor == "AMD" and mi355x.memory_gib == 288
    for name in ("B300", "GB300", "H200-NVL", "MI355X", "RTX5090", "A30", "A800", "RTX3060", "RTX3070", "RTX3090",
                 "RTX4000-Ada", "RTXPRO4500", "RTXPRO6000-WS"):
        spec = gpus.spec(name)
        assert spec is not None and spec.source.startswith("https://"), name
