"""Network, fabric and local storage: the search arguments, the per-instance tests, and what is said about them.

The facts themselves are :class:`~gpuhub.model.Instance` fields filled by the plugins (``network_gbps``,
``network_peak_gbps``, ``fabric``, ``fabric_gbps``, ``fabric_interfaces``, ``storage_gib``, ``storage_kind``,
``storage_disks``, ``network_source``); unknown stays None and never passes a filter that asks for it.

Multi-node offers (``nodes`` > 1): N identical instances. Only instance types with an RDMA fabric between
instances (EFA, InfiniBand, RoCE, GPUDirect-TCPX/TCPXO) can form a training cluster worth the name, so the others
are left out and counted under ``nodes``; each remaining offer's cluster price is its price × N.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from gpuhub.errors import QueryError
from gpuhub.model import Instance, Offer

__all__ = ["FABRIC_CHOICES", "MAX_NODES", "cluster_record", "fabric_label", "fabric_matches", "network_arguments",
           "network_label", "starvation_note"]

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
_MAX_FIGURE = 1e9


def _bound(name: str, value: Any, unit: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise QueryError(name, f"expected a number of {unit}, got {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise QueryError(name, f"expected a number of {unit}, got {value!r}") from None
    if not math.isfinite(number) or not 0 <= number <= _MAX_FIGURE:
        raise QueryError(name, f"expected a number of {unit} from 0 to {_MAX_FIGURE:.0f}, got {value!r}")
    return number


def network_arguments(min_network_gbps: Any, fabric: Any, min_local_disk: Any, local_nvme: Any,
                      nodes: Any) -> dict[str, Any]:
    """The network and cluster arguments as :class:`~gpuhub.answer.query.Query` fields.

    Args:
        min_network_gbps: baseline network bandwidth at least, Gbps. fabric: one or several of
            :data:`FABRIC_CHOICES` (text, comma-separated text or a list). min_local_disk: local disk at least, GiB.
        local_nvme: only instances with local NVMe disks. nodes: identical instances wanted, 1 to :data:`MAX_NODES`.

    Raises:
        QueryError: a value is not a number in range or not an allowed fabric (the message names the argument and
            the allowed values).
    """
    fabrics: list[str] = []
    if fabric is not None:
        items = [fabric] if isinstance(fabric, str) else list(fabric) if isinstance(fabric, (list, tuple)) else None
        if items is None or not all(isinstance(i, str) for i in items):
            raise QueryError("fabric", f"expected text, got {fabric!r}; allowed values: {', '.join(FABRIC_CHOICES)}")
        for item in items:
            for part in (p.strip().lower() for p in item.split(",")):
                if part not in FABRIC_CHOICES:
                    raise QueryError("fabric", f"{part!r} is not allowed; allowed values: "
                                               f"{', '.join(FABRIC_CHOICES)}")
                fabrics.append(part)
        if not fabrics:
            raise QueryError("fabric", f"is empty; allowed values: {', '.join(FABRIC_CHOICES)}")
    count = 1
    if nodes is not None:
        bad = QueryError("nodes", f"must be a whole number from 1 to {MAX_NODES}, got {nodes!r}")
        if isinstance(nodes, bool) or not isinstance(nodes, (int, float, str)):
            raise bad
        try:
            number = float(nodes)
        except ValueError:
            raise bad from None
        if not number.is_integer() or not 1 <= number <= MAX_NODES:
            raise bad
        count = int(number)
    return {"min_network_gbps": _bound("min_network_gbps", min_network_gbps, "Gbps"),
            "fabrics": tuple(sorted(set(fabrics))),
            "min_local_disk_gib": _bound("min_local_disk", min_local_disk, "GiB"),
            "local_nvme": bool(local_nvme), "nodes": count}


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
