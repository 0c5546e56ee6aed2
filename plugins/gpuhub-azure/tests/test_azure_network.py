"""Issue 28: network bandwidth, InfiniBand and temp disks of Azure GPU sizes, asserted against Microsoft Learn's size
series pages (``gpuhub_azure/data/network.csv`` names each page, its date and the figures as printed).

Per family at least three facts: vCPUs per GPU and RAM per GPU (the Retail Prices recording) and the page's
"Max Bandwidth" (Mbps, here Gbps) and/or temp disk (GiB).
"""

from __future__ import annotations

from typing import Any

from gpuhub.plugin import Instance


def _instances(replayed: Any) -> dict[str, Instance]:
    return {o.instance_type: o.instance for o in replayed[0]}


def _facts(inst: Instance) -> tuple[Any, ...]:
    """vCPUs per GPU, RAM GiB per GPU, network Gbps, temp disk GiB, temp disks, fabric, fabric Gbps."""
    assert inst.vcpus is not None and inst.memory_gib is not None
    return (inst.vcpus / inst.gpu_count, inst.memory_gib / inst.gpu_count, inst.network_gbps, inst.storage_gib,
            inst.storage_disks, inst.fabric, inst.fabric_gbps)


def test_nc_families_from_their_size_pages(replayed: Any) -> None:
    sizes = _instances(replayed)
    # NCads_H100_v5: 40 vCPUs, 320 GB, Max Bandwidth 40000 Mbps, temp disk 1 x 3576 GiB
    assert _facts(sizes["Standard_NC40ads_H100_v5"]) == (40, 320, 40, 3576, 1, None, None)
    assert _facts(sizes["Standard_NC80adis_H100_v5"]) == (40, 320, 80, 7152, 1, None, None)
    assert _facts(sizes["Standard_NCC40ads_H100_v5"]) == (40, 320, 40, 800, 1, None, None)
    # NCasT4_v3: "Standard_NC64as_T4_v3 | 8 | 32,000" and "| 1 | 2,816"
    assert _facts(sizes["Standard_NC64as_T4_v3"]) == (16, 110, 32, 2816, 1, None, None)
    assert _facts(sizes["Standard_NC4as_T4_v3"]) == (4, 28, 8, 176, 1, None, None)
    # NC_A100_v4: bandwidth only; its temp disk (64 GiB here, 1,123 GiB "with NVMe" elsewhere) is left unknown
    assert _facts(sizes["Standard_NC24ads_A100_v4"]) == (24, 220, 20, None, None, None, None)
    # NCv3: the page gives no bandwidth, only the temp disk
    assert _facts(sizes["Standard_NC24s_v3"]) == (6, 112, None, 2948, 1, None, None)
    assert sizes["Standard_NC6s_v3"].network_source == (
        "Microsoft Learn, NCv3 size series (2024-07-31, MicrosoftDocs/azure-compute-docs articles/virtual-machines/"
        "sizes/gpu-accelerated/ncv3-series.md): no bandwidth given; temp disk 1 x 736 GiB")


def test_nv_ng_and_h200_from_their_size_pages(replayed: Any) -> None:
    sizes = _instances(replayed)
    assert _facts(sizes["Standard_NV36ads_A10_v5"]) == (36, 440, 40, 1440, 1, None, None)
    assert _facts(sizes["Standard_NV72ads_A10_v5"]) == (36, 440, 80, 2880, 1, None, None)
    assert _facts(sizes["Standard_NV48s_v3"]) == (12, 112, 24, 1280, 1, None, None)
    assert _facts(sizes["Standard_NV32as_v4"]) == (32, 112, 8, 704, 1, None, None)
    assert _facts(sizes["Standard_NG32ads_V620_v1"]) == (32, 64, 40, 1024, 1, None, None)
    # V710: "Max Temp Storage Disks (Qty.) 12 | Temp Disk Size (GiB) 1536": the size, not a disk count
    assert _facts(sizes["Standard_NV24ads_V710_v5"]) == (24, 128, 20, 1536, None, None, None)
    # ND-H200-v5: 80000 Mbps and 8 x 400 Gbps InfiniBand (3.2 Tb/s per VM); its NVMe size is ambiguous: unknown
    h200 = sizes["Standard_ND96isr_H200_v5"]
    assert _facts(h200) == (12, 231.25, 80, None, None, "InfiniBand", 3200)
    assert h200.fabric_interfaces == 8


def test_sizes_without_a_page_row_claim_nothing(replayed: Any) -> None:
    sizes = _instances(replayed)
    for name in ("Standard_NC16ads_A10_v4", "Standard_NC40ads_H100_v5"):
        assert name in sizes
    a10 = sizes["Standard_NC16ads_A10_v4"]  # NCads A10 v4: no size page found
    assert (a10.network_gbps, a10.storage_gib, a10.network_source) == (None, None, None)
