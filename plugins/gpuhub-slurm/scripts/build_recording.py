"""Build the bundled example recording of gpuhub-slurm (``gpuhub_slurm/recording/``).

The answers are reconstructed in slurmrestd's documented shapes: the ``v0.0.42`` OpenAPI schema's
``openapi_nodes_resp`` / ``node`` and ``openapi_partition_resp`` / ``partition_info`` (the field names and
``*_no_val_struct`` numbers of SchedMD's published specification; the node record follows the example answer in
the ``slurmrestd(8)`` manual page), GRES strings in Slurm's own format (``gpu:h100:8(S:0-1)``,
``gpu:h100:3(IDX:0-2)``; MIG slices as typed GPUs named after their profile, as Slurm's GRES guide configures them:
``gpu:a100:1,gpu:a100_3g.20gb:2``), node states from the schema's ``node_states`` list. The cluster, its nodes,
jobs and the team's rates are an example internal cloud, not a capture of a real cluster.

Run: ``python plugins/gpuhub-slurm/scripts/build_recording.py`` (rewrites the files; ``--check`` exits 1 when
they differ).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from gpuhub.plugin import json_exchange, write_json_files

OUT = Path(__file__).resolve().parents[1] / "gpuhub_slurm" / "recording"
SERVER = "https://slurm.hpc-west.example.internal:6820"
VERSION = "v0.0.42"
CLUSTER = "hpc-west"
UPDATED = 1764579600  # 2025-12-01T09:00:00Z


def _number(value: int | None) -> dict[str, Any]:
    return {"set": value is not None, "infinite": False, "number": value or 0}


def node(name: str, *, partitions: list[str], state: list[str], gres: str, gres_used: str, cpus: int,
         memory_mib: int, alloc_cpus: int = 0, reason: str = "", arch: str = "x86_64") -> dict[str, Any]:
    """One node record with every field of the schema's ``v0.0.42_node`` (values of an example node)."""
    powered = "POWERED_DOWN" in state
    return {
        "architecture": "" if powered else arch, "burstbuffer_network_address": "", "boards": 1,
        "boot_time": _number(None if powered else 1764230400), "cluster_name": "", "cores": cpus // 4,
        "specialized_cores": 0, "cpu_binding": 0, "cpu_load": 0 if powered else alloc_cpus * 100,
        "free_mem": _number(None if powered else memory_mib // 2), "cpus": cpus, "effective_cpus": cpus,
        "specialized_cpus": "",
        "energy": {"average_watts": 0, "base_consumed_energy": 0, "consumed_energy": 0,
                   "current_watts": _number(None), "previous_consumed_energy": 0, "last_collected": 0},
        "external_sensors": {}, "extra": "", "power": {}, "features": [], "active_features": [], "gpu_spec": "",
        "gres": gres, "gres_drained": "N/A", "gres_used": gres_used, "instance_id": "", "instance_type": "",
        "last_busy": _number(UPDATED - 600), "mcs_label": "", "specialized_memory": 0, "name": name,
        "next_state_after_reboot": ["INVALID"], "address": name, "hostname": name, "state": state,
        "operating_system": "" if powered else "Linux 6.8.0-88-generic #89-Ubuntu SMP PREEMPT_DYNAMIC",
        "owner": "", "partitions": partitions, "port": 6818, "real_memory": memory_mib, "res_cores_per_gpu": 0,
        "comment": "", "reason": reason, "reason_changed_at": _number(UPDATED - 7200 if reason else 0),
        "reason_set_by_user": "root" if reason else "", "resume_after": _number(0), "reservation": "",
        "alloc_memory": 0, "alloc_cpus": alloc_cpus, "alloc_idle_cpus": cpus - alloc_cpus, "tres_used": "",
        "tres_weighted": 0.0, "slurmd_start_time": _number(None if powered else 1764230460), "sockets": 2,
        "threads": 2, "temporary_disk": 0, "weight": 1,
        "tres": f"cpu={cpus},mem={memory_mib}M,billing={cpus}", "version": "" if powered else "24.11.6",
    }


def partition(name: str, nodes: str, total: int, cpus: int, *, state: str = "UP",
              resume_s: int | None = None) -> dict[str, Any]:
    """One partition record in the schema's ``v0.0.42_partition_info`` shape."""
    return {
        "nodes": {"allowed_allocation": "", "configured": nodes, "total": total},
        "accounts": {"allowed": "", "deny": ""}, "groups": {"allowed": ""},
        "qos": {"allowed": "", "deny": "", "assigned": ""}, "alternate": "",
        "tres": {"billing_weights": "", "configured": f"cpu={cpus},node={total}"}, "cluster": "",
        "select_type": ["CORE", "MEMORY"], "cpus": {"task_binding": 0, "total": cpus},
        "defaults": {"memory_per_cpu": 0, "partition_memory_per_cpu": _number(None),
                     "partition_memory_per_node": _number(None), "time": _number(None), "job": ""},
        "grace_time": 0,
        "maximums": {"cpus_per_node": _number(None), "cpus_per_socket": _number(None), "memory_per_cpu": 0,
                     "partition_memory_per_cpu": _number(None), "partition_memory_per_node": _number(None),
                     "nodes": _number(None), "shares": 1, "oversubscribe": {"jobs": 1, "flags": []},
                     "time": _number(2880), "over_time_limit": _number(None)},
        "minimums": {"nodes": 0}, "name": name, "node_sets": "", "priority": {"job_factor": 1, "tier": 1},
        "timeouts": {"resume": _number(resume_s), "suspend": _number(None)},
        "partition": {"state": [state]}, "suspend_time": _number(None),
    }


def meta() -> dict[str, Any]:
    return {"plugin": {"type": "openapi/slurmctld", "name": "Slurm OpenAPI slurmctld",
                       "data_parser": f"data_parser/{VERSION}", "accounting_storage": ""},
            "client": {"source": "[slurm.hpc-west.example.internal]:51234", "user": "gpuhub", "group": "gpuhub"},
            "command": [], "slurm": {"version": {"major": "24", "micro": "6", "minor": "11"},
                                     "release": "24.11.6", "cluster": CLUSTER}}


def nodes() -> list[dict[str, Any]]:
    h100 = {"gres": "gpu:h100:8(S:0-1)", "cpus": 224, "memory_mib": 2000000}
    return [
        node("h100-01", partitions=["gpu"], state=["IDLE"], gres_used="gpu:h100:0(IDX:N/A)", **h100),
        node("h100-02", partitions=["gpu"], state=["MIXED"], gres_used="gpu:h100:3(IDX:0-2)", alloc_cpus=84,
             **h100),
        node("h100-03", partitions=["gpu"], state=["IDLE", "DRAIN"], gres_used="gpu:h100:0(IDX:N/A)",
             reason="NVLink errors on GPU 5", **h100),
        node("h100-04", partitions=["gpu"], state=["ALLOCATED"], gres_used="gpu:h100:8(IDX:0-7)", alloc_cpus=224,
             **h100),
        # MIG: a typed GRES naming only the profile (mapped to the card in settings.toml [gpu_names]) ...
        node("a100-mig-01", partitions=["mig"], state=["MIXED"], gres="gpu:1g.10gb:7(S:0),gpu:3g.40gb:2(S:1)",
             gres_used="gpu:1g.10gb:2(IDX:0-1),gpu:3g.40gb:0(IDX:N/A)", cpus=64, memory_mib=500000, alloc_cpus=16),
        # ... and the GRES guide's own layout: one whole A100 and one split in two 3g.20gb slices
        node("a100-mig-02", partitions=["mig"], state=["IDLE"], gres="gpu:a100:1(S:0),gpu:a100_3g.20gb:2(S:1)",
             gres_used="gpu:a100:0(IDX:N/A),gpu:a100_3g.20gb:0(IDX:N/A)", cpus=64, memory_mib=500000),
        # untyped GRES (gpu:4): the GPU model comes from settings.toml [gpu_names] gpu = "L4"
        node("l4-01", partitions=["inference"], state=["MIXED"], gres="gpu:4(S:0)", gres_used="gpu:1(IDX:0)",
             cpus=48, memory_mib=192000, alloc_cpus=12),
        # power-saving cloud nodes: resumed on demand; one of them is down and cannot be
        *(node(f"h100-c{i:02d}", partitions=["cloud"], state=["IDLE", "CLOUD", "POWERED_DOWN"],
               gres_used="gpu:h100:0(IDX:N/A)", **h100) for i in (1, 2)),
        node("h100-c03", partitions=["cloud"], state=["DOWN", "CLOUD", "POWERED_DOWN"],
             gres_used="gpu:h100:0(IDX:N/A)", reason="ResumeTimeout reached", **h100),
        # a partition taken down for maintenance
        node("l40s-01", partitions=["viz"], state=["IDLE"], gres="gpu:l40s:4(S:0-1)",
             gres_used="gpu:l40s:0(IDX:N/A)", cpus=64, memory_mib=512000),
        node("cpu-01", partitions=["cpu"], state=["IDLE"], gres="", gres_used="", cpus=128, memory_mib=1000000),
    ]


def partitions() -> list[dict[str, Any]]:
    return [
        partition("gpu", "h100-[01-04]", 4, 896),
        partition("mig", "a100-mig-[01-02]", 2, 128),
        partition("inference", "l4-01", 1, 48),
        partition("cloud", "h100-c[01-03]", 3, 672, resume_s=600),
        partition("viz", "l40s-01", 1, 64, state="DOWN"),
        partition("cpu", "cpu-01", 1, 128),
    ]


def files() -> dict[str, Any]:
    """Every file of the recording: the two answers, the manifest and the cluster's name."""
    def exchange(path: str, body_file: str) -> dict[str, Any]:
        return json_exchange(f"{SERVER}/slurm/{VERSION}/{path}/", body_file)

    return {
        "nodes.json": {"nodes": nodes(), "last_update": _number(UPDATED), "meta": meta(), "errors": [],
                       "warnings": []},
        "partitions.json": {"partitions": partitions(), "last_update": _number(UPDATED), "meta": meta(),
                            "errors": [], "warnings": []},
        "cluster.json": {"name": CLUSTER, "server": SERVER},
        "manifest.json": {
            "format": 1, "provider": "slurm", "recorded_at": "2026-12-01", "kind": "reconstructed",
            "source": f"slurmrestd {VERSION} documented shapes (SchedMD's OpenAPI specification and slurmrestd(8) "
                      "example); an example cluster",
            "notes": "Built by scripts/build_recording.py. Nodes, jobs and rates are an example team's, not a "
                     "capture of a real cluster; settings.toml holds the example rates and the cluster's place.",
            "exchanges": [exchange("nodes", "nodes.json"), exchange("partitions", "partitions.json")]},
    }


def main() -> None:
    stale = write_json_files(OUT, files(), check="--check" in sys.argv[1:])
    if stale:
        print(f"out of date: {', '.join(stale)}", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
