"""Local storage of Lambda's on-demand instance types as Lambda's instances page publishes it.

The instance-types API gives ``specs.storage_gib`` in live answers, but not every answer has it (the bundled
recording, rebuilt from SkyPilot's catalog, has none). Lambda's pricing page https://lambda.ai/instances lists each
plan's vCPUs, RAM (GiB) and local SSD (TiB or GiB); ``data/storage.csv`` carries them as transcribed on 2026-09-20
(api-evangelist/lambda-labs ``plans/lambda-labs-plans-pricing.yml``, whose every figure was found verbatim in the
page), keyed by the API's instance type name. The page's size is taken for an answer without ``storage_gib`` only
when the answer's vCPUs and RAM equal the page's plan, so that a configuration the page no longer describes (the
recording's 8x V100 with 92 vCPUs against the page's 88) gets no storage figure: unknown stays unknown.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

__all__ = ["PAGE_SOURCE", "PageStorage", "page_storage"]

PAGE_SOURCE = ("Lambda instances page https://lambda.ai/instances (transcription of 2026-09-20, api-evangelist/"
               "lambda-labs plans/lambda-labs-plans-pricing.yml): {plan}, {vcpus:g} vCPUs, {memory:g} GiB RAM, "
               "{published}; the page names no network bandwidth or fabric")
"""The ``network_source`` of a storage figure taken from the page (plan, vCPUs, RAM and the size as printed)."""


@dataclass(frozen=True)
class PageStorage:
    """One plan of the page: ``storage_gib`` (GiB; the page's TiB × 1,024), its ``kind`` as printed (SSD) and the
    ``network_source`` naming the plan."""

    storage_gib: float
    kind: str
    network_source: str


@lru_cache(maxsize=1)
def _table() -> dict[str, tuple[float, float, PageStorage]]:
    text = resources.files("gpuhub_lambda").joinpath("data/storage.csv").read_text(encoding="utf-8")
    table: dict[str, tuple[float, float, PageStorage]] = {}
    for row in csv.DictReader(text.splitlines()):
        vcpus, memory = float(row["vcpus"]), float(row["memory_gib"])
        source = PAGE_SOURCE.format(plan=row["plan"], vcpus=vcpus, memory=memory, published=row["storage_published"])
        table[row["instance_type"]] = (vcpus, memory, PageStorage(float(row["storage_gib"]), "SSD", source))
    return table


def page_storage(instance_type: str, vcpus: float | None, memory_gib: float | None) -> PageStorage | None:
    """The page's local storage of ``instance_type`` when the page lists it with these ``vcpus`` and
    ``memory_gib`` (GiB); None for a type the page does not list or lists with another configuration."""
    known = _table().get(instance_type)
    if known is None or (vcpus, memory_gib) != known[:2]:
        return None
    return known[2]
