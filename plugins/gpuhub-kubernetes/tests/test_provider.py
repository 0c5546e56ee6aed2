"""gpuhub-kubernetes end to end: the bundled two-cluster recording, live reads of a loopback API server that
speaks the same endpoints, and free counts that follow the pods."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from gpuhub_kubernetes.parse import node_facts, parse_cpu, parse_memory_gib, quantity, requested_by_node

from gpuhub.plugin import LoopbackJson, Offer, Registry, make_engine, network_facts, run_provider

RECORDING = Path(__file__).resolve().parents[1] / "gpuhub_kubernetes" / "recording"
SETTINGS = RECORDING / "settings.toml"


def _by_type(offers: tuple[Offer, ...] | list[Offer]) -> dict[tuple[str, str], Offer]:
    return {(o.region.code, o.instance_type): o for o in offers}


@pytest.fixture(scope="module")
def replayed() -> tuple[tuple[Offer, ...], Any]:
    engine = make_engine(Registry())
    try:
        return run_provider(engine, "kubernetes", mode="replay")
    finally:
        engine.shutdown()


# --- parsing ----------------------------------------------------------------------------------------------------
def test_quantities() -> None:
    assert parse_cpu("95500m") == 95.5 and parse_cpu("224") == 224.0
    assert parse_memory_gib("2Ti") == 2048.0 and parse_memory_gib("30Gi") == 30.0
    assert quantity("1e3") == Decimal(1000) and quantity("64G") == Decimal(64 * 10**9)
    with pytest.raises(ValueError):
        quantity("lots")


def test_finished_and_unbound_pods_hold_nothing() -> None:
    pods = json.loads((RECORDING / "gpu-east-pods.json").read_text())["items"]
    held, bad = requested_by_node(pods)
    assert bad == 0
    assert held["h100-b"]["nvidia.com/gpu"] == 2  # the Succeeded sweep's 4 GPUs are free again
    assert held["h100-a"]["nvidia.com/gpu"] == 8 and "" not in held  # the Pending pod is bound to no node


def test_single_strategy_node_is_slices_of_the_card() -> None:
    nodes = json.loads((RECORDING / "lab-eu-nodes.json").read_text())["items"]
    facts = node_facts(next(n for n in nodes if n["metadata"]["name"] == "a100-single-1"), {})
    assert facts.product == "NVIDIA-A100-SXM4-40GB" and facts.gpu_memory_gib is None
    [(unit, cap)] = facts.slices.items()
    assert unit.profile == "1g.5gb" and unit.memory_gib == 4.75 and cap.allocatable == cap.free == 14


# --- the bundled recording --------------------------------------------------------------------------------------
def test_recording_whole_gpus_and_free_counts(replayed: tuple[tuple[Offer, ...], Any]) -> None:
    offers, status = replayed
    assert status.state == "ok", status.line()
    rows = _by_type(offers)
    node = rows[("gpu-east", "dgx-h100")]
    assert node.instance.gpu is not None and node.instance.gpu.name == "H100" and node.gpu_count == 8
    assert node.price.amount == Decimal("16.80") and node.price.currency == "USD"
    assert node.available is False and node.available_count == 0  # neither node has all 8 GPUs free
    one = rows[("gpu-east", "dgx-h100:1gpu")]
    assert one.available_count == 6 and one.available is True  # 16 GPUs, 8 + 2 held by running pods
    assert one.price.amount == Decimal("2.10") and one.instance.vcpus == 28
    assert one.region.zone == "east-a" and one.region.country == "US" and one.region.city == "Ashburn"
    assert one.instance.bare_metal is True and rows[("lab-eu", "g2-l4-8:1gpu")].instance.bare_metal is False
    l4 = rows[("lab-eu", "g2-l4-8:1gpu")]
    assert l4.available_count == 1 and l4.price.amount == Decimal("0.45") and l4.region.continent == "Europe"
    cordoned = rows[("gpu-east", "l40s-4:1gpu")]
    assert cordoned.available is False and cordoned.available_count == 0


def test_recording_mig_slices(replayed: tuple[tuple[Offer, ...], Any]) -> None:
    offers, _ = replayed
    rows = _by_type(offers)
    small = rows[("gpu-east", "hgx-a100-2:mig-1g.10gb")]
    assert small.instance.fractional and small.gpu_count == pytest.approx(1 / 7)
    assert small.instance.gpu is not None and small.instance.gpu.name == "A100-80GB"
    assert small.instance.gpu_memory_gib == 9.5  # the slice's memory as GFD labels it, not 80 GiB / 7
    assert small.available_count == 5 and small.price.amount == Decimal("0.2")
    big = rows[("gpu-east", "hgx-a100-2:mig-3g.40gb")]
    assert big.available_count == 2 and big.price.amount == Decimal("0.6")
    single = rows[("lab-eu", "a100-40-x2:mig-1g.5gb")]
    assert single.instance.gpu is not None and single.instance.gpu.name == "A100"
    assert single.available_count == 11 and single.instance.gpu_memory_gib == 4.75


def test_recording_dra_and_missing_rates(replayed: tuple[tuple[Offer, ...], Any]) -> None:
    offers, status = replayed
    dra = _by_type(offers)[("gpu-east", "dra-b200:dra")]
    assert dra.instance.gpu is not None and dra.instance.gpu.name == "B200"
    assert dra.available_count == 1 and dra.price.amount == Decimal("3.9")  # gpu-0 is held by a ResourceClaim
    assert status.skipped_reasons == {"no internal rate for T4": 1}
    assert any("T4" in w and "[rates]" in w for w in status.warnings), status.warnings
    assert not any(o.instance.gpu and o.instance.gpu.name == "T4" for o in offers)


# --- live, against a loopback API server -------------------------------------------------------------------------
class _FakeApiServer:
    """Serves the recording's answers for two contexts under path prefixes; pods can be added."""

    def __init__(self) -> None:
        self.bodies: dict[str, Any] = {}
        for context in ("gpu-east", "lab-eu"):
            for kind in ("nodes", "pods"):
                self.bodies[f"/{context}/{kind}"] = json.loads((RECORDING / f"{context}-{kind}.json").read_text())
        self.bodies["/gpu-east/resourceslices"] = json.loads((RECORDING / "gpu-east-resourceslices.json").read_text())
        self.bodies["/gpu-east/resourceclaims"] = json.loads((RECORDING / "gpu-east-resourceclaims.json").read_text())
        self.bodies["/lab-eu/nodepools"] = json.loads((RECORDING / "lab-eu-nodepools.json").read_text())
        self.bodies["/lab-eu/cluster-autoscaler-status"] = json.loads(
            (RECORDING / "lab-eu-autoscaler-status.json").read_text())
        self.bodies["/gpu-east/localqueues/research"] = json.loads((RECORDING / "gpu-east-localqueue.json").read_text())
        self.bodies["/gpu-east/clusterqueues/research"] = json.loads(
            (RECORDING / "gpu-east-clusterqueue.json").read_text())
        self.bodies["/gpu-east/resourceflavors/h100"] = json.loads(
            (RECORDING / "gpu-east-resourceflavor.json").read_text())
        self.loopback = LoopbackJson(self._answer)
        self.url = self.loopback.url

    def _answer(self, path: str, headers: Any) -> tuple[int, Any]:
        context, _, rest = path.lstrip("/").partition("/")
        parts = rest.split("?")[0].rstrip("/").split("/")
        kind = "/".join(parts[-2:]) if "kueue.x-k8s.io" in parts else parts[-1]
        body = self.bodies.get(f"/{context}/{kind}")
        return (200, body) if body is not None else (404, {"kind": "Status", "code": 404, "reason": "NotFound"})

    @property
    def tokens(self) -> list[str]:
        """The Authorization header of each request."""
        return [h.get("Authorization", "") for _, h in self.loopback.requests]

    def stop(self) -> None:
        self.loopback.stop()


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[_FakeApiServer, Path]]:
    server = _FakeApiServer()
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "gpu-east",
        "clusters": [{"name": c, "cluster": {"server": f"{server.url}/{c}"}} for c in ("gpu-east", "lab-eu")],
        "users": [{"name": "reader", "user": {"token": "live-test-token-abcdef123456"}}],
        "contexts": [{"name": c, "context": {"cluster": c, "user": "reader"}} for c in ("gpu-east", "lab-eu")],
    }))
    try:
        yield server, kubeconfig
    finally:
        server.stop()


def _live_environ(kubeconfig: Path) -> dict[str, str]:
    return {"KUBECONFIG": str(kubeconfig), "GPUHUB_KUBERNETES_CONTEXTS": "gpu-east,lab-eu",
            "GPUHUB_KUBERNETES_SETTINGS": str(SETTINGS)}


def test_live_equals_replay(api: tuple[_FakeApiServer, Path], replayed: tuple[tuple[Offer, ...], Any]) -> None:
    server, kubeconfig = api
    engine = make_engine(Registry(), environ=_live_environ(kubeconfig))
    try:
        offers, status = run_provider(engine, "kubernetes", mode="live")
    finally:
        engine.shutdown()
    assert status.state == "ok" and status.mode == "live", status.line()
    live = {k: (o.price.amount, o.available_count, o.gpu_count, o.region.city) for k, o in _by_type(offers).items()}
    bundled = {k: (o.price.amount, o.available_count, o.gpu_count, o.region.city)
               for k, o in _by_type(replayed[0]).items()}
    assert live == bundled
    assert set(server.tokens) == {"Bearer live-test-token-abcdef123456"}


def test_a_new_pod_changes_the_free_count_on_refresh(api: tuple[_FakeApiServer, Path]) -> None:
    server, kubeconfig = api
    engine = make_engine(Registry(), environ=_live_environ(kubeconfig))
    try:
        before, _ = run_provider(engine, "kubernetes", mode="live")
        pods = server.bodies["/gpu-east/pods"]["items"]
        pods.append({"metadata": {"name": "new-job"}, "status": {"phase": "Running"},
                     "spec": {"nodeName": "h100-b", "containers": [
                         {"name": "main", "resources": {"limits": {"nvidia.com/gpu": "4"}}}]}})
        after, _ = run_provider(engine, "kubernetes", mode="live", refresh=True)
    finally:
        engine.shutdown()
    assert _by_type(before)[("gpu-east", "dgx-h100:1gpu")].available_count == 6
    assert _by_type(after)[("gpu-east", "dgx-h100:1gpu")].available_count == 2


def test_cli_search_provider_kubernetes(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "gpuhub.cli", "search", "-v", "--provider", "kubernetes", "--format", "json",
         "--limit", "100"], capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GPUHUB_CACHE_DIR": str(tmp_path / "cache"),
             "GPUHUB_STORE": str(tmp_path / "store")})
    assert out.returncode == 0, out.stderr
    rows = {(r["region"], r["instance_type"]): r for r in json.loads(out.stdout)}
    assert rows[("gpu-east", "dgx-h100:1gpu")]["available_count"] == 6
    assert rows[("lab-eu", "a100-40-x2:mig-1g.5gb")]["gpu_memory_gib"] == 4.75
    assert rows[("gpu-east", "hgx-a100-2:mig-1g.10gb")]["price_per_hour"] == 0.2


def test_example_clusters_never_pose_as_offers_in_a_general_search(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GPUHUB_CACHE_DIR": str(tmp_path / "cache"),
           "GPUHUB_STORE": str(tmp_path / "store")}
    out = subprocess.run([sys.executable, "-m", "gpuhub.cli", "search", "-v", "--gpu", "H100", "--min-gpus", "8",
                          "--format", "json", "--limit", "50"], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert not any(r["provider"] == "kubernetes" for r in json.loads(out.stdout))
    assert "kubernetes: skipped: its bundled data is an example" in out.stderr
    assert "KUBECONFIG" in out.stderr


# --- capacity that can be added, and what the user's queue can still get -----------------------------------------
def test_karpenter_nodepool_is_provisionable_capacity(replayed: tuple[tuple[Offer, ...], Any]) -> None:
    rows = _by_type(replayed[0])
    pool = rows[("lab-eu", "karpenter-h100-burst:1gpu")]  # spec.limits nvidia.com/gpu 16, status.resources 8
    assert pool.available_count == 0 and pool.provisionable_count == 8 and pool.provision_wait_s == 300
    assert pool.available is True and pool.capacity_label == "+8 in ~5 min"
    assert pool.instance.gpu is not None and pool.instance.gpu.name == "H100" and pool.price.amount == Decimal("2.10")
    assert "8 of 16" in (pool.instance.note or "") and "p5.48xlarge" in (pool.instance.note or "")
    node = rows[("lab-eu", "karpenter-h100-burst")]
    assert node.gpu_count == 8 and node.provisionable_count == 1 and node.price.amount == Decimal("16.80")
    running = rows[("lab-eu", "p5.48xlarge:1gpu")]  # the pool's node that runs now: all 8 GPUs held
    assert running.available_count == 0 and running.provisionable_count == 0 and running.available is False
    assert rows[("gpu-east", "dgx-h100:1gpu")].capacity_label == "6 free"


def test_cluster_autoscaler_node_group_can_grow(replayed: tuple[tuple[Offer, ...], Any]) -> None:
    # lab-eu's L4 nodes carry eks.amazonaws.com/nodegroup=l4-serving; cluster-autoscaler's status ConfigMap gives
    # its group eks-l4-serving-... minSize 1, maxSize 6, cloudProviderTarget 3: three more nodes of one L4 each
    l4 = _by_type(replayed[0])[("lab-eu", "g2-l4-8:1gpu")]
    assert l4.available_count == 1 and l4.provisionable_count == 3 and l4.provision_wait_s == 300
    assert l4.capacity_label == "1 free, +3 in ~5 min"
    assert "cluster-autoscaler may add 3 more" in (l4.instance.note or "")
    assert _by_type(replayed[0])[("lab-eu", "a100-40-x2:mig-1g.5gb")].provisionable_count == 0


def test_autoscaler_group_names_match_whole_words() -> None:
    from gpuhub_kubernetes.pools import NodeGroup, autoscaler_groups

    group = NodeGroup("eks-l4-serving-8cc5a6b2", 1, 6, 3)
    assert group.holds("l4-serving") and not group.holds("l4") and not group.holds("serving")
    assert not NodeGroup("aks-gpubig-1234-vmss", 0, 3, 0).holds("gpu")
    assert NodeGroup("aks-gpubig-1234-vmss", 0, 3, 0).holds("gpubig")
    assert NodeGroup("gke-prod-gpu-pool-1a2b3c4d-grp", 0, 4, 1).holds("gpu-pool")
    assert NodeGroup("aks-user-25795745-vmss", 2, 3, 3).room == 0
    with pytest.raises(ValueError):
        autoscaler_groups("Cluster-autoscaler status at 2021-10-19 19:06:40 +0000 UTC:\nNodeGroups:\n  Name: x")
    with pytest.raises(ValueError):
        autoscaler_groups("autoscalerStatus: Running\nnodeGroups:\n- name: a\n  health: {minSize: 0, "
                          "maxSize: 1000000000, cloudProviderTarget: 0}")


def test_kueue_cluster_queue_quota_left(replayed: tuple[tuple[Offer, ...], Any]) -> None:
    rows = _by_type(replayed[0])
    one = rows[("gpu-east", "dgx-h100:1gpu")]  # ClusterQueue research: nominalQuota 8 nvidia.com/gpu, 6 in use
    assert one.available_count == 6 and one.obtain is not None and one.obtain.quota_instances == 2
    assert "queue ml/research: 2 of 8 nvidia.com/gpu quota left (6 in use, may borrow up to 4 more)" in (
        one.instance.note or "")
    whole = rows[("gpu-east", "dgx-h100")]
    assert whole.obtain is not None and whole.obtain.quota_instances == 0  # 8 GPUs do not fit in the 2 left
    assert one.to_record()["quota_instances"] == 2
    assert rows[("gpu-east", "hgx-a100-2:mig-1g.10gb")].obtain is None  # the queue covers no MIG resource
    assert rows[("gpu-east", "l40s-4:1gpu")].obtain is None  # the flavor h100's node labels: not the L40S nodes
    assert rows[("lab-eu", "g2-l4-8:1gpu")].obtain is None  # no queue set for lab-eu


# --- issue 24 defect 10: quantities bounded per node, a bad node counted and skipped -----------------------------
def test_absurd_quantities_skip_only_their_node(tmp_path: Path) -> None:
    import shutil

    from gpuhub.plugin import search

    fixtures = tmp_path / "fixtures"
    shutil.copytree(RECORDING, fixtures / "kubernetes")
    nodes_file = fixtures / "kubernetes" / "gpu-east-nodes.json"
    body = json.loads(nodes_file.read_text())
    template = next(n for n in body["items"] if n["metadata"]["name"] == "h100-a")

    def bad(name: str, **allocatable: str) -> dict[str, Any]:
        node = json.loads(json.dumps(template))
        node["metadata"]["name"] = name
        node["status"]["allocatable"].update(allocatable)
        return node

    body["items"] += [bad("googol-gpus", **{"nvidia.com/gpu": "1e100"}), bad("negative-ram", memory="-1Ki"),
                      bad("huge-exponent", cpu="1e999999999"), bad("nan-gpus", **{"nvidia.com/gpu": "NaN"})]
    nodes_file.write_text(json.dumps(body))
    result = search(provider="kubernetes", fixtures_dir=fixtures, limit=200)
    status = next(s for s in result.statuses if s.provider == "kubernetes")
    assert status.state == "ok", status.line()
    assert sum(n for reason, n in status.skipped_reasons.items() if reason.startswith("node:")) == 4
    rows = _by_type(result.offers)
    assert rows[("gpu-east", "dgx-h100:1gpu")].available_count == 6  # the good nodes of the shape, as before
    assert all(o.gpu_count <= 1024 for o in result.offers)
    assert all(o.instance.memory_gib is None or o.instance.memory_gib > 0 for o in result.offers)


def test_network_and_storage_are_not_published(replayed: Any) -> None:
    """Issue 28: the Kubernetes objects gpuhub reads gives no network bandwidth, fabric or local disk (README):
    every offer leaves them unknown, with no source claimed."""
    offers = replayed[0]
    assert offers and [network_facts(o) for o in offers if network_facts(o)] == []
