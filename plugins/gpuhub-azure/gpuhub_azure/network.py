"""Network, InfiniBand and temp-disk facts of Azure VM sizes, from Microsoft's size documentation.

The Retail Prices API has none of them and Resource SKUs only a ``RdmaEnabled`` flag, so the plugin carries a
small table (``data/network.csv``): per size the maximum network bandwidth (the docs' "Max Bandwidth" in Mbps,
here in Gbps; empty where the page gives none, as for NCv3), the InfiniBand backend (rate per VM in Gbps and
connections), and the temp (local) disk in GiB (the docs give GiB) with its disk count where the page gives one
disk. Each row names its page (Microsoft Learn's size series pages, from their source in MicrosoftDocs/
azure-compute-docs) and date. Sizes not in the table have no network facts (unknown stays unknown).
"""

from __future__ import annotations

import csv
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = ["network_fields"]


@lru_cache(maxsize=1)
def _table() -> dict[str, dict[str, Any]]:
    text = resources.files("gpuhub_azure").joinpath("data/network.csv").read_text(encoding="utf-8")
    table: dict[str, dict[str, Any]] = {}
    for row in csv.DictReader(text.splitlines()):
        table[row["arm_sku_name"].lower()] = {
            "network_gbps": float(row["network_gbps"]) if row["network_gbps"] else None,
            "fabric": row["fabric"] or None,
            "fabric_gbps": float(row["fabric_gbps"]) if row["fabric_gbps"] else None,
            "fabric_interfaces": int(row["fabric_interfaces"]) if row["fabric_interfaces"] else None,
            "storage_gib": float(row["storage_gib"]) if row["storage_gib"] else None,
            "storage_disks": int(row["storage_disks"]) if row["storage_disks"] else None,
            "network_source": row["source"]}
    return table


def network_fields(arm_sku_name: str) -> dict[str, Any]:
    """The :class:`gpuhub.plugin.Instance` network and local-disk fields of a size (``armSkuName``,
    case-insensitive); empty when the size is not in ``data/network.csv``."""
    return dict(_table().get(arm_sku_name.lower(), {}))
