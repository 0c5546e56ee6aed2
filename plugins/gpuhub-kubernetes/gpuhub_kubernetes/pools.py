"""Capacity a cluster can add and quota a queue has left: Karpenter NodePools and Kueue queues.

Documented shapes only:

- Karpenter ``NodePool`` (``karpenter.sh/v1``, ``GET /apis/karpenter.sh/v1/nodepools``): ``spec.limits`` is a
  ResourceList capping what the pool may provision (``nvidia.com/gpu: 16``), ``status.resources`` what its nodes
  hold now; ``spec.template.metadata.labels`` and ``spec.template.spec.requirements`` (``key``, ``operator``,
  ``values``) say what a new node is: the well-known ``node.kubernetes.io/instance-type``, GFD's
  ``nvidia.com/gpu.product`` / ``nvidia.com/gpu.count``, or the AWS provider's ``karpenter.k8s.aws/instance-gpu-name``,
  ``instance-gpu-count`` and ``instance-gpu-memory`` (MiB). GPUs that can still be added = limit − in use.
- Kueue (``kueue.x-k8s.io/v1beta1``): a ``LocalQueue``'s ``spec.clusterQueue`` names its ``ClusterQueue``, whose
  ``spec.resourceGroups[].flavors[].resources[]`` give ``nominalQuota`` and ``borrowingLimit`` per resource and
  whose ``status.flavorsUsage[].resources[].total`` is what admitted workloads use; a ``ResourceFlavor``'s
  ``spec.nodeLabels`` say which nodes a flavor stands for. What the queue can still get on a node without
  borrowing = nominal − used of the flavors whose node labels the node has.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpuhub_kubernetes.parse import GPU_RESOURCE, POOL_LABELS, bounded

__all__ = ["MAX_POOL_GPUS", "POOL_LABELS", "NodeGroup", "PoolFacts", "QueueRoom", "autoscaler_groups",
           "flavor_matches", "nodepool_facts", "queue_rooms", "summed"]

MAX_POOL_GPUS = 1_000_000
"""A pool limit or queue quota above this many devices is a malformed record."""
_AWS = "karpenter.k8s.aws/"


@dataclass(frozen=True)
class PoolFacts:
    """One NodePool that may provision GPU nodes."""

    name: str
    product: str | None
    """The GPU's spelling (GFD product label or ``instance-gpu-name``), None when the pool does not say."""
    gpu_memory_gib: float | None
    gpus_per_node: int | None
    instance_type: str | None
    limit: int
    """``spec.limits["nvidia.com/gpu"]``: GPUs the pool may hold at most."""
    in_use: int
    """``status.resources["nvidia.com/gpu"]``: GPUs its nodes hold now."""
    node_labels: Mapping[str, str]
    """Labels a new node will have: the template's, and each requirement that allows one value."""

    @property
    def room(self) -> int:
        """GPUs that can still be provisioned (limit − in use, never below 0)."""
        return max(0, self.limit - self.in_use)


def _count(value: Any, what: str) -> int:
    amount = bounded(value, what, MAX_POOL_GPUS)
    if amount != amount.to_integral_value():
        raise ValueError(f"{what} = {value!r} is not a whole number")
    return int(amount)


def _single(requirements: list[Any], key: str) -> str | None:
    for item in requirements:
        if isinstance(item, Mapping) and item.get("key") == key and item.get("operator") == "In":
            values = item.get("values") or []
            if isinstance(values, list) and len(values) == 1:
                return str(values[0])
    return None


def nodepool_facts(pool: Mapping[str, Any]) -> PoolFacts | None:
    """The GPU facts of one NodePool; None when it sets no ``nvidia.com/gpu`` limit (a pool without a GPU limit
    can grow without bound or has no GPUs: no count of what it adds can be given).

    Raises:
        ValueError, KeyError, TypeError: a malformed pool (the caller skips and counts it).
    """
    name = str(pool["metadata"]["name"])
    spec = pool["spec"]
    limits = spec.get("limits") or {}
    if not isinstance(limits, Mapping) or GPU_RESOURCE not in limits:
        return None
    limit = _count(limits[GPU_RESOURCE], f"spec.limits[{GPU_RESOURCE}]")
    used = ((pool.get("status") or {}).get("resources") or {}).get(GPU_RESOURCE, 0)
    in_use = _count(used, f"status.resources[{GPU_RESOURCE}]")
    template = spec.get("template") or {}
    labels = (template.get("metadata") or {}).get("labels") or {}
    requirements = (template.get("spec") or {}).get("requirements") or []
    if not isinstance(labels, Mapping) or not isinstance(requirements, list):
        raise ValueError("template labels or requirements of the wrong kind")
    product = labels.get("nvidia.com/gpu.product") or _single(requirements, f"{_AWS}instance-gpu-name")
    count = labels.get("nvidia.com/gpu.count") or _single(requirements, f"{_AWS}instance-gpu-count")
    memory = _single(requirements, f"{_AWS}instance-gpu-memory")
    return PoolFacts(
        name=name, product=str(product) if product else None,
        gpu_memory_gib=float(bounded(memory, "instance-gpu-memory", 2**30) / 1024) if memory else None,
        gpus_per_node=_count(count, "GPUs per node") or None if count is not None else None,
        instance_type=_single(requirements, "node.kubernetes.io/instance-type"), limit=limit, in_use=in_use,
        node_labels={**{str(k): str(v) for k, v in labels.items()},
                     **{str(r["key"]): value for r in requirements if isinstance(r, Mapping) and "key" in r
                        and (value := _single([r], str(r["key"]))) is not None}})


@dataclass(frozen=True)
class QueueRoom:
    """What one Kueue queue may still be admitted for one resource (``nvidia.com/gpu``, ``nvidia.com/mig-...``)."""

    resource: str
    nominal: int
    """Sum of ``nominalQuota`` over the ClusterQueue's flavors."""
    used: int
    """Sum of ``status.flavorsUsage[].resources[].total``: what admitted workloads hold."""
    borrowing_limit: int | None
    """Sum of ``borrowingLimit`` (None: a flavor sets none, so it may borrow whatever its cohort lends)."""

    @property
    def left(self) -> int:
        """Quota left without borrowing: nominal − used, never below 0."""
        return max(0, self.nominal - self.used)


def queue_rooms(cluster_queue: Mapping[str, Any]) -> dict[str, dict[str, QueueRoom]]:
    """Per flavor of a ClusterQueue and per GPU resource (``nvidia.com/gpu`` and MIG resources only), the quota it
    has left: ``{"h100": {"nvidia.com/gpu": QueueRoom(...)}}``.

    Raises:
        ValueError, KeyError, TypeError: a malformed ClusterQueue.
    """
    rooms: dict[str, dict[str, QueueRoom]] = {}
    used: dict[tuple[str, str], int] = {}
    for flavor in (cluster_queue.get("status") or {}).get("flavorsUsage") or []:
        for resource in flavor.get("resources") or []:
            key = (str(flavor["name"]), str(resource["name"]))
            if key[1] != GPU_RESOURCE and not key[1].startswith("nvidia.com/mig-"):
                continue
            used[key] = used.get(key, 0) + _count(resource.get("total", 0), f"usage of {key[1]}")
    for group in (cluster_queue.get("spec") or {}).get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            name = str(flavor["name"])
            for resource in flavor.get("resources") or []:
                kind = str(resource["name"])
                if kind != GPU_RESOURCE and not kind.startswith("nvidia.com/mig-"):
                    continue
                limit = resource.get("borrowingLimit")
                rooms.setdefault(name, {})[kind] = QueueRoom(
                    kind, _count(resource.get("nominalQuota", 0), f"nominalQuota of {kind}"),
                    used.get((name, kind), 0),
                    None if limit is None else _count(limit, f"borrowingLimit of {kind}"))
    return rooms


def flavor_matches(node_labels: Mapping[str, str], flavor: Mapping[str, Any] | None) -> bool:
    """Whether a node with ``node_labels`` is one a ResourceFlavor (``spec.nodeLabels``) stands for; a flavor
    without node labels stands for every node, a flavor that could not be read for none."""
    if flavor is None:
        return False
    wanted = (flavor.get("spec") or {}).get("nodeLabels") or {}
    if not isinstance(wanted, Mapping):
        raise ValueError("ResourceFlavor spec.nodeLabels is not an object")
    return all(node_labels.get(str(k)) == str(v) for k, v in wanted.items())


def summed(rooms: list[QueueRoom]) -> QueueRoom:
    """Several flavors' room for one resource as one (a shape two flavors both stand for)."""
    limits = [r.borrowing_limit for r in rooms]
    return QueueRoom(rooms[0].resource, sum(r.nominal for r in rooms), sum(r.used for r in rooms),
                     None if any(v is None for v in limits) else sum(v or 0 for v in limits))


MAX_GROUP_NODES = 100_000
_ID_WORD = re.compile(r"[0-9a-f]+|vmss|grp")


@dataclass(frozen=True)
class NodeGroup:
    """One node group cluster-autoscaler manages, from its status ConfigMap."""

    name: str
    """cluster-autoscaler's name for it: the ASG, MIG or scale set (``eks-gpu-a1b2...``, ``aks-user-1234-vmss``)."""
    min_size: int
    max_size: int
    target: int
    """``cloudProviderTarget``: the size the autoscaler asked the cloud for now."""

    @property
    def room(self) -> int:
        """Nodes the autoscaler may still add: max size − current target, never below 0."""
        return max(0, self.max_size - self.target)

    def holds(self, pool: str) -> bool:
        """Whether this group is the managed pool named ``pool`` (a node's pool label). The services name the
        group after the pool followed by identifiers only: EKS ``eks-<nodegroup>-<uuid>``, AKS
        ``aks-<pool>-<digits>-vmss``, GKE ``gke-<cluster>-<pool>-<hash>-grp``; so ``eks-l4-serving-8cc5...``
        holds ``l4-serving`` and not ``l4``."""
        words, wanted = self.name.lower().split("-"), pool.lower().split("-")
        starts = range(1, 2) if words[0] in ("eks", "aks") else range(1, len(words) - len(wanted) + 1)
        for i in starts:
            rest = words[i + len(wanted):]
            if words[i:i + len(wanted)] == wanted and rest and all(_ID_WORD.fullmatch(w) for w in rest):
                return True
        return False


def autoscaler_groups(status_text: str) -> list[NodeGroup]:
    """The node groups of cluster-autoscaler's status ConfigMap (``kube-system/cluster-autoscaler-status``,
    ``data.status``): the YAML document of cluster-autoscaler 1.30 and later (``nodeGroups[].name``,
    ``health.minSize``, ``maxSize``, ``cloudProviderTarget``).

    Raises:
        ValueError: not that document (an older autoscaler's prose status, or YAML of another shape).
    """
    import yaml

    try:
        document = yaml.safe_load(status_text)
    except yaml.YAMLError as exc:
        raise ValueError(f"cluster-autoscaler status is not YAML: {exc}") from None
    if not isinstance(document, Mapping) or "autoscalerStatus" not in document \
            or not isinstance(document.get("nodeGroups") or [], list):
        raise ValueError("cluster-autoscaler status has no nodeGroups list (an autoscaler older than 1.30?)")
    groups = []
    for item in document.get("nodeGroups") or []:
        health = item["health"]
        sizes = [health.get(key) for key in ("minSize", "maxSize", "cloudProviderTarget")]
        if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_GROUP_NODES for v in sizes):
            raise ValueError(f"node group {item.get('name')!r}: sizes {sizes} out of range")
        groups.append(NodeGroup(str(item["name"]), *sizes))
    return groups
