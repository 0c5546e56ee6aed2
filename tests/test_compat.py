"""Framework compatibility and control level, through ``gpuhub.search()`` and the CLI with every installed plugin:
compute capability, FP8, CUDA releases, bare metal and dedicated hosts (issue 19)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import gpuhub
from gpuhub import Engine, QueryError, Registry
from gpuhub.facts.compat import compat, cuda_supports
from gpuhub.kit.testing import make_engine

HOPPER_AND_NEWER = {"H100", "H100-NVL", "H200", "H200-NVL", "GH200", "B200", "B300", "GB200", "GB300", "RTXPRO6000",
                    "RTXPRO6000-WS", "RTXPRO4500", "RTX5090"}
ADA_HOPPER_BLACKWELL = HOPPER_AND_NEWER | {"L4", "L40", "L40S", "RTX6000-Ada", "RTX4000-Ada", "RTX2000-Ada", "RTX4090"}


@pytest.fixture(scope="module")
def everything() -> Iterator[Engine]:
    """Every installed provider plugin, replaying its bundled data."""
    registry = Registry()
    for name in ("aws", "coreweave"):
        if name not in registry.providers:
            pytest.skip(f"gpuhub-{name} is not installed")
    engine = make_engine(registry)
    yield engine
    engine.shutdown()


def _names(result: gpuhub.SearchResult) -> set[str]:
    return {o.gpu_name or "" for o in result}


def test_compat_facts() -> None:
    assert compat("H100").compute_capability == (9, 0) and compat("H100").fp8
    assert compat("A100-80GB").compute_capability == (8, 0) and compat("A100-80GB").fp8 is False
    assert compat("L4").compute_capability == (8, 9) and compat("L4").transformer_engine
    assert compat("B200").cuda_range == "12.8+" and compat("V100").cuda_range == "9.0–12.9"
    assert compat("H100").min_driver == "520.61.05"
    assert compat("MI300X").compute_capability is None and not cuda_supports("MI300X", (12, 4))
    assert cuda_supports("V100", (12, 4)) and not cuda_supports("V100", (13, 0))
    assert not cuda_supports("B200", (12, 4)) and cuda_supports("B200", (12, 8))


def test_min_compute_capability_keeps_hopper_and_blackwell(everything: Engine) -> None:
    result = gpuhub.search(min_compute_capability="9.0", limit=None, engine=everything, fetch="replay")
    names = _names(result)
    assert names and names <= HOPPER_AND_NEWER, names - HOPPER_AND_NEWER
    assert {"H100", "H200", "B200"} <= names
    assert result.removed_by["min_compute_capability"] > 0
    assert not names & {"A100", "A100-80GB", "L4", "T4"}


def test_feature_fp8_keeps_ada_hopper_blackwell(everything: Engine) -> None:
    result = gpuhub.search(feature="fp8", limit=None, engine=everything, fetch="replay")
    names = _names(result)
    assert {"L4", "L40S", "H100", "B200"} <= names
    amd = {"MI300X", "MI355X"}  # FP8 by the GPU table's FP8 throughput (AMD data sheets), no CUDA facts
    assert names <= ADA_HOPPER_BLACKWELL | amd, names - ADA_HOPPER_BLACKWELL - amd
    assert amd <= names


def test_cuda_release_filter(everything: Engine) -> None:
    old = gpuhub.search(gpu=["V100", "B200"], cuda="12.4", limit=None, engine=everything, fetch="replay")
    assert _names(old) == {"V100"}
    new = gpuhub.search(gpu=["V100", "B200"], cuda="13.0", limit=None, engine=everything, fetch="replay")
    assert _names(new) == {"B200"}


def test_bare_metal_offers_say_where_the_fact_comes_from(everything: Engine) -> None:
    result = gpuhub.search(bare_metal=True, limit=None, engine=everything, fetch="replay")
    by_provider = {o.provider for o in result}
    assert {"aws", "coreweave", "oci"} <= by_provider
    assert all(o.instance_type.startswith("BM.") for o in result if o.provider == "oci")  # shapeType "bm"
    assert all(o.instance.bare_metal is True and o.instance.control_source for o in result)
    aws = {o.instance_type for o in result if o.provider == "aws"}
    assert "g4dn.metal" in aws and all(t.endswith(".metal") for t in aws)
    p5 = gpuhub.search(instance_type="p5.48xlarge", region="us-east-1", purchase="on_demand", engine=everything,
                       fetch="replay")
    assert p5[0].instance.bare_metal is False and p5[0].instance.tenancy == "shared"
    dedicated = gpuhub.search(dedicated=True, provider="aws", limit=None, engine=everything, fetch="replay")
    assert {o.instance_type for o in dedicated} == aws


def test_fp8_training_warns_on_gpus_without_fp8(everything: Engine) -> None:
    result = gpuhub.search(workload="training", model="7b", precision="fp8", mode="fine-tuning",
                           instance_type=["p4d.24xlarge", "p5.48xlarge"], region="us-east-1",
                           purchase="on_demand", engine=everything, fetch="replay")
    notes = {o.instance_type: result.details(i)["explanation"] for i, o in enumerate(result)}
    assert "A100 has no FP8 (compute capability 8.0" in notes["p4d.24xlarge"]
    assert "no FP8" not in notes["p5.48xlarge"]


def test_bad_arguments_name_the_argument(everything: Engine) -> None:
    with pytest.raises(QueryError) as err:
        gpuhub.search(feature="fp4", engine=everything)
    assert err.value.argument == "feature" and "transformer-engine" in str(err.value)
    with pytest.raises(QueryError) as err:
        gpuhub.search(cuda="twelve", engine=everything)
    assert err.value.argument == "cuda"
    with pytest.raises(QueryError) as err:
        gpuhub.search(min_compute_capability="", engine=everything)
    assert err.value.argument == "min_compute_capability"


def test_cli_gpus_shows_compatibility(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GPUHUB_CACHE_DIR": str(tmp_path / "cache"),
           "GPUHUB_STORE": str(tmp_path / "store")}
    out = subprocess.run([sys.executable, "-m", "gpuhub.cli", "gpus", "--format", "json"], capture_output=True,
                         text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    rows = {(r["name"], r["form_factor"]): r for r in json.loads(out.stdout)}
    h100 = rows[("H100", "SXM")]
    assert h100["compute_capability"] == "9.0" and h100["fp8"] is True and h100["mig"] is True
    assert h100["cuda"] == "11.8+" and h100["min_driver"] == "520.61.05"
    assert rows[("T4", "PCIe")]["compute_capability"] == "7.5" and rows[("T4", "PCIe")]["fp8"] is False
    bad = subprocess.run([sys.executable, "-m", "gpuhub.cli", "search", "--feature", "fp4"], capture_output=True,
                         text=True, timeout=120, env=env)
    assert bad.returncode == 2 and "--feature" in bad.stderr and "tensor-cores" in bad.stderr


def test_new_gpus_have_their_compute_capability() -> None:
    assert compat("B300").compute_capability == (10, 3) and compat("B300").fp8
    assert compat("RTX5090").compute_capability == (12, 0) and cuda_supports("RTX5090", (12, 8))
    assert not cuda_supports("RTX5090", (12, 4))  # sm_120 came with CUDA 12.8
    assert compat("A30").compute_capability == (8, 0) and compat("A30").fp8 is False
    assert compat("MI355X").compute_capability is None
