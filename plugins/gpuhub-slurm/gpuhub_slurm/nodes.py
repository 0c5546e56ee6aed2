"""Slurm node records (slurmrestd's ``/slurm/v0.0.4x/nodes``, ``scontrol show nodes --json``) as GPU facts.

Fields used, as slurmrestd's OpenAPI schema (``v0.0.41`` to ``v0.0.44`` ``node``) names them: ``name``,
``partitions`` (list), ``state`` (list of flags: ``IDLE``, ``MIXED``, ``ALLOCATED``, ``DRAIN``, ``DOWN``,
``CLOUD``, ``POWERED_DOWN``, ...), ``cpus``, ``real_memory`` (MB, i.e. MiB), ``temporary_disk`` (Slurm's TmpDisk, MB
i.e. MiB; 0: not configured), ``architecture``, ``gres`` (the
configured GRES) and ``gres_used`` (allocated now). Free now = configured − allocated per GRES type; a node that
is drained, down, failing, in maintenance or powered down has none free. A cloud or powered-down node that is not
drained or down can be powered up: its GPUs are capacity that can be provisioned.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpuhub_slurm.gres import MAX_GPUS_PER_NODE, gpu_counts

__all__ = ["NOT_FREE", "POWERED_OFF", "NodeFacts", "node_facts"]

NOT_FREE = frozenset({"DOWN", "DRAIN", "FAIL", "ERROR", "NOT_RESPONDING", "MAINTENANCE", "RESERVED", "FUTURE",
                      "UNKNOWN", "INVALID", "INVALID_REG", "POWER_DOWN", "POWERING_DOWN", "POWERING_UP",
                      "REBOOT_ISSUED", "REBOOT_REQUESTED"})
"""Node state flags under which nothing on the node can be allocated now (``RESERVED``: held by a reservation;
``POWERING_UP``: already being provisioned for someone)."""
BROKEN = frozenset({"DOWN", "DRAIN", "FAIL", "ERROR", "MAINTENANCE", "FUTURE", "INVALID", "INVALID_REG"})
"""Flags that also keep a powered-down node from being powered up for a job."""
POWERED_OFF = frozenset({"POWERED_DOWN", "CLOUD"})
"""Power-saving or cloud nodes that are not running: Slurm resumes them (ResumeProgram) when a job needs them."""
MAX_CPUS = 100_000
MAX_MEMORY_MIB = 2**30
"""1 PiB in MiB: more host memory than any node has."""
MAX_DISK_MIB = 2**36
"""64 PiB in MiB: more temporary disk than any node has."""


@dataclass
class NodeFacts:
    """What one Slurm node says about its GPUs."""

    name: str
    partitions: tuple[str, ...]
    state: frozenset[str]
    cpus: int | None
    memory_gib: float | None
    """Host memory in GiB (``real_memory`` MiB / 1024)."""
    cpu_arch: str
    configured: Counter[str] = field(default_factory=Counter)
    """GPUs per GRES type (``""``: untyped) as configured."""
    used: Counter[str] = field(default_factory=Counter)
    """GPUs per GRES type allocated to jobs now."""
    tmp_disk_gib: float | None = None
    """The node's temporary disk (Slurm's TmpDisk, ``temporary_disk`` MiB / 1024) in GiB; None: 0 (not configured)
    or not given."""

    @property
    def powered_off(self) -> bool:
        """A cloud/power-saving node that is not running and could be powered up for a job."""
        return bool(self.state & POWERED_OFF) and not self.state & BROKEN and "POWERING_UP" not in self.state

    @property
    def usable_now(self) -> bool:
        """Running and not drained, down, reserved or being power-cycled: its free GPUs can be had now."""
        return not self.state & NOT_FREE and not self.state & POWERED_OFF

    def free(self, gres_type: str) -> int:
        """GPUs of ``gres_type`` free now: configured − allocated on a usable node, else 0."""
        if not self.usable_now:
            return 0
        return max(0, self.configured[gres_type] - self.used[gres_type])

    def provisionable(self, gres_type: str) -> int:
        """GPUs of ``gres_type`` on this node if it were powered up (0 unless :attr:`powered_off`)."""
        return self.configured[gres_type] if self.powered_off else 0


def _bounded_int(value: Any, what: str, limit: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, Mapping):  # a *_no_val_struct: {"set", "infinite", "number"}
        if not value.get("set", False) or value.get("infinite", False):
            return None
        value = value.get("number")
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= limit:
        raise ValueError(f"{what} = {value!r} is not a whole number in 0..{limit}")
    return value


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):  # older data parsers give a comma-separated string
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{what} is not a list of strings")
    return tuple(value)


def node_facts(node: Mapping[str, Any]) -> NodeFacts:
    """The GPU facts of one node record.

    Raises:
        ValueError, KeyError, TypeError: a malformed record (no name, a GRES string that does not parse, a count
            or size out of range); the caller skips and counts it.
    """
    if not isinstance(node, Mapping):
        raise TypeError("a node record is not an object")
    name = node["name"]
    if not isinstance(name, str) or not name:
        raise ValueError("node without a name")
    cpus = _bounded_int(node.get("cpus"), "cpus", MAX_CPUS)
    memory_mib = _bounded_int(node.get("real_memory"), "real_memory", MAX_MEMORY_MIB)
    tmp_mib = _bounded_int(node.get("temporary_disk"), "temporary_disk", MAX_DISK_MIB)
    arch = str(node.get("architecture") or "")
    configured = gpu_counts(node.get("gres"))
    used = gpu_counts(node.get("gres_used"))
    for kind, count in used.items():
        if count > MAX_GPUS_PER_NODE:
            raise ValueError(f"gres_used {kind}: {count} GPUs")
    return NodeFacts(
        name=name, partitions=_strings(node.get("partitions"), "partitions"),
        state=frozenset(s.upper() for s in _strings(node.get("state"), "state")), cpus=cpus,
        memory_gib=round(memory_mib / 1024, 1) if memory_mib else None,
        cpu_arch="arm64" if arch in ("aarch64", "arm64") else "x86_64", configured=configured, used=used,
        tmp_disk_gib=round(tmp_mib / 1024, 1) if tmp_mib else None)
