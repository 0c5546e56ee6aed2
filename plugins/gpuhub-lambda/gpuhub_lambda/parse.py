"""Pure parsing of Lambda Cloud API answers (no HTTP): instance types, prices, GPU descriptions, errors.

Source of the field names and units: Lambda Cloud API specs v1.4.0 and v1.10.0 (``GET /api/v1/instance-types``;
see ``../shared/reference/provider-apis.md`` section 4). The answer is ``{"data": {name: {"instance_type":
{name, description, gpu_description, price_cents_per_hour, specs: {vcpus, memory_gib, storage_gib, gpus}},
"regions_with_capacity_available": [{name, description}]}}}``. Errors are ``{"error": {"code", "message",
"suggestion"?}}``.

Rules kept here:

* ``price_cents_per_hour`` is US cents per instance-hour; an integer in current specs, a string ("80") in v1.4.0.
* ``specs.gpus`` is missing in older answers; the count then comes from the description's ``"<n>x "`` prefix
  (any number of digits).
* The GPU's memory variant (A100 40 vs 80 GB, V100 16 vs 32 GB, H100 80 vs 94 GB) comes from the GPU description's
  own ``"(80 GB ...)"`` text, never from a per-model default or the instance type's name (known fault C06).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = [
    "ARM_GPUS",
    "LambdaApiError",
    "LambdaInstanceType",
    "api_error",
    "described_form_factor",
    "described_memory_gb",
    "gpu_count",
    "gpu_label",
    "instance_type_entries",
    "parse_instance_type",
    "price_usd_per_hour",
]

ARM_GPUS = frozenset({"GH200", "GB200"})
"""Canonical GPUs that come on an Arm (NVIDIA Grace) host: their instances have ``cpu_arch="arm64"``."""

_COUNT_RX = re.compile(r"^\s*(\d+)\s*x\s+", re.IGNORECASE)
_MEMORY_RX = re.compile(r"\(\s*(\d+(?:\.\d+)?)\s*(?:GB|GiB)\b", re.IGNORECASE)
_FORM_RX = re.compile(r"\b(SXM\d?|PCIe)\b", re.IGNORECASE)


@dataclass(frozen=True)
class LambdaApiError:
    """An error answer of Lambda's API: ``code`` is the machine code (``global/invalid-api-key``)."""

    code: str
    message: str = ""
    suggestion: str = ""

    def describe(self) -> str:
        """One line: ``code: message (suggestion)``."""
        text = f"{self.code}: {self.message}".rstrip(": ")
        return f"{text} ({self.suggestion})" if self.suggestion else text


@dataclass(frozen=True)
class LambdaInstanceType:
    """One instance type from ``/instance-types``, with units in the field names.

    ``price_usd_per_hour`` is the whole instance's on-demand price (Lambda's cents / 100); ``gpu_label`` is the
    GPU spelling to resolve (``"A100 (80 GB SXM4)"``); ``gpu_memory_gb`` the per-GPU memory that label states.
    """

    name: str
    description: str | None
    gpu_label: str
    gpu_count: int
    gpu_memory_gb: float | None
    form_factor: str | None
    price_usd_per_hour: Decimal
    vcpus: int | None
    memory_gib: float | None
    storage_gib: float | None
    capacity_regions: tuple[str, ...]


def price_usd_per_hour(value: object) -> Decimal:
    """Lambda's ``price_cents_per_hour`` (int, or a numeric string in old API versions) as USD per instance-hour.

    Returns zero for a zero price (the caller skips it: a zero price is never an offer).

    Raises:
        ValueError: not a finite, non-negative number (booleans, ``"n/a"``, ``None``, ``NaN``, negatives).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Decimal)):
        raise ValueError(f"price_cents_per_hour is not a number: {value!r}")
    try:
        cents = Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError(f"price_cents_per_hour is not a number: {value!r}") from None
    if not cents.is_finite() or cents < 0:
        raise ValueError(f"price_cents_per_hour is not a finite non-negative number: {value!r}")
    return cents / 100


def gpu_count(specs: Mapping[str, Any], description: str | None, name: str = "") -> int:
    """GPUs per instance: ``specs.gpus`` when present, else the description's ``"<n>x "`` prefix; 0 for a CPU-only
    type (name ``cpu_...`` or a description counting vCPUs, ``"4x vCPU general"``).

    Raises:
        ValueError: neither gives a whole, non-negative count.
    """
    raw = specs.get("gpus")
    if raw is not None:
        if isinstance(raw, bool) or not isinstance(raw, (int, str, float)):
            raise ValueError(f"specs.gpus is not a count: {raw!r}")
        try:
            count = Decimal(str(raw).strip())
        except InvalidOperation:
            raise ValueError(f"specs.gpus is not a count: {raw!r}") from None
        if not count.is_finite() or count < 0 or count != count.to_integral_value():
            raise ValueError(f"specs.gpus is not a whole count: {raw!r}")
        return int(count)
    if name.lower().startswith("cpu_") or re.match(r"^\s*\d+\s*x\s*v?cpus?\b", description or "", re.I):
        return 0  # "cpu_4x_generalx", "4x vCPU general": a CPU-only type, never 4 GPUs (known fault C27)
    found = _COUNT_RX.match(description or "")
    if found is None:
        raise ValueError(f"no specs.gpus and no 'Nx' prefix in description {description!r}")
    return int(found.group(1))


def gpu_label(instance: Mapping[str, Any]) -> str:
    """The GPU spelling of an instance type: ``gpu_description``, else the description without its count prefix.

    Raises:
        ValueError: neither field holds text.
    """
    for key in ("gpu_description", "description"):
        value = instance.get(key)
        if isinstance(value, str) and value.strip():
            return _COUNT_RX.sub("", value).strip() if key == "description" else value.strip()
    raise ValueError("no gpu_description or description")


def described_memory_gb(label: str) -> float | None:
    """Per-GPU memory written in a Lambda GPU label: ``"A100 (80 GB SXM4)"`` -> 80.0; None when not stated."""
    found = _MEMORY_RX.search(label)
    return float(found.group(1)) if found else None


def described_form_factor(label: str) -> str | None:
    """``SXM`` or ``PCIe`` from a Lambda GPU label (``"H100 (80 GB SXM5)"`` -> ``SXM``); None when not stated."""
    found = _FORM_RX.search(label)
    if found is None:
        return None
    return "PCIe" if found.group(1).lower() == "pcie" else "SXM"


def _number(value: object, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{what} is not a number: {value!r}")
    number = float(value)
    if number != number or number < 0 or number == float("inf"):
        raise ValueError(f"{what} is not a finite non-negative number: {value!r}")
    return number


def parse_instance_type(key: str, entry: Mapping[str, Any]) -> LambdaInstanceType:
    """One ``data[key]`` entry of ``/instance-types`` as a :class:`LambdaInstanceType`.

    Raises:
        KeyError, TypeError, ValueError: the entry is malformed (callers skip and count it).
    """
    if not isinstance(entry, Mapping):
        raise TypeError(f"entry is a {type(entry).__name__}, not an object")
    instance = entry["instance_type"]
    if not isinstance(instance, Mapping):
        raise TypeError("instance_type is not an object")
    name = instance.get("name") or key
    if not isinstance(name, str):
        raise TypeError(f"name is not text: {name!r}")
    specs = instance.get("specs")
    specs = {} if specs is None else specs
    if not isinstance(specs, Mapping):
        raise TypeError("specs is not an object")
    description = instance.get("description")
    description = description if isinstance(description, str) else None
    try:
        label = gpu_label(instance)
    except ValueError:
        label = name  # last resort: the instance type's own name (e.g. "gpu_8x_a100_80gb_sxm4")
    count = gpu_count(specs, description, name)
    vcpus = _number(specs.get("vcpus"), "specs.vcpus")
    capacity = entry.get("regions_with_capacity_available") or []
    if not isinstance(capacity, list):
        raise TypeError("regions_with_capacity_available is not a list")
    names = (r.get("name") if isinstance(r, Mapping) else r for r in capacity)
    regions = tuple(dict.fromkeys(n.strip() for n in names if isinstance(n, str) and n.strip()))
    return LambdaInstanceType(
        name=name, description=description, gpu_label=label, gpu_count=count,
        gpu_memory_gb=described_memory_gb(label), form_factor=described_form_factor(label),
        price_usd_per_hour=price_usd_per_hour(instance["price_cents_per_hour"]),
        vcpus=int(vcpus) if vcpus is not None else None,
        memory_gib=_number(specs.get("memory_gib"), "specs.memory_gib"),
        storage_gib=_number(specs.get("storage_gib"), "specs.storage_gib"),
        capacity_regions=regions,
    )


def api_error(body: object) -> LambdaApiError | None:
    """The error in a Lambda answer (``{"error": {"code", "message", "suggestion"}}``), or None when it has none.

    ``body`` may be the decoded JSON or the raw bytes/text; a body that is not such an error gives None.
    """
    if isinstance(body, (bytes, str)):
        try:
            body = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return None
    if not isinstance(body, Mapping):
        return None
    error = body.get("error")
    if not isinstance(error, Mapping) or not isinstance(error.get("code"), str) or not error["code"]:
        return None
    return LambdaApiError(code=error["code"], message=str(error.get("message") or ""),
                          suggestion=str(error.get("suggestion") or ""))


def instance_type_entries(body: object) -> list[tuple[str, Any]]:
    """The ``(name, entry)`` pairs of an ``/instance-types`` answer, in the answer's order.

    Raises:
        ValueError: the answer is not ``{"data": {...}}`` (the caller reports a provider failure: a body of
            another shape is never taken for an empty catalog).
    """
    if not isinstance(body, Mapping) or "data" not in body:
        raise ValueError("the answer has no 'data' object")
    data = body["data"]
    if not isinstance(data, Mapping):
        raise ValueError(f"'data' is a {type(data).__name__}, not an object of instance types")
    return list(data.items())
