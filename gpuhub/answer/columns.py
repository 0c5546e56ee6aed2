"""The columns of a search's table, by name: what ``--columns``/``--wide`` choose from on the command line, the web
page and ``/api/search`` (one vocabulary for every surface).

:data:`TABLE_COLUMNS` is in importance order: a table narrower than all of them keeps the first ones (price, per
GPU-hour, GPU × count, provider, instance type, region) and adds the rest while they fit. Each column names the
record keys (:meth:`gpuhub.model.Offer.to_record` plus the search's details) it shows, so the API can return just
those fields. Imports nothing heavy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpuhub.errors import QueryError

__all__ = ["CORE_COLUMNS", "TABLE_COLUMNS", "TableColumn", "choose_columns", "column_names", "select_fields"]


@dataclass(frozen=True)
class TableColumn:
    """One column: its ``name`` (``--columns`` value), ``heading``, the record ``keys`` it shows, whether it is
    right-aligned (numbers) and whether its cells must never be cut (prices)."""

    name: str
    heading: str
    keys: tuple[str, ...]
    numeric: bool = False
    whole: bool = False
    words: bool = False


TABLE_COLUMNS: tuple[TableColumn, ...] = (
    TableColumn("price", "per hour", ("price_per_hour", "currency"), numeric=True, whole=True),
    TableColumn("per_gpu", "per GPU-hour", ("price_per_gpu_hour",), numeric=True, whole=True),
    TableColumn("gpu", "GPUs", ("gpu_count", "gpu_name", "gpu_known", "fractional"), words=True),
    TableColumn("provider", "provider", ("provider", "seller", "via"), words=True),
    TableColumn("instance_type", "instance type", ("instance_type",)),
    TableColumn("region", "region", ("region", "zone", "more_regions"), words=True),
    TableColumn("purchase", "purchase", ("purchase", "listing_stat", "listing_count"), words=True),
    TableColumn("score", "score", ("score", "score_unit"), numeric=True),
    TableColumn("vram", "VRAM/GPU GiB", ("gpu_memory_gib",), numeric=True),
    TableColumn("avail", "avail", ("availability",)),
    TableColumn("vcpus", "vCPUs", ("vcpus",), numeric=True),
    TableColumn("ram", "RAM GiB", ("memory_gib",), numeric=True),
    TableColumn("cpu", "CPU", ("cpu_arch",)),
    TableColumn("interruption", "interruption", ("interruption", "risk_source")),
    TableColumn("source", "source", ("source", "source_kind", "data_date")),
    TableColumn("network", "network, fabric, local disk", ("network_gbps", "fabric", "local_disk_gib")),
    TableColumn("nodes", "nodes per hour", ("price_per_hour", "currency"), numeric=True, whole=True),
)
"""Every column, most important first. ``network`` and ``nodes`` appear when a search asks about them (a network
filter, ``--nodes N``): then they are kept like the first seven."""

CORE_COLUMNS = tuple(c.name for c in TABLE_COLUMNS[:7])
"""The columns a table always keeps, however narrow the terminal: a price means nothing without its purchase
model (spot, on-demand, a capacity block), so ``purchase`` is one of them."""

DISPLAY_ORDER = ("provider", "instance_type", "region", "gpu", "vram", "vcpus", "ram", "cpu", "purchase", "price",
                 "per_gpu", "avail", "interruption", "source", "network", "nodes", "score")
"""The left-to-right order of the columns a table shows when the user did not name them."""

_BY_NAME = {c.name: c for c in TABLE_COLUMNS}


def column_names() -> list[str]:
    """Every column name, most important first (the allowed values of ``--columns``)."""
    return [c.name for c in TABLE_COLUMNS]


def choose_columns(names: Sequence[str] | str | None) -> list[TableColumn] | None:
    """The columns ``--columns`` names (a list, or comma-separated text; repeated names once, in the given order),
    or None when none are named (the surface chooses).

    Raises:
        QueryError: an unknown name (argument ``columns``, naming the allowed values).
    """
    if names is None:
        return None
    given = [n.strip() for item in ([names] if isinstance(names, str) else names) for n in str(item).split(",")]
    given = [n for n in given if n]
    if not given:
        return None
    unknown = [n for n in given if n not in _BY_NAME]
    if unknown:
        raise QueryError("columns", f"{', '.join(repr(n) for n in unknown)} {'is' if len(unknown) == 1 else 'are'} "
                                    f"not a column; allowed values: {', '.join(column_names())}")
    return [_BY_NAME[n] for n in dict.fromkeys(given)]


def select_fields(records: list[dict[str, Any]], columns: Sequence[TableColumn] | None) -> list[dict[str, Any]]:
    """Each offer record with only the fields of ``columns`` (in their order), or every record whole (None)."""
    if columns is None:
        return records
    keys = list(dict.fromkeys(k for c in columns for k in c.keys))
    return [{k: r.get(k) for k in keys} for r in records]
