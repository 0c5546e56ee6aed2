"""Network, fabric and local storage: the search arguments, the per-instance tests, and what is said about them.

The facts themselves are :class:`~gpuhub.model.Instance` fields filled by the plugins (``network_gbps``,
``network_peak_gbps``, ``fabric``, ``fabric_gbps``, ``fabric_interfaces``, ``storage_gib``, ``storage_kind``,
``storage_disks``, ``network_source``); unknown stays None and never passes a filter that asks for it.

Multi-node offers (``nodes`` > 1): N identical instances. Only instance types with an RDMA fabric between
instances (EFA, InfiniBand, RoCE, GPUDirect-TCPX/TCPXO) can form a training cluster worth the name, so the others
are left out and counted under ``nodes``; each remaining offer's cluster price is its price × N.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpuhub.model import Instance, Offer

__all__ = ["DATA_PATH_FIELDS", "FABRIC_CHOICES", "MAX_FIGURE", "MAX_NODES", "MIN_VCPUS_PER_GPU", "cluster_record",
           "cpu_starvation_note", "data_path_facts", "fabric_label", "fabric_matches", "network_label",
           "starvation_note"]

FABRIC_CHOICES: dict[str, tuple[str, ...]] = {
    "efa": ("EFA",),
    "infiniband": ("InfiniBand",),
    "roce": ("RoCE",),
    "gpudirect": ("GPUDirect-TCPX", "GPUDirect-TCPXO"),
    "any": ("EFA", "InfiniBand", "RoCE", "GPUDirect-TCPX", "GPUDirect-TCPXO"),
}
"""``--fabric`` values -> the :attr:`Instance.fabric` values they accept."""
MAX_NODES = 4096
"""The most nodes ``--nodes`` accepts (a bound on input, not a provider's limit)."""
MAX_FIGURE = 1e9
"""The largest bandwidth (Gbps) or disk (GiB) a filter accepts (a bound on input)."""
DATA_PATH_FIELDS = ("network_gbps", "fabric_gbps", "storage_gib")
"""The columns of :func:`data_path_facts`, in order."""
MIN_VCPUS_PER_GPU = 4.0
"""Fewer vCPUs per GPU than this starve a training or data-science job's GPUs (``--explain`` says so). A judgement:
data-loader worker processes decode and augment batches on the host's cores, and 2 or 3 of them per GPU fall behind
a datacenter GPU; half the data-science preset's 8 (:data:`gpuhub.answer.workloads.VCPUS_PER_GPU`)."""


def fabric_matches(instance: Instance, fabrics: tuple[str, ...]) -> bool:
    """True when the instance's fabric is one of the ``--fabric`` choices (an unknown fabric never matches)."""
    if instance.fabric is None:
        return False
    return any(instance.fabric in FABRIC_CHOICES[f] for f in fabrics)


def _gbps(value: float) -> str:
    return f"{value:,.0f} Gbps" if value >= 10 else f"{value:g} Gbps"


def fabric_label(instance: Instance) -> str:
    """``EFA 3,200 Gbps (32 interfaces)``, ``InfiniBand 3,200 Gbps (8 interfaces)``, ``RoCE``; ``-`` for none."""
    if instance.fabric is None:
        return "-"
    text: str = instance.fabric
    if instance.fabric_gbps:
        text += f" {_gbps(instance.fabric_gbps)}"
    if instance.fabric_interfaces:
        text += f" ({instance.fabric_interfaces} interface{'s' if instance.fabric_interfaces > 1 else ''})"
    return text


def network_label(instance: Instance) -> str:
    """The network column: ``3,200 Gbps, EFA (32 interfaces), 8 × NVMe 28312 GiB``; ``?`` where nothing is known."""
    parts = []
    if instance.network_gbps is not None:
        peak = f" (up to {_gbps(instance.network_peak_gbps)})" if instance.network_peak_gbps else ""
        parts.append(_gbps(instance.network_gbps) + peak)
    elif instance.network_peak_gbps is not None:
        parts.append(f"up to {_gbps(instance.network_peak_gbps)}")
    if instance.fabric is not None:
        parts.append(fabric_label(instance))
    if instance.storage_gib:
        disks = f"{instance.storage_disks} × " if instance.storage_disks and instance.storage_disks > 1 else ""
        kind = f"{instance.storage_kind} " if instance.storage_kind else ""
        parts.append(f"{disks}{kind}local {instance.storage_gib:,.0f} GiB".replace("  ", " "))
    return ", ".join(parts) or "?"


def data_path_facts(instance: Instance) -> tuple[float, float, float]:
    """The instance's data-path figures for ranking (:data:`DATA_PATH_FIELDS`), NaN where unknown: baseline network
    Gbps, fabric Gbps, local disk GiB (None stays unknown: a missing figure cannot tell "no local disk" from "not
    published")."""
    return tuple(float("nan") if x is None else float(x)  # type: ignore[return-value]
                 for x in (instance.network_gbps, instance.fabric_gbps, instance.storage_gib))


def cluster_record(offer: Offer, nodes: int) -> dict[str, Any]:
    """What ``nodes`` identical instances come to: ``nodes``, ``cluster_gpus``, ``cluster_price_per_hour``
    (the offer's price × nodes, exact), and the fabric between them."""
    amount: Decimal = offer.price.amount * nodes
    return {"nodes": nodes, "cluster_gpus": offer.instance.gpu_count * nodes,
            "cluster_price_per_hour": float(amount), "cluster_fabric": offer.instance.fabric}


def starvation_note(offer: Offer, nodes_needed: int) -> str | None:
    """A warning when the offer's network would starve its GPUs for the job: a job across ``nodes_needed`` > 1
    instances of a type with no known RDMA fabric (gradients then cross the ordinary network); else None."""
    inst = offer.instance
    if nodes_needed <= 1 or inst.fabric is not None:
        return None
    known = f"its {_gbps(inst.network_gbps)} network" if inst.network_gbps else "its network (bandwidth unknown)"
    return (f"no RDMA fabric known between {inst.instance_type} instances: a {nodes_needed}-node job would "
            f"exchange gradients over {known}, which starves the GPUs")


def cpu_starvation_note(offer: Offer) -> str | None:
    """A warning when the offer's CPU share would starve its GPUs for training or data science: fewer than
    :data:`MIN_VCPUS_PER_GPU` vCPUs per GPU (unknown vCPUs or GPUs: None, nothing is said)."""
    inst = offer.instance
    if not inst.vcpus or not inst.gpu_count:
        return None
    per_gpu = inst.vcpus / inst.gpu_count
    if per_gpu >= MIN_VCPUS_PER_GPU:
        return None
    return (f"{inst.vcpus:g} vCPUs for {inst.gpu_count:g} GPUs ({per_gpu:.3g} per GPU, under "
            f"{MIN_VCPUS_PER_GPU:g}): data loading and preprocessing would starve the GPUs")
