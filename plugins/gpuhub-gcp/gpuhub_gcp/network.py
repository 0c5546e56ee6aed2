"""The network bandwidth and inter-node fabric of GCP's GPU machine types.

Compute Engine's machine-type API gives no network facts, so they come from Google's documentation:

* the per-type "Maximum network bandwidth (Gbps)" of the A2, A3 High, G2 and G4 tables of "GPU machine types"
  (https://docs.cloud.google.com/compute/docs/gpus, the tables as captured on 2026-04-15), which is the
  ``network_gbps`` of the type; the same tables give the attached Local SSD (GiB) the machine catalogue carries;
* the "Max total bandwidth" and "GPU to GPU networking technology" of the overview table of "Networking and GPU
  machines" (https://docs.cloud.google.com/compute/docs/gpus/gpu-network-bandwidth, read 2026-12-02): A3 Mega
  1,800 Gbps over GPUDirect-TCPXO, A3 Edge 600 Gbps over GPUDirect-TCPX, A3 Ultra and A4 3,600 Gbps over
  GPUDirect RDMA, where "eight NVIDIA ConnectX-7 (CX7) network interface cards ... deliver a total network
  bandwidth of 3,200 Gbps" between GPUs (RDMA over Converged Ethernet: Cluster Toolkit v1.44.1 release notes) and
  two gVNICs add 400 Gbps for general networking;
* A3 High's GPUDirect-TCPX and A3 Mega's TCPXO also from Google's GKE page "Maximize GPU network bandwidth with
  GPUDirect-TCPX and multi-networking", as dstack's fleet documentation states too.

The fabric's own rate is carried only where Google states it apart from the total (A3 Ultra and A4: 3,200 Gbps
on 8 interfaces); for A3 High, Mega and Edge the share of the total that the GPU NICs carry is not stated, so
``fabric_gbps`` stays unknown. N1 machine types with attached GPUs get nothing: their bandwidth depends on the
GPU and vCPU count in a table the sources found do not give.
"""

from __future__ import annotations

from typing import Any

__all__ = ["network_fields"]

_TABLES_SOURCE = ("Google Cloud docs, GPU machine types (docs.cloud.google.com/compute/docs/gpus, tables as "
                  "captured 2026-04-15): {name} maximum network bandwidth {gbps:,g} Gbps")
_OVERVIEW_SOURCE = ("Google Cloud docs, Networking and GPU machines (docs.cloud.google.com/compute/docs/gpus/"
                    "gpu-network-bandwidth, read 2026-12-02): {series} max total bandwidth {gbps:,g} Gbps")
_TCPX_SOURCE = ("Google Cloud, GKE 'Maximize GPU network bandwidth with GPUDirect-TCPX and multi-networking' "
                "(A3 High: TCPX, A3 Mega: TCPXO), as dstack's fleet documentation also states")
_RDMA_SOURCE = ("eight ConnectX-7 NICs deliver a total of 3,200 Gbps GPU to GPU, two gVNICs 400 Gbps more "
                "(same page); RDMA over Converged Ethernet: Google Cloud Cluster Toolkit v1.44.1 release notes "
                "(A3 Ultra: 8 H200 each with a dedicated CX-7 NIC, RDMA via RoCE), dstack's fleet documentation "
                "(RoCE for A4)")

_TABLE_GBPS: dict[str, float] = {
    **{f"a2-highgpu-{n}g": gbps for n, gbps in ((1, 24), (2, 32), (4, 50), (8, 100))},
    "a2-megagpu-16g": 100,
    **{f"a2-ultragpu-{n}g": gbps for n, gbps in ((1, 24), (2, 32), (4, 50), (8, 100))},
    **{f"a3-highgpu-{n}g": gbps for n, gbps in ((1, 25), (2, 50), (4, 100), (8, 1000))},
    **{f"g2-standard-{v}": gbps for v, gbps in ((4, 10), (8, 16), (12, 16), (16, 32), (24, 32), (32, 32), (48, 50),
                                                 (96, 100))},
    **{f"g4-standard-{v}": gbps for v, gbps in ((48, 50), (96, 100), (192, 200), (384, 400))},
}
"""Maximum network bandwidth per machine type, Gbps, from the "GPU machine types" tables."""

# machine type -> (series and technology as the overview names them, max total Gbps, fabric, fabric Gbps,
# fabric interfaces)
_OVERVIEW: dict[str, tuple[str, str, float, str, float | None, int | None]] = {
    "a3-megagpu-8g": ("A3 Mega", "GPUDirect-TCPXO", 1800, "GPUDirect-TCPXO", None, None),
    "a3-edgegpu-8g": ("A3 Edge", "GPUDirect-TCPX", 600, "GPUDirect-TCPX", None, None),
    "a3-ultragpu-8g": ("A3 Ultra", "GPUDirect RDMA", 3600, "RoCE", 3200, 8),
    "a4-highgpu-8g": ("A4", "GPUDirect RDMA", 3600, "RoCE", 3200, 8),
}
_TCPX_TYPES = {"a3-highgpu-8g": "GPUDirect-TCPX"}
"""A3 High with 8 GPUs: TCPX (its bandwidth is in the machine-type table)."""


def network_fields(machine_type: str) -> dict[str, Any]:
    """The :class:`gpuhub.plugin.Instance` network fields of a machine type (``network_gbps``, ``fabric``,
    ``fabric_gbps``, ``fabric_interfaces``) with their ``network_source``; empty for types Google's pages give no
    network facts for (N1 with attached GPUs)."""
    fields: dict[str, Any] = {}
    sources: list[str] = []
    if machine_type in _TABLE_GBPS:
        gbps = _TABLE_GBPS[machine_type]
        fields["network_gbps"] = gbps
        sources.append(_TABLES_SOURCE.format(name=machine_type, gbps=gbps))
    if machine_type in _TCPX_TYPES:
        fields["fabric"] = _TCPX_TYPES[machine_type]
        sources.append(_TCPX_SOURCE)
    if machine_type in _OVERVIEW:
        series, technology, total, fabric, fabric_gbps, interfaces = _OVERVIEW[machine_type]
        fields.update(network_gbps=total, fabric=fabric)
        sources.append(_OVERVIEW_SOURCE.format(series=series, gbps=total) + f", GPU to GPU over {technology}")
        if fabric_gbps is not None:
            fields.update(fabric_gbps=fabric_gbps, fabric_interfaces=interfaces)
            sources.append(_RDMA_SOURCE)
        elif fabric.startswith("GPUDirect"):
            sources.append(_TCPX_SOURCE)
    if sources:
        fields["network_source"] = "; ".join(sources)
    return fields
