"""Pure parsing of Hyperbolic's catalog answer (no I/O).

``GET /v2/skypilot/catalog`` answers ``{"vms": [...]}``, one item per VM size, in the column names of a SkyPilot
catalog (SkyPilot's ``fetch_hyperbolic.py`` writes the items as they come, turning only ``GpuInfo`` into text)::

    {"InstanceType": "1x-H100-75-722", "AcceleratorName": "H100", "AcceleratorCount": 1, "vCPUs": 75,
     "MemoryGiB": 722, "StorageGiB": 800, "Price": 1.29, "SpotPrice": null, "Region": "default",
     "GpuInfo": {"Gpus": [{"Name": "NVIDIA-H100-80GB-HBM3", "Manufacturer": "NVIDIA", "Count": 1,
                           "MemoryInfo": {"SizeInMiB": 81559}}], "TotalGpuMemoryInMiB": 81559}}

``Price``/``SpotPrice`` are USD per instance-hour; ``GpuInfo`` memory is MiB per GPU and the instance total.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["Vm", "parse_vm", "vm_items"]


@dataclass(frozen=True)
class Vm:
    """One VM size. ``gpu_name`` is the GPU's own name (``GpuInfo``), else the accelerator name; ``gpu_mib`` is the
    stated memory per GPU in MiB (None when not stated)."""

    instance_type: str
    accelerator: str
    gpu_name: str
    gpu_count: int
    gpu_mib: float | None
    vcpus: float
    memory_gib: float
    storage_gib: float | None
    price: Decimal
    spot: Decimal | None
    region: str


def _money(value: Any, field: str) -> Decimal | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ValueError(f"{field} is not a number: {value!r}")
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"{field} is not a number: {value!r}") from None
    if not amount.is_finite():
        raise ValueError(f"{field} is not finite: {value!r}")
    return amount


def _positive(value: Any, field: str) -> float:
    number = float(value)
    if not number > 0:
        raise ValueError(f"{field} must be positive, not {value!r}")
    return number


def parse_vm(item: Mapping[str, Any]) -> Vm | None:
    """One catalog item as a :class:`Vm`; None for a CPU-only item (no accelerator).

    Raises:
        KeyError, TypeError, ValueError: a field is missing or malformed, or ``GpuInfo`` contradicts the item's own
            accelerator count.
    """
    accelerator = str(item.get("AcceleratorName") or "").strip()
    if not accelerator:
        return None
    count = _positive(item["AcceleratorCount"], "AcceleratorCount")
    if count != int(count):
        raise ValueError(f"AcceleratorCount must be whole, not {count!r}")
    gpu_name, gpu_mib = accelerator, None
    info = item.get("GpuInfo")
    if isinstance(info, Mapping) and info.get("Gpus"):
        gpu = info["Gpus"][0]
        gpu_name = str(gpu.get("Name") or accelerator)
        if gpu.get("Count") is not None and float(gpu["Count"]) != count:
            raise ValueError(f"GpuInfo counts {gpu['Count']} GPUs, AcceleratorCount {count:g}")
        size = (gpu.get("MemoryInfo") or {}).get("SizeInMiB")
        gpu_mib = float(size) if size is not None else None
    price = _money(item.get("Price"), "Price")
    if price is None:
        raise ValueError("Price missing")
    storage = item.get("StorageGiB")
    return Vm(instance_type=str(item["InstanceType"]).strip() or _empty("InstanceType"), accelerator=accelerator,
              gpu_name=gpu_name, gpu_count=int(count), gpu_mib=gpu_mib,
              vcpus=_positive(item["vCPUs"], "vCPUs"), memory_gib=_positive(item["MemoryGiB"], "MemoryGiB"),
              storage_gib=float(storage) if storage not in (None, "") else None, price=price,
              spot=_money(item.get("SpotPrice"), "SpotPrice"), region=str(item.get("Region") or "").strip())


def _empty(field: str) -> str:
    raise ValueError(f"{field} is empty")


def vm_items(body: Any) -> list[Any]:
    """The ``vms`` list of an answer.

    Raises:
        ValueError: the answer is not an object with a ``vms`` list.
    """
    if not isinstance(body, Mapping) or not isinstance(body.get("vms"), list):
        raise ValueError("expected an object with a 'vms' list")
    return list(body["vms"])
