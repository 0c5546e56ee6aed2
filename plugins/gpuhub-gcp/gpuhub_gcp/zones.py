"""Where Google sells each GPU machine type: the bundled zone table (``data/zones.csv``).

The billing catalog says what a GPU costs in a region, not which machine types a region sells: it has an H100 price
in 42 regions, while A3 High is sold in about 16 of them. gpuhub therefore offers a machine type in a region only
where this table (or, live, the Compute Engine API) says Google sells it.

Source: built by ``scripts/build_zones.py`` from the host-VM rows (A2, A3, A4) and the L4 accelerator rows (G2) of
the SkyPilot GCP catalog v8 (``skypilot-catalog catalogs/v8/gcp/vms.csv`` at commit ``8427bbf``) and from its G2/N1
host rows and T4/V100/P100/P4 accelerator rows (``vms-g2-n1.csv``, N1 with attached GPUs); each row keeps its
source. Machine types the table has no row for at all (G4) have no zone facts: they are offered wherever their GPU
is priced, and the provider status says so.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

__all__ = ["ZONES_CSV", "ZoneTable", "zone_table"]

ZONES_CSV = Path(__file__).resolve().parent / "data" / "zones.csv"


@dataclass(frozen=True)
class ZoneTable:
    """Zones per (machine type, region): ``zones[name][region]`` is a sorted tuple of zone names.

    ``source`` says where the facts come from (a file, or the Compute Engine API).
    """

    zones: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    source: str = ""

    def covers(self, machine_type: str) -> bool:
        """True when the table has facts for this machine type (then it is sold only in :meth:`regions`)."""
        return machine_type in self.zones

    def regions(self, machine_type: str) -> frozenset[str]:
        """Regions that sell ``machine_type`` (empty when unknown or nowhere)."""
        return frozenset(self.zones.get(machine_type, {}))

    def sells(self, machine_type: str, region: str) -> bool:
        """False only when the table has facts for ``machine_type`` and ``region`` is not among them."""
        return not self.covers(machine_type) or region in self.zones[machine_type]

    def zones_in(self, machine_type: str, region: str) -> tuple[str, ...]:
        """Zones of ``region`` that sell ``machine_type`` (empty tuple when none)."""
        return self.zones.get(machine_type, {}).get(region, ())


def read_zone_table(path: Path) -> ZoneTable:
    """Read a zone table CSV (``machine_type,region,zones,source``; zones ``;``-separated).

    Raises:
        OSError: the file cannot be read. KeyError: a column is missing.
    """
    zones: dict[str, dict[str, tuple[str, ...]]] = defaultdict(dict)
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            zones[row["machine_type"]][row["region"]] = tuple(z for z in row["zones"].split(";") if z)
    return ZoneTable(dict(zones), source=f"bundled zone table {path.name} (SkyPilot GCP catalog v8 @8427bbf)")


@lru_cache(maxsize=1)
def zone_table() -> ZoneTable:
    """The bundled zone table (read once per process)."""
    return read_zone_table(ZONES_CSV)
