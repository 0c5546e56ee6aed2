"""The inter-node fabric of GCP's accelerator-optimized machine types.

Compute Engine's machine-type API gives no network facts, so the fabric comes from what Google and the launchers
built on it document: A3 High (``a3-highgpu-8g``) uses GPUDirect-TCPX, A3 Mega (``a3-megagpu-8g``)
GPUDirect-TCPXO, and A3 Ultra (``a3-ultragpu-8g``) and A4 (``a4-highgpu-8g``) RDMA over Converged Ethernet on
ConnectX-7 NICs. The bandwidth is not carried: the public sources found disagree on it, and unknown stays unknown.
"""

from __future__ import annotations

from typing import Any

__all__ = ["network_fields"]

_TCPX_SOURCE = ("Google Cloud, GKE 'Maximize GPU network bandwidth with GPUDirect-TCPX and multi-networking' "
                "(A3 High: TCPX, A3 Mega: TCPXO), as dstack's fleet documentation also states")
_ROCE_SOURCE = ("Google Cloud Cluster Toolkit v1.44.1 release notes (A3 Ultra: 8 H200 each with a dedicated CX-7 "
                "NIC, RDMA via RoCE); dstack's fleet documentation (RoCE for A4)")
_FABRICS: dict[str, tuple[str, str]] = {
    "a3-highgpu-8g": ("GPUDirect-TCPX", _TCPX_SOURCE),
    "a3-megagpu-8g": ("GPUDirect-TCPXO", _TCPX_SOURCE),
    "a3-ultragpu-8g": ("RoCE", _ROCE_SOURCE),
    "a4-highgpu-8g": ("RoCE", _ROCE_SOURCE),
}


def network_fields(machine_type: str) -> dict[str, Any]:
    """The :class:`gpuhub.plugin.Instance` fabric fields of a machine type (``fabric``, ``network_source``);
    empty for types without a documented multi-node fabric."""
    known = _FABRICS.get(machine_type)
    return {} if known is None else {"fabric": known[0], "network_source": known[1]}
