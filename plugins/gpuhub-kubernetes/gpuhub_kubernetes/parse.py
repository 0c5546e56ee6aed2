"""Kubernetes API answers (NodeList, PodList, ResourceSliceList, ResourceClaimList) turned into GPU node shapes.

The facts come from documented shapes only:

- Nodes (``GET /api/v1/nodes``): ``status.allocatable`` holds the extended resources the NVIDIA device plugin
  advertises (``nvidia.com/gpu`` for whole GPUs, ``nvidia.com/mig-<profile>`` for MIG slices under the ``mixed``
  strategy); the labels of NVIDIA GPU feature discovery (GFD) say what the GPU is: ``nvidia.com/gpu.product``
  (e.g. ``NVIDIA-A100-SXM4-80GB``; under the ``single`` MIG strategy it ends in ``-MIG-1g.10gb``),
  ``nvidia.com/gpu.memory`` (MiB per GPU), ``nvidia.com/gpu.count``, ``nvidia.com/mig.strategy`` and, per MIG
  profile, ``nvidia.com/mig-<profile>.memory`` (MiB) and ``.slices.gi`` (GPU instances out of the card's 7).
  Well-known labels give the rest: ``node.kubernetes.io/instance-type``, ``kubernetes.io/arch``,
  ``topology.kubernetes.io/zone``.
- Pods (``GET /api/v1/pods``): every pod bound to a node (``spec.nodeName``) that has not finished holds its
  containers' requests (extended resources: requests equal limits, so a limit alone counts too).
- Dynamic Resource Allocation (``resource.k8s.io/v1``): ``ResourceSlice`` devices of the NVIDIA DRA driver
  (``gpu.nvidia.com``) with ``attributes.productName`` and ``capacity.memory``, and ``ResourceClaim`` allocations
  (``status.allocation.devices.results``) that take them.

Free now = allocatable − requested, per node and resource; a node that is cordoned or not Ready has none free.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["GPU_RESOURCE", "MAX_DEVICES_PER_NODE", "MIG_SLICES_PER_GPU", "POOL_LABELS", "Capacity", "NodeFacts",
           "NodeHardware", "Slice", "bounded", "dra_devices", "node_facts", "parse_cpu", "parse_memory_gib", "quantity",
           "requested_by_node"]

GPU_RESOURCE = "nvidia.com/gpu"
MIG_PREFIX = "nvidia.com/mig-"
MIG_SLICES_PER_GPU = 7
"""GPU instance slices of one A100/H100/H200/B200 card (``1g`` is one seventh of the compute)."""
DRA_DRIVER = "gpu.nvidia.com"
_DONE_PHASES = frozenset({"Succeeded", "Failed"})
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3"), "": Decimal(1), "k": Decimal(10**3),
            "M": Decimal(10**6), "G": Decimal(10**9), "T": Decimal(10**12), "P": Decimal(10**15),
            "E": Decimal(10**18)}
_QUANTITY = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([KMGTPE]i|[numkMGTPE]?)\s*$")
POOL_LABELS = ("eks.amazonaws.com/nodegroup", "cloud.google.com/gke-nodepool", "kubernetes.azure.com/agentpool")
"""Node labels the managed Kubernetes services put on a node naming its node pool / group (EKS, GKE, AKS)."""
MAX_QUANTITY_DIGITS = 24
"""Digits a quantity may have before its suffix: ``1e100`` is not a resource amount, and a huge exponent would
make the arithmetic below raise or allocate without bound."""
MAX_DEVICES_PER_NODE = 1024
"""Most GPUs, MIG slices or other devices of one kind a node may report (the largest systems have 72 GPUs per
rack-scale domain and 7 slices per GPU); more is a malformed node, skipped and counted."""
MAX_CPUS_PER_NODE = 100_000
MAX_MEMORY_BYTES_PER_NODE = 2**50
"""1 PiB: more host memory than any node has; more is a malformed node."""
_SINGLE_MIG = re.compile(r"-MIG-(\d+g\.\d+gb)$", re.IGNORECASE)


def quantity(text: Any) -> Decimal:
    """A Kubernetes resource quantity (``"96"``, ``"95500m"``, ``"1056426Mi"``, ``"2Ti"``, ``"1e3"``) as a
    number in base units.

    Raises:
        ValueError: not a quantity, or a number of more than :data:`MAX_QUANTITY_DIGITS` digits (``1e100``).
    """
    if isinstance(text, bool):
        raise ValueError(f"not a Kubernetes quantity: {text!r}")
    if isinstance(text, (int, float)):
        text = str(text)
    match = _QUANTITY.match(str(text))
    if match is None:
        raise ValueError(f"not a Kubernetes quantity: {text!r}")
    number, suffix = match.groups()
    try:
        value = Decimal(number)
    except InvalidOperation:
        raise ValueError(f"not a Kubernetes quantity: {text!r}") from None
    if not value.is_finite() or value.adjusted() > MAX_QUANTITY_DIGITS or value.adjusted() < -MAX_QUANTITY_DIGITS:
        raise ValueError(f"Kubernetes quantity out of range: {text!r}")
    return value * (_BINARY[suffix] if suffix in _BINARY else _DECIMAL[suffix])


def bounded(text: Any, what: str, limit: float) -> Decimal:
    """A quantity that must lie in ``0 <= value <= limit`` (base units), else a ValueError naming ``what``."""
    value = quantity(text)
    if value < 0 or value > Decimal(str(limit)):
        raise ValueError(f"{what} = {text!r} is outside 0..{limit:g}")
    return value


def parse_cpu(text: Any) -> float:
    """CPU cores from a quantity (``"95500m"`` → 95.5).

    Raises:
        ValueError: not a quantity, negative, or more than :data:`MAX_CPUS_PER_NODE`.
    """
    return float(bounded(text, "cpu", MAX_CPUS_PER_NODE))


def parse_memory_gib(text: Any) -> float:
    """GiB from a memory quantity (``"2Ti"`` → 2048.0, ``"64G"`` → 59.6…).

    Raises:
        ValueError: not a quantity, negative, or more than :data:`MAX_MEMORY_BYTES_PER_NODE`.
    """
    return float(bounded(text, "memory", MAX_MEMORY_BYTES_PER_NODE) / (2**30))


@dataclass(frozen=True)
class Slice:
    """One kind of GPU resource a node offers: a whole GPU or one MIG profile."""

    resource: str
    """The extended resource name a pod requests: ``nvidia.com/gpu`` or ``nvidia.com/mig-1g.10gb``."""
    profile: str | None
    """MIG profile (``1g.10gb``), None for a whole GPU."""
    memory_gib: float | None
    """VRAM of one unit in GiB (the card's, or the slice's as GFD reports it)."""
    compute_share: float
    """Share of one card's compute per unit: 1 for a whole GPU, GPU instances / 7 for a MIG slice."""


@dataclass
class Capacity:
    """How many units of one :class:`Slice` a node has and how many are free now."""

    allocatable: int
    free: int


@dataclass(frozen=True)
class NodeHardware:
    """A node's GPUs and size: what a node (:class:`NodeFacts`) reports and what nodes offered as one shape share."""

    product: str | None
    """GFD's ``nvidia.com/gpu.product`` with any ``-MIG-<profile>`` suffix removed (the card's name)."""
    gpu_memory_gib: float | None
    """One card's memory in GiB (GFD's ``nvidia.com/gpu.memory``), None when unknown or a MIG slice's."""
    gpu_count: int
    vcpus: float | None
    """Allocatable vCPUs."""
    memory_gib: float | None
    """Allocatable memory in GiB."""
    cpu_arch: str
    instance_type: str | None
    """The cloud's instance type (``node.kubernetes.io/instance-type``), None on bare metal."""


@dataclass(frozen=True)
class NodeFacts(NodeHardware):
    """What one node says about its GPUs, with the free count of each GPU resource (``slices``, filled once)."""

    name: str
    zone: str | None
    schedulable: bool
    mig_strategy: str
    slices: dict[Slice, Capacity] = field(default_factory=dict)
    pool: str | None = None
    """The managed node pool the node belongs to (EKS node group, GKE node pool, AKS agent pool label)."""
    labels: Mapping[str, str] = field(default_factory=dict)
    """The node's labels (for Kueue ResourceFlavors' node labels)."""


def _int(value: Any, what: str = "device count") -> int:
    """A whole device count in ``0..MAX_DEVICES_PER_NODE`` (a fraction is a malformed record, not rounded)."""
    amount = bounded(value, what, MAX_DEVICES_PER_NODE)
    if amount != amount.to_integral_value():
        raise ValueError(f"{what} = {value!r} is not a whole number")
    return int(amount)


def _labels(node: Mapping[str, Any]) -> Mapping[str, str]:
    labels = (node.get("metadata") or {}).get("labels") or {}
    if not isinstance(labels, Mapping):
        raise ValueError("metadata.labels is not an object")
    return labels


def _ready(node: Mapping[str, Any]) -> bool:
    status = node.get("status") or {}
    for condition in status.get("conditions") or []:
        if isinstance(condition, Mapping) and condition.get("type") == "Ready":
            return condition.get("status") == "True"
    return False  # a node that reports no Ready condition cannot take pods


def _mib_to_gib(value: str | None) -> float | None:
    if value in (None, ""):
        return None
    mib = bounded(value, "GPU memory (MiB)", MAX_MEMORY_BYTES_PER_NODE / 2**20)
    return float(mib / 1024) if mib > 0 else None


def node_facts(node: Mapping[str, Any], requested: Mapping[str, Counter[str]]) -> NodeFacts:
    """The GPU facts of one Node object and its free resources given the pods' ``requested`` per node.

    Raises:
        ValueError, KeyError, TypeError: a malformed node (the caller skips and counts it).
    """
    meta = node.get("metadata") or {}
    name = str(meta["name"])
    labels = _labels(node)
    status = node.get("status") or {}
    allocatable = status["allocatable"]  # every node reports it: a node without it is malformed, not CPU-only
    if not isinstance(allocatable, Mapping):
        raise ValueError("status.allocatable is not an object")
    product = labels.get("nvidia.com/gpu.product")
    strategy = labels.get("nvidia.com/mig.strategy", "none")
    single_profile: str | None = None
    if product:
        match = _SINGLE_MIG.search(product)
        if match:
            single_profile, product = match.group(1), product[:match.start()]
    # Under the single strategy GFD's gpu.memory is the slice's, not the card's: the GPU table gives the card.
    card_gib = None if single_profile else _mib_to_gib(labels.get("nvidia.com/gpu.memory"))
    used = requested.get(name, Counter())
    schedulable = _ready(node) and not (node.get("spec") or {}).get("unschedulable", False)
    facts = NodeFacts(
        name=name, product=product, gpu_memory_gib=card_gib,
        gpu_count=_int(labels.get("nvidia.com/gpu.count", allocatable.get(GPU_RESOURCE, 0))),
        vcpus=parse_cpu(allocatable["cpu"]) if "cpu" in allocatable else None,
        memory_gib=round(parse_memory_gib(allocatable["memory"]), 1) if "memory" in allocatable else None,
        cpu_arch="arm64" if labels.get("kubernetes.io/arch") == "arm64" else "x86_64",
        instance_type=labels.get("node.kubernetes.io/instance-type"),
        zone=labels.get("topology.kubernetes.io/zone"), schedulable=schedulable, mig_strategy=strategy,
        pool=next((str(labels[k]) for k in POOL_LABELS if labels.get(k)), None),
        labels={str(k): str(v) for k, v in labels.items()})
    for resource, amount in allocatable.items():
        if resource != GPU_RESOURCE and not resource.startswith(MIG_PREFIX):
            continue
        count = _int(amount, resource)
        if count <= 0:
            continue
        if resource == GPU_RESOURCE:
            if single_profile is not None:  # single strategy: every nvidia.com/gpu is one slice of this profile
                unit = _mig_slice(GPU_RESOURCE, single_profile, labels, "nvidia.com/gpu")
            else:
                unit = Slice(GPU_RESOURCE, None, card_gib, 1.0)
        elif resource.startswith(MIG_PREFIX):
            profile = resource[len(MIG_PREFIX):]
            unit = _mig_slice(resource, profile, labels, resource)
        else:
            continue
        free = max(0, count - used.get(resource, 0)) if schedulable else 0
        facts.slices[unit] = Capacity(allocatable=count, free=free)
    return facts


def _mig_slice(resource: str, profile: str, labels: Mapping[str, str], label_prefix: str) -> Slice:
    memory = _mib_to_gib(labels.get(f"{label_prefix}.memory"))
    gi = labels.get(f"{label_prefix}.slices.gi")
    if gi is None:  # the profile's name starts with its GPU instance count: "3g.40gb"
        gi = profile.split("g.", 1)[0]
    instances = int(gi)
    if not 1 <= instances <= MIG_SLICES_PER_GPU:
        raise ValueError(f"MIG profile {profile!r}: {instances} GPU instances, not 1..{MIG_SLICES_PER_GPU}")
    share = instances / MIG_SLICES_PER_GPU
    return Slice(resource, profile, memory, share)


def _pod_requests(pod: Mapping[str, Any]) -> Counter[str]:
    spec = pod.get("spec") or {}
    total: Counter[str] = Counter()
    for container in spec.get("containers") or []:
        resources = container.get("resources") or {}
        wanted = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
        for name, amount in wanted.items():
            if name == GPU_RESOURCE or name.startswith(MIG_PREFIX):
                total[name] += _int(amount, name)
    # Init containers run one at a time before the others: the pod holds the largest of them or the sum above.
    for container in spec.get("initContainers") or []:
        resources = container.get("resources") or {}
        wanted = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
        for name, amount in wanted.items():
            if name == GPU_RESOURCE or name.startswith(MIG_PREFIX):
                total[name] = max(total[name], _int(amount, name))
    return total


def requested_by_node(pods: Iterable[Mapping[str, Any]]) -> tuple[dict[str, Counter[str]], int]:
    """GPU resources held per node by pods that are bound and not finished; and how many pods were malformed."""
    held: dict[str, Counter[str]] = {}
    bad = 0
    for pod in pods:
        try:
            node = (pod.get("spec") or {}).get("nodeName")
            phase = (pod.get("status") or {}).get("phase")
            if not node or phase in _DONE_PHASES:
                continue
            held.setdefault(str(node), Counter()).update(_pod_requests(pod))
        except (AttributeError, TypeError, ValueError, ArithmeticError):
            bad += 1
    return held, bad


@dataclass(frozen=True)
class DraDevice:
    """One device a DRA ResourceSlice publishes, and whether a ResourceClaim holds it."""

    node: str
    pool: str
    name: str
    product: str | None
    memory_gib: float | None
    kind: str
    allocated: bool


def dra_devices(slices: Iterable[Mapping[str, Any]], claims: Iterable[Mapping[str, Any]]) -> list[DraDevice]:
    """The NVIDIA DRA driver's devices (``gpu.nvidia.com``) with their allocation state.

    Raises:
        ValueError, KeyError, TypeError: a malformed slice.
    """
    taken: set[tuple[str, str]] = set()
    for claim in claims:
        allocation = ((claim.get("status") or {}).get("allocation") or {}).get("devices") or {}
        for result in allocation.get("results") or []:
            if result.get("driver") == DRA_DRIVER:
                taken.add((str(result.get("pool")), str(result.get("device"))))
    out: list[DraDevice] = []
    for item in slices:
        spec = item.get("spec") or {}
        if spec.get("driver") != DRA_DRIVER:
            continue
        node = str(spec.get("nodeName") or "")
        pool = str((spec.get("pool") or {}).get("name") or node)
        for device in spec["devices"]:
            attributes = device.get("attributes") or {}
            capacity = device.get("capacity") or {}
            product = (attributes.get("productName") or {}).get("string")
            kind = (attributes.get("type") or {}).get("string") or "gpu"
            memory = (capacity.get("memory") or {}).get("value")
            out.append(DraDevice(node=node, pool=pool, name=str(device["name"]), product=product,
                                 memory_gib=parse_memory_gib(memory) if memory is not None else None, kind=kind,
                                 allocated=(pool, str(device["name"])) in taken))
    return out
