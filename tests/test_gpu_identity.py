"""GPU identity never depends on which other plugins are installed (issue 13, item 2).

Explicit memory in a spelling beats every alias; a plugin's aliases apply to its own providers' spellings unless it
registers them global; a conflict between two plugins' aliases is reported, never settled by load order.
"""

from __future__ import annotations

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
