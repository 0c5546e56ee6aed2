"""Issue 28: the network and local-disk facts of GCP's GPU machine types, asserted against Google's documentation
(the "GPU machine types" tables and the "Networking and GPU machines" overview; gpuhub_gcp.network names both).

Per family at least three facts: vCPUs per GPU and RAM per GPU (the machine catalogue) and the maximum network
bandwidth, plus the bundled Local SSD and the inter-node fabric where Google states them. N1 machine types with
attached GPUs stay without network facts (their bandwidth depends on GPU and vCPU count in a table not found).
"""

from __future__ import annotations

from gpuhub.plugin import Instance, Registry, make_engine, run_provider


def _instances() -> dict[str, Instance]:
    offers, status = run_provider(make_engine(Registry()), "gcp", mode="replay")
    assert status.state == "ok", status.line()
    return {o.instance_type: o.instance for o in offers}


def _facts(inst: Instance) -> tuple[float | None, ...]:
    """vCPUs per GPU, RAM GiB per GPU, network Gbps, local SSD GiB, fabric, fabric Gbps, fabric interfaces."""
    assert inst.vcpus is not None and inst.memory_gib is not None
    return (inst.vcpus / inst.gpu_count, inst.memory_gib / inst.gpu_count, inst.network_gbps, inst.storage_gib,
            inst.fabric, inst.fabric_gbps, inst.fabric_interfaces)  # type: ignore[return-value]


def test_a2_g2_and_a3_high_bandwidth_from_the_machine_type_tables() -> None:
    types = _instances()
    # "a2-highgpu-1g 12 85 Yes 24 1 40": 12 vCPUs, 85 GB, Local SSD optional (none bundled), 24 Gbps
    assert _facts(types["a2-highgpu-1g"]) == (12, 85, 24, None, None, None, None)
    assert _facts(types["a2-highgpu-8g"]) == (12, 85, 100, None, None, None, None)
    assert _facts(types["a2-megagpu-16g"]) == (6, 85, 100, None, None, None, None)
    # "a2-ultragpu-8g 96 1,360 3,000 100 8 640": 3,000 GiB Local SSD, 100 Gbps
    assert _facts(types["a2-ultragpu-8g"]) == (12, 170, 100, 3000, None, None, None)
    assert _facts(types["a2-ultragpu-1g"]) == (12, 170, 24, 375, None, None, None)
    # "g2-standard-4 4 16 16 to 32 375 10 1 24" and "g2-standard-96 96 384 ... 3,000 100 8 192"
    assert types["g2-standard-4"].network_gbps == 10 and types["g2-standard-96"].network_gbps == 100
    assert [types[f"g2-standard-{v}"].network_gbps for v in (8, 12, 16, 24, 32, 48)] == [16, 16, 32, 32, 32, 50]
    # "a3-highgpu-1g 26 234 750 1 25 1 80" ... "a3-highgpu-8g 208 1,872 6,000 5 1,000 8 640"
    assert _facts(types["a3-highgpu-1g"]) == (26, 234, 25, 750, None, None, None)
    assert _facts(types["a3-highgpu-8g"]) == (26, 234, 1000, 6000, "GPUDirect-TCPX", None, None)
    source = types["a2-ultragpu-8g"].network_source
    assert source == ("Google Cloud docs, GPU machine types (docs.cloud.google.com/compute/docs/gpus, tables as "
                      "captured 2026-04-15): a2-ultragpu-8g maximum network bandwidth 100 Gbps")


def test_a3_ultra_and_a4_carry_their_3200_gbps_rdma_fabric() -> None:
    types = _instances()
    # overview: A3 Ultra and A4 "3,600 Gbps" in total, eight CX-7 NICs "3,200 Gbps" GPU to GPU
    assert _facts(types["a3-ultragpu-8g"]) == (28, 369, 3600, 12000, "RoCE", 3200, 8)
    assert _facts(types["a4-highgpu-8g"]) == (28, 496, 3600, 12000, "RoCE", 3200, 8)
    # A3 Mega 1,800 and A3 Edge 600 Gbps in total; the GPU NICs' share is not stated: no fabric rate
    assert _facts(types["a3-megagpu-8g"]) == (26, 234, 1800, 6000, "GPUDirect-TCPXO", None, None)
    assert _facts(types["a3-edgegpu-8g"]) == (26, 234, 600, 6000, "GPUDirect-TCPX", None, None)
    ultra = types["a3-ultragpu-8g"].network_source
    assert ultra is not None and ultra.startswith(
        "Google Cloud docs, Networking and GPU machines (docs.cloud.google.com/compute/docs/gpus/gpu-network-"
        "bandwidth, read 2026-12-02): A3 Ultra max total bandwidth 3,600 Gbps, GPU to GPU over GPUDirect RDMA; "
        "eight ConnectX-7 NICs deliver a total of 3,200 Gbps GPU to GPU")


def test_n1_with_attached_gpus_claims_no_network() -> None:
    n1 = [inst for name, inst in _instances().items() if name.startswith("n1-")]
    assert n1 and all((i.network_gbps, i.fabric, i.network_source) == (None, None, None) for i in n1)
