"""Network, fabric and local storage facts of an instance type, from ``DescribeInstanceTypes``.

Fields read (botocore's PascalCase names; the EC2 XML answer has the same in camelCase):

* ``NetworkInfo.NetworkPerformance``: AWS's published bandwidth of the whole instance, as text (``"3200 Gigabit"``,
  ``"4x 100 Gigabit"``, ``"Up to 25 Gigabit"``). It is what AWS's instance pages print, so it wins over the sum of
  ``NetworkCards`` (which disagrees on a few types, e.g. g6e.48xlarge: four cards of 400 for a 400 Gigabit type).
  "Up to N" is a burst figure: N is the peak, the baseline is the cards' ``BaselineBandwidthInGbps`` sum.
* ``NetworkInfo.EfaSupported`` / ``EfaInfo.MaximumEfaInterfaces``: the Elastic Fabric Adapter. EFA traffic uses
  the instance's network cards, so the fabric's bandwidth is the instance's network bandwidth.
* ``InstanceStorageInfo``: ``TotalSizeInGB``, ``Disks[].Count/Type``, ``NvmeSupport``. AWS gives sizes in GB
  (10^9 bytes); they are converted to GiB.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["NETWORK_SOURCE", "NetworkSpec", "network_from_api"]

NETWORK_SOURCE = ("EC2 DescribeInstanceTypes: NetworkInfo.NetworkPerformance, NetworkCards, EfaInfo; "
                  "InstanceStorageInfo (GB converted to GiB)")
_GB_TO_GIB = 10**9 / 2**30
_PERFORMANCE = re.compile(r"^\s*(up to\s+)?(?:(\d+)\s*x\s*)?(\d+(?:\.\d+)?)\s*gigabit\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class NetworkSpec:
    """Network and local storage of one instance type (Gbps, GiB); None where AWS does not say."""

    network_gbps: float | None = None
    network_peak_gbps: float | None = None
    efa_interfaces: int | None = None
    """EFA interfaces (0: EFA supported, count not given; None: no EFA)."""
    storage_gib: float | None = None
    storage_disks: int | None = None
    storage_kind: str | None = None

    def instance_fields(self) -> dict[str, Any]:
        """The :class:`gpuhub.plugin.Instance` fields these facts fill (only those that are known)."""
        fields: dict[str, Any] = {"network_gbps": self.network_gbps, "network_peak_gbps": self.network_peak_gbps,
                                  "storage_gib": self.storage_gib, "storage_disks": self.storage_disks,
                                  "storage_kind": self.storage_kind}
        if self.efa_interfaces is not None:  # 0: EFA supported, interface count not given
            fields.update(fabric="EFA", fabric_interfaces=self.efa_interfaces or None, fabric_gbps=self.network_gbps)
        fields = {k: v for k, v in fields.items() if v is not None}
        if fields:
            fields["network_source"] = NETWORK_SOURCE
        return fields


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number >= 0 else None


def _cards_sum(cards: Any, key: str) -> float | None:
    if not isinstance(cards, list) or not cards:
        return None
    values = [_number(c.get(key)) for c in cards if isinstance(c, Mapping)]
    return sum(v for v in values if v is not None) if values and all(v is not None for v in values) else None


def _efa(network: Mapping[str, Any]) -> int | None:
    info = network.get("EfaInfo")
    count = _number(info.get("MaximumEfaInterfaces")) if isinstance(info, Mapping) else None
    if count:
        return int(count)
    return 0 if str(network.get("EfaSupported", "")).lower() == "true" else None


def _storage(info: Any) -> tuple[float | None, int | None, str | None]:
    if not isinstance(info, Mapping):
        return None, None, None
    total = _number(info.get("TotalSizeInGB"))
    disks = info.get("Disks")
    count = kind = None
    if isinstance(disks, list) and disks:
        counts = [_number(d.get("Count")) for d in disks if isinstance(d, Mapping)]
        count = int(sum(c for c in counts if c)) or None
        types = {str(d.get("Type", "")).lower() for d in disks if isinstance(d, Mapping)}
        kind = "HDD" if types == {"hdd"} else "SSD" if types == {"ssd"} else None
    if kind == "SSD" and str(info.get("NvmeSupport", "")).lower() in ("required", "supported"):
        kind = "NVMe"
    return (round(total * _GB_TO_GIB, 1) if total else None), count, kind


def network_from_api(item: Mapping[str, Any]) -> NetworkSpec:
    """The :class:`NetworkSpec` of one botocore-shaped ``DescribeInstanceTypes`` item (missing parts stay None)."""
    network = item.get("NetworkInfo")
    network = network if isinstance(network, Mapping) else {}
    baseline = peak = None
    match = _PERFORMANCE.match(str(network.get("NetworkPerformance") or ""))
    cards = network.get("NetworkCards")
    if match:
        burst, times, gbps = match.groups()
        published = float(gbps) * (int(times) if times else 1)
        if burst:
            peak, baseline = published, _cards_sum(cards, "BaselineBandwidthInGbps")
        else:
            baseline = published
    else:
        baseline, peak = _cards_sum(cards, "BaselineBandwidthInGbps"), _cards_sum(cards, "PeakBandwidthInGbps")
        peak = peak if peak is not None and baseline is not None and peak > baseline else None
    storage, disks, kind = _storage(item.get("InstanceStorageInfo"))
    return NetworkSpec(network_gbps=baseline, network_peak_gbps=peak, efa_interfaces=_efa(network),
                       storage_gib=storage, storage_disks=disks, storage_kind=kind)
