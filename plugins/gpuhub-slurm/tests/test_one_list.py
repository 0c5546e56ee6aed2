"""Issue 30's "done when": with the example settings, ``gpuhub search --gpu H100`` ranks the team's own free GPUs
(a Slurm cluster read live from a loopback slurmrestd), capacity that can be added (powered-down Slurm cloud nodes,
a Karpenter NodePool of a Kubernetes cluster read live from a loopback API server) and the public clouds' offers
in one list, each labelled in the avail column and in the JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpuhub.plugin import LoopbackJson, reset_state, run_cli

pytest.importorskip("gpuhub_kubernetes", reason="the one-list check needs gpuhub-kubernetes installed too")

HERE = Path(__file__).resolve().parents[2]
SLURM = HERE / "gpuhub-slurm" / "gpuhub_slurm" / "recording"
KUBE = HERE / "gpuhub-kubernetes" / "gpuhub_kubernetes" / "recording"
TOKEN = "one-list-slurm-jwt-0123456789"


_NOT_FOUND = {"kind": "Status", "code": 404, "reason": "NotFound"}


def _files(routes: dict[str, Path]) -> LoopbackJson:
    """A loopback server answering GET path -> the JSON file of a recording (a 404 Status for anything else)."""
    bodies = {path: json.loads(file.read_text()) for path, file in routes.items()}
    return LoopbackJson(lambda path, _: (200, bodies[path]) if path in bodies else (404, _NOT_FOUND))


@pytest.fixture
def servers() -> Iterator[tuple[LoopbackJson, LoopbackJson]]:
    slurm = _files({"/slurm/v0.0.42/nodes/": SLURM / "nodes.json",
                       "/slurm/v0.0.42/partitions/": SLURM / "partitions.json"})
    kube = _files({"/api/v1/nodes": KUBE / "lab-eu-nodes.json",
                      "/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed":
                          KUBE / "lab-eu-pods.json",
                      "/apis/karpenter.sh/v1/nodepools": KUBE / "lab-eu-nodepools.json"})
    try:
        yield slurm, kube
    finally:
        slurm.stop()
        kube.stop()


def test_owned_free_provisionable_and_public_in_one_ranked_list(servers: tuple[LoopbackJson, LoopbackJson],
                                                                 tmp_path: Path) -> None:
    slurm, kube = servers
    env = {"GPUHUB_STORE": "off", "GPUHUB_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "300",
           "GPUHUB_SLURM_URL": slurm.url, "SLURM_JWT": TOKEN, "GPUHUB_SLURM_USER": "gpuhub",
           "GPUHUB_SLURM_CLUSTER_NAME": "hpc-west", "GPUHUB_SLURM_SETTINGS": str(SLURM / "settings.toml"),
           "GPUHUB_KUBERNETES_BASE_URL": kube.url, "GPUHUB_KUBERNETES_CLUSTER_NAME": "lab-eu",
           "GPUHUB_KUBERNETES_SETTINGS": str(KUBE / "settings.toml")}
    reset_state()
    try:
        listed = run_cli(["search", "--gpu", "H100", "--format", "json", "--limit", "1000"],
                         env=env)
        table = run_cli(["search", "--gpu", "H100", "--limit", "1000"], env=env)
    finally:
        reset_state()
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)
    where = {(r["provider"], r["instance_type"], r["region"]): i for i, r in enumerate(rows)}
    free = rows[where[("slurm", "gpu/h100x8:1gpu", "hpc-west")]]
    cloud = rows[where[("slurm", "cloud/h100x8:1gpu", "hpc-west")]]
    pool = rows[where[("kubernetes", "karpenter-h100-burst:1gpu", "lab-eu")]]
    public = [r for r in rows if r["provider"] not in ("slurm", "kubernetes")]
    assert (free["available_count"], free["provisionable_count"]) == (13, 0)
    assert (cloud["available_count"], cloud["provisionable_count"], cloud["provision_wait_s"]) == (0, 16, 300)
    assert (pool["available_count"], pool["provisionable_count"], pool["provision_wait_s"]) == (0, 8, 300)
    assert public and all(r["provisionable_count"] is None for r in public)
    # one ranked list (price per hour, sold-out offers last): the internal GPU at 2.10 an hour sits among the
    # clouds' single H100s, the 16.80 nodes among their 8-GPU machines
    scores = [r["score"] for r in rows if r["available"] is not False and r["currency"] == "USD"]
    assert scores == sorted(scores)
    order = [where[key] for key in where if key[0] not in ("slurm", "kubernetes")]
    assert min(order) < where[("slurm", "gpu/h100x8:1gpu", "hpc-west")] < max(order)
    assert min(order) < where[("slurm", "gpu/h100x8", "hpc-west")] < max(order)
    assert table.exit_code == 0, table.output
    lines = table.stdout.splitlines()
    assert any("gpu/h100x8:1gpu" in line and "13 free" in line for line in lines)
    assert any("cloud/h100x8:1gpu" in line and "+16 in ~5 min" in line for line in lines)
    assert any(line.startswith("kubernetes") and "karpenter-h100" in line and "+8 in ~5 min" in line
               for line in lines)  # the instance type column may be cut short with an ellipsis
    assert any(("│ yes" in line or "│ ?" in line) and not line.startswith(("slurm", "kubernetes")) for line in lines)
    assert TOKEN not in table.output and TOKEN not in listed.stdout, table.stdout
