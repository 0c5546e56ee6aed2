"""Build the bundled two-cluster recording of gpuhub-kubernetes (``gpuhub_kubernetes/recording/``).

The answers are reconstructed in the Kubernetes API's documented shapes (core/v1 NodeList and PodList,
resource.k8s.io/v1 ResourceSliceList and ResourceClaimList, a v1 Status for a missing API, a karpenter.sh/v1
NodePoolList with the AWS provider's instance-gpu requirement labels, Kueue's kueue.x-k8s.io/v1beta1 LocalQueue and
ClusterQueue), with the labels NVIDIA
GPU feature discovery documents (``nvidia.com/gpu.product``, ``gpu.memory`` in MiB, ``gpu.count``,
``mig.strategy``, ``mig-<profile>.count/.memory/.slices.gi``) and the extended resources the NVIDIA device plugin
advertises (``nvidia.com/gpu``, ``nvidia.com/mig-<profile>``). GPU memory figures are what ``nvidia-smi`` reports
for each card (H100 SXM 81559 MiB, A100 80 GB 81920, A100 40 GB 40960, L4 23034, L40S 46068, T4 15360; MIG
1g.10gb 9728, 3g.40gb 40192, 1g.5gb 4864 MiB as GFD labels them). The clusters, nodes, pods and the team's rates
are an example internal cloud: two clusters, ``gpu-east`` (bare metal, with DRA) and ``lab-eu`` (VMs, no DRA).

Run: ``python plugins/gpuhub-kubernetes/scripts/build_recording.py`` (rewrites the directory).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "gpuhub_kubernetes" / "recording"
PODS_QUERY = "/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed"
CLUSTERS = {"gpu-east": "https://gpu-east.k8s.example.internal:6443",
            "lab-eu": "https://lab-eu.k8s.example.internal:6443"}


NOT_FOUND = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
             "message": "the server could not find the requested resource", "reason": "NotFound", "details": {},
             "code": 404}


def node(name: str, *, labels: dict[str, str], allocatable: dict[str, str], ready: bool = True,
         unschedulable: bool = False) -> dict[str, Any]:
    base_labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}
    spec: dict[str, Any] = {"podCIDR": "10.244.0.0/24"}
    if unschedulable:
        spec["unschedulable"] = True
        spec["taints"] = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
    capacity = dict(allocatable)
    return {
        "metadata": {"name": name, "uid": f"uid-{name}", "resourceVersion": "81234",
                     "creationTimestamp": "2026-10-02T08:14:09Z", "labels": {**base_labels, **labels}},
        "spec": spec,
        "status": {
            "capacity": capacity, "allocatable": allocatable,
            "conditions": [{"type": "Ready", "status": "True" if ready else "Unknown",
                            "reason": "KubeletReady" if ready else "NodeStatusUnknown",
                            "lastHeartbeatTime": "2026-11-30T09:58:41Z"}],
            "nodeInfo": {"kubeletVersion": "v1.34.2", "containerRuntimeVersion": "containerd://2.1.4",
                         "architecture": "amd64", "operatingSystem": "linux"},
        },
    }


def gfd(product: str, memory_mib: int, count: int, *, strategy: str = "none", family: str,
        compute: tuple[int, int], **extra: str) -> dict[str, str]:
    labels = {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": product,
              "nvidia.com/gpu.memory": str(memory_mib), "nvidia.com/gpu.count": str(count),
              "nvidia.com/gpu.family": family, "nvidia.com/gpu.compute.major": str(compute[0]),
              "nvidia.com/gpu.compute.minor": str(compute[1]), "nvidia.com/mig.strategy": strategy,
              "nvidia.com/cuda.driver.major": "570", "nvidia.com/cuda.runtime.major": "12",
              "nvidia.com/cuda.runtime.minor": "8"}
    labels.update(extra)
    return labels


def pod(name: str, node_name: str, resources: dict[str, str], phase: str = "Running",
        namespace: str = "ml") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}"},
            "spec": {"nodeName": node_name, "containers": [
                {"name": "main", "image": "nvcr.io/nvidia/pytorch:25.10-py3",
                 "resources": {"limits": resources, "requests": resources}}]},
            "status": {"phase": phase}}


def listing(kind: str, items: list[dict[str, Any]], api_version: str = "v1") -> dict[str, Any]:
    return {"kind": kind, "apiVersion": api_version, "metadata": {"resourceVersion": "81260"}, "items": items}


def gpu_east() -> dict[str, Any]:
    h100 = gfd("NVIDIA-H100-80GB-HBM3", 81559, 8, family="hopper", compute=(9, 0))
    h100_alloc = {"cpu": "224", "memory": "2063600Mi", "nvidia.com/gpu": "8", "pods": "110"}
    a100 = gfd("NVIDIA-A100-SXM4-80GB", 81920, 2, strategy="mixed", family="ampere", compute=(8, 0), **{
        "nvidia.com/mig-1g.10gb.count": "7", "nvidia.com/mig-1g.10gb.memory": "9728",
        "nvidia.com/mig-1g.10gb.slices.gi": "1", "nvidia.com/mig-1g.10gb.slices.ci": "1",
        "nvidia.com/mig-1g.10gb.multiprocessors": "14",
        "nvidia.com/mig-3g.40gb.count": "2", "nvidia.com/mig-3g.40gb.memory": "40192",
        "nvidia.com/mig-3g.40gb.slices.gi": "3", "nvidia.com/mig-3g.40gb.slices.ci": "3",
        "nvidia.com/mig-3g.40gb.multiprocessors": "42"})
    nodes = [
        node("h100-a", labels={**h100, "node.kubernetes.io/instance-type": "dgx-h100",
                               "topology.kubernetes.io/zone": "east-a"}, allocatable=h100_alloc),
        node("h100-b", labels={**h100, "node.kubernetes.io/instance-type": "dgx-h100",
                               "topology.kubernetes.io/zone": "east-a"}, allocatable=h100_alloc),
        node("a100-mig-1", labels={**a100, "node.kubernetes.io/instance-type": "hgx-a100-2",
                                   "topology.kubernetes.io/zone": "east-a"},
             allocatable={"cpu": "64", "memory": "515000Mi", "nvidia.com/mig-1g.10gb": "7",
                          "nvidia.com/mig-3g.40gb": "2", "pods": "110"}),
        node("l40s-1", labels={**gfd("NVIDIA-L40S", 46068, 4, family="ada-lovelace", compute=(8, 9)),
                               "node.kubernetes.io/instance-type": "l40s-4",
                               "topology.kubernetes.io/zone": "east-b"},
             allocatable={"cpu": "48", "memory": "385000Mi", "nvidia.com/gpu": "4", "pods": "110"},
             unschedulable=True),
        node("cpu-1", labels={"node.kubernetes.io/instance-type": "cpu-64", "topology.kubernetes.io/zone": "east-a"},
             allocatable={"cpu": "64", "memory": "257000Mi", "pods": "110"}),
    ]
    pods = [
        pod("llama-pretrain-0", "h100-a", {"nvidia.com/gpu": "8", "cpu": "200", "memory": "1800Gi"}),
        pod("eval-7b", "h100-b", {"nvidia.com/gpu": "2", "cpu": "32", "memory": "256Gi"}),
        pod("notebook-ana", "a100-mig-1", {"nvidia.com/mig-1g.10gb": "1", "cpu": "4", "memory": "32Gi"}),
        pod("notebook-bo", "a100-mig-1", {"nvidia.com/mig-1g.10gb": "1", "cpu": "4", "memory": "32Gi"}),
        pod("finished-sweep", "h100-b", {"nvidia.com/gpu": "4"}, phase="Succeeded"),
        pod("pending-job", "", {"nvidia.com/gpu": "8"}, phase="Pending"),
    ]
    slices = [{
        "kind": "ResourceSlice", "apiVersion": "resource.k8s.io/v1",
        "metadata": {"name": "b200-dra-1-gpu.nvidia.com-x7k2p"},
        "spec": {"driver": "gpu.nvidia.com", "nodeName": "b200-dra-1",
                 "pool": {"name": "b200-dra-1", "generation": 1, "resourceSliceCount": 1},
                 "devices": [{"name": f"gpu-{i}", "attributes": {
                     "type": {"string": "gpu"}, "productName": {"string": "NVIDIA B200"},
                     "architecture": {"string": "Blackwell"}, "cudaComputeCapability": {"version": "10.0.0"},
                     "driverVersion": {"version": "570.172.8"}},
                     "capacity": {"memory": {"value": "180Gi"}}} for i in range(2)]},
    }]
    claims = [{
        "kind": "ResourceClaim", "apiVersion": "resource.k8s.io/v1",
        "metadata": {"name": "b200-train-gpu", "namespace": "ml"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}},
        "status": {"allocation": {"devices": {"results": [
            {"request": "gpu", "driver": "gpu.nvidia.com", "pool": "b200-dra-1", "device": "gpu-0"}]}}},
    }]
    local_queue = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
                   "metadata": {"name": "research", "namespace": "ml"}, "spec": {"clusterQueue": "research"},
                   "status": {"pendingWorkloads": 1, "reservingWorkloads": 2, "admittedWorkloads": 2}}
    cluster_queue = {
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": {"name": "research"},
        "spec": {"cohort": "ml", "namespaceSelector": {}, "resourceGroups": [{
            "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
            "flavors": [{"name": "h100", "resources": [
                {"name": "cpu", "nominalQuota": "224"}, {"name": "memory", "nominalQuota": "2000Gi"},
                {"name": "nvidia.com/gpu", "nominalQuota": "8", "borrowingLimit": "4"}]}]}]},
        "status": {
            "flavorsReservation": [{"name": "h100", "resources": [
                {"name": "cpu", "total": "96", "borrowed": "0"}, {"name": "memory", "total": "768Gi", "borrowed": "0"},
                {"name": "nvidia.com/gpu", "total": "6", "borrowed": "0"}]}],
            "flavorsUsage": [{"name": "h100", "resources": [
                {"name": "cpu", "total": "96", "borrowed": "0"}, {"name": "memory", "total": "768Gi", "borrowed": "0"},
                {"name": "nvidia.com/gpu", "total": "6", "borrowed": "0"}]}],
            "pendingWorkloads": 1, "reservingWorkloads": 2, "admittedWorkloads": 2}}
    flavor = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": "h100"},
              "spec": {"nodeLabels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
                                      "topology.kubernetes.io/zone": "east-a"}}}
    return {"nodes": listing("NodeList", nodes), "pods": listing("PodList", pods),
            "resourceslices": listing("ResourceSliceList", slices, "resource.k8s.io/v1"),
            "resourceclaims": listing("ResourceClaimList", claims, "resource.k8s.io/v1"),
            "localqueue": local_queue, "clusterqueue": cluster_queue, "resourceflavor": flavor}


def lab_eu() -> dict[str, Any]:
    l4 = {**gfd("NVIDIA-L4", 23034, 1, family="ada-lovelace", compute=(8, 9)),
          "node.kubernetes.io/instance-type": "g2-l4-8", "topology.kubernetes.io/zone": "eu-1",
          "eks.amazonaws.com/nodegroup": "l4-serving"}
    l4_alloc = {"cpu": "7910m", "memory": "30Gi", "nvidia.com/gpu": "1", "pods": "110"}
    single = gfd("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", 4864, 14, strategy="single", family="ampere",
                 compute=(8, 0), **{"nvidia.com/gpu.slices.gi": "1", "nvidia.com/gpu.slices.ci": "1",
                                    "nvidia.com/gpu.multiprocessors": "14"})
    p5 = {**gfd("NVIDIA-H100-80GB-HBM3", 81559, 8, family="hopper", compute=(9, 0)),
          "node.kubernetes.io/instance-type": "p5.48xlarge", "topology.kubernetes.io/zone": "eu-central-1a",
          "karpenter.sh/nodepool": "h100-burst", "karpenter.sh/capacity-type": "on-demand"}
    nodes = [
        node("ip-10-20-3-41.eu-central-1.compute.internal", labels=p5,
             allocatable={"cpu": "191450m", "memory": "1938410Mi", "nvidia.com/gpu": "8", "pods": "100"}),
        node("l4-1", labels=l4, allocatable=l4_alloc),
        node("l4-2", labels=l4, allocatable=l4_alloc),
        node("l4-3", labels=l4, allocatable=l4_alloc),
        node("a100-single-1", labels={**single, "node.kubernetes.io/instance-type": "a100-40-x2",
                                      "topology.kubernetes.io/zone": "eu-1"},
             allocatable={"cpu": "30", "memory": "220Gi", "nvidia.com/gpu": "14", "pods": "110"}),
        node("t4-old", labels={**gfd("Tesla-T4", 15360, 1, family="turing", compute=(7, 5)),
                               "node.kubernetes.io/instance-type": "t4-1", "topology.kubernetes.io/zone": "eu-1"},
             allocatable={"cpu": "8", "memory": "30Gi", "nvidia.com/gpu": "1", "pods": "110"}, ready=False),
    ]
    pods = [
        pod("finetune-70b", "ip-10-20-3-41.eu-central-1.compute.internal", {"nvidia.com/gpu": "8"}),
        pod("serve-mistral", "l4-1", {"nvidia.com/gpu": "1"}, namespace="serving"),
        pod("serve-whisper", "l4-2", {"nvidia.com/gpu": "1"}, namespace="serving"),
        pod("ci-gpu-tests", "a100-single-1", {"nvidia.com/gpu": "3"}, namespace="ci"),
    ]
    missing = NOT_FOUND
    nodepool = {
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "h100-burst"},
        "spec": {"template": {"metadata": {"labels": {"team": "ml"}}, "spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
            "requirements": [
                {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p5.48xlarge"]},
                {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
                {"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["h100"]},
                {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "In", "values": ["8"]},
                {"key": "karpenter.k8s.aws/instance-gpu-memory", "operator": "In", "values": ["81920"]}],
            "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]}},
            "limits": {"cpu": "1000", "nvidia.com/gpu": "16"},
            "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "30m"}},
        "status": {"resources": {"cpu": "192", "memory": "2002298Mi", "nvidia.com/gpu": "8", "nodes": "1",
                                 "pods": "100"},
                   "conditions": [{"type": "Ready", "status": "True", "reason": "Ready",
                                   "lastTransitionTime": "2026-11-28T07:12:40Z", "message": ""}]}}
    status = "\n".join([  # cluster-autoscaler 1.30+'s YAML status (its documented ConfigMap)
        "time: 2026-12-01 08:59:41.204517305 +0000 UTC", "autoscalerStatus: Running", "clusterWide:",
        "  health:", "    status: Healthy", "    nodeCounts:", "      registered:", "        total: 3",
        "        ready: 3", "    lastProbeTime: \"2026-12-01T08:59:41Z\"",
        "    lastTransitionTime: \"2026-11-28T07:10:02Z\"", "  scaleUp:", "    status: NoActivity",
        "  scaleDown:", "    status: NoCandidates", "nodeGroups:",
        "- name: eks-l4-serving-8cc5a6b2-1f3e-4d9a-b0c1-5e2f7a9d3c41", "  health:", "    status: Healthy",
        "    nodeCounts:", "      registered:", "        total: 3", "        ready: 3", "    cloudProviderTarget: 3",
        "    minSize: 1", "    maxSize: 6", "    lastProbeTime: \"2026-12-01T08:59:41Z\"", "  scaleUp:",
        "    status: NoActivity", "    backoffInfo: {}", "  scaleDown:", "    status: NoCandidates", ""])
    autoscaler = {"kind": "ConfigMap", "apiVersion": "v1",
                  "metadata": {"name": "cluster-autoscaler-status", "namespace": "kube-system",
                               "annotations": {"cluster-autoscaler.kubernetes.io/last-updated":
                                               "2026-12-01 08:59:41.204517305 +0000 UTC"}},
                  "data": {"status": status}}
    return {"nodes": listing("NodeList", nodes), "pods": listing("PodList", pods), "dra-missing": missing,
            "nodepools": listing("NodePoolList", [nodepool], "karpenter.sh/v1"), "autoscaler": autoscaler}


SETTINGS = """\
# The example team's internal rates and cluster locations (see gpuhub_kubernetes/settings.py for the shape).
# T4 has no rate on purpose: its offers are left out and the status says so.
currency = "USD"

[rates]
H100 = "2.10"
"A100-80GB" = "1.40"
A100 = "1.10"
L40S = "0.95"
L4 = "0.45"
B200 = "3.90"

[clusters.gpu-east]
city = "Ashburn"
country = "US"
continent = "North America"
latitude = 39.04
longitude = -77.49
bare_metal = true
queue = "ml/research"      # the user's Kueue LocalQueue: offers say how much of its GPU quota is left

[clusters.lab-eu]
city = "Frankfurt"
country = "DE"
continent = "Europe"
latitude = 50.11
longitude = 8.68
carbon_gco2e_per_kwh = 344
bare_metal = false
provision_wait_s = 300     # a p5.48xlarge from the Karpenter NodePool boots and joins in about five minutes
"""


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    exchanges: list[dict[str, Any]] = []

    def add(url: str, name: str, body: dict[str, Any], status: int = 200) -> None:
        (OUT / name).write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
        exchanges.append({"request": {"method": "GET", "url": url, "body": None},
                          "response": {"status": status, "headers": {"content-type": "application/json"},
                                       "body_file": name}})

    for context, answers in (("gpu-east", gpu_east()), ("lab-eu", lab_eu())):
        server = CLUSTERS[context]
        add(f"{server}/api/v1/nodes", f"{context}-nodes.json", answers["nodes"])
        add(f"{server}{PODS_QUERY}", f"{context}-pods.json", answers["pods"])
        if "resourceslices" in answers:
            add(f"{server}/apis/resource.k8s.io/v1/resourceslices", f"{context}-resourceslices.json",
                answers["resourceslices"])
            add(f"{server}/apis/resource.k8s.io/v1/resourceclaims", f"{context}-resourceclaims.json",
                answers["resourceclaims"])
        else:
            add(f"{server}/apis/resource.k8s.io/v1/resourceslices", f"{context}-dra-404.json",
                answers["dra-missing"], status=404)
        if "nodepools" in answers:
            add(f"{server}/apis/karpenter.sh/v1/nodepools", f"{context}-nodepools.json", answers["nodepools"])
        else:  # no Karpenter in this cluster: the API server's 404 Status, as a live read gets it
            add(f"{server}/apis/karpenter.sh/v1/nodepools", f"{context}-karpenter-404.json", NOT_FOUND, status=404)
        if "autoscaler" in answers:
            add(f"{server}/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status",
                f"{context}-autoscaler-status.json", answers["autoscaler"])
        else:
            add(f"{server}/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status",
                f"{context}-autoscaler-404.json", NOT_FOUND, status=404)
        if "localqueue" in answers:
            add(f"{server}/apis/kueue.x-k8s.io/v1beta1/namespaces/ml/localqueues/research",
                f"{context}-localqueue.json", answers["localqueue"])
            add(f"{server}/apis/kueue.x-k8s.io/v1beta1/clusterqueues/research", f"{context}-clusterqueue.json",
                answers["clusterqueue"])
            add(f"{server}/apis/kueue.x-k8s.io/v1beta1/resourceflavors/h100", f"{context}-resourceflavor.json",
                answers["resourceflavor"])
    manifest = {
        "format": 1, "provider": "kubernetes", "recorded_at": "2026-12-01", "kind": "reconstructed",
        "source": "Kubernetes API documented shapes (core/v1, resource.k8s.io/v1) with NVIDIA GPU feature "
                  "discovery labels and device-plugin resources; an example two-cluster internal cloud",
        "notes": "Built by scripts/build_recording.py. Nodes, pods and rates are an example team's, not a "
                 "capture of a real cluster; settings.toml holds the example rates and cluster locations.",
        "exchanges": exchanges,
    }
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    (OUT / "clusters.json").write_text(json.dumps(
        [{"context": c, "server": s} for c, s in CLUSTERS.items()], indent=1) + "\n", encoding="utf-8")
    (OUT / "settings.toml").write_text(SETTINGS, encoding="utf-8")


if __name__ == "__main__":
    main()
