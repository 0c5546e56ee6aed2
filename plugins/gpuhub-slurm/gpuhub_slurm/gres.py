"""Slurm GRES strings (a node's ``gres`` and ``gres_used``) as GPU counts per GRES type.

The format is Slurm's own (``slurm.conf`` ``Gres=``, shown by ``scontrol show node`` and slurmrestd's node
``gres`` / ``gres_used`` fields): comma-separated ``name[:type]:count`` items, each optionally followed by a
parenthesised detail that may itself hold commas: ``gpu:h100:8(S:0-1)``, ``gpu:h100:3(IDX:0-2,5)``,
``gpu:fake1:0(IDX:N/A)``, untyped ``gpu:4``, ``shard:8(-/5,5/5,3/5,0/5)``. Only ``gpu`` items count here.

A MIG slice is configured as a typed GPU whose type holds the MIG profile (Slurm's GRES guide:
``gpu:a100_3g.20gb:2``; a type may also be the bare profile, ``gpu:1g.10gb:7``): :func:`mig_profile` reads it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

__all__ = ["MAX_GPUS_PER_NODE", "MIG_SLICES_PER_GPU", "MigProfile", "gpu_counts", "mig_profile", "split_items"]

MAX_GPUS_PER_NODE = 1024
"""More GPUs (or slices) of one type on one node is a malformed record: skipped and counted."""
MIG_SLICES_PER_GPU = 7
"""Compute slices of one MIG-capable card: a ``1g`` profile is one seventh of its compute."""
_ITEM = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+)(?::(?P<type>[^:()]+))?:(?P<count>\d{1,7})$")
_MIG = re.compile(r"^(?:(?P<card>.+?)_)?(?P<gi>[1-7])g\.(?P<gb>\d{1,3})gb$", re.IGNORECASE)
_EMPTY = frozenset({"", "N/A", "(null)", "none"})


@dataclass(frozen=True)
class MigProfile:
    """A MIG profile named in a GRES type: ``a100_3g.20gb`` -> card ``a100``, 3 GPU instances, 20 GB."""

    card: str | None
    """The card's spelling before the profile (``a100``), None when the type is the bare profile."""
    profile: str
    """``3g.20gb``"""
    instances: int
    """GPU instances of the card's 7."""
    memory_gb: int
    """The slice's memory as the profile names it (marketing GB)."""

    @property
    def compute_share(self) -> float:
        """Share of one card's compute: GPU instances / 7."""
        return self.instances / MIG_SLICES_PER_GPU


def mig_profile(gres_type: str | None) -> MigProfile | None:
    """The MIG profile a GRES type names, or None for a whole-GPU type (``h100``) or no type."""
    if not gres_type:
        return None
    match = _MIG.match(gres_type)
    if match is None:
        return None
    return MigProfile(card=match.group("card"), profile=f"{match.group('gi')}g.{match.group('gb')}gb".lower(),
                      instances=int(match.group("gi")), memory_gb=int(match.group("gb")))


def split_items(text: str) -> list[str]:
    """Split a GRES string at the commas outside parentheses.

    Raises:
        ValueError: unbalanced parentheses.
    """
    items, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced parentheses in GRES {text!r}")
        elif char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    if depth:
        raise ValueError(f"unbalanced parentheses in GRES {text!r}")
    items.append(text[start:])
    return [item.strip() for item in items if item.strip()]


def gpu_counts(text: object) -> Counter[str]:
    """GPUs per GRES type in a ``gres`` or ``gres_used`` string (``""`` is the key of untyped GPUs).

    ``"gpu:h100:8(S:0-1),shard:64"`` -> ``{"h100": 8}``; ``"gpu:4"`` -> ``{"": 4}``; ``"N/A"`` or ``""`` -> ``{}``.

    Raises:
        ValueError: not a string, an item that is not ``name[:type]:count``, or more than
            :data:`MAX_GPUS_PER_NODE` of one type.
    """
    if text is None:
        return Counter()
    if not isinstance(text, str):
        raise ValueError(f"GRES is not a string: {text!r}")
    counts: Counter[str] = Counter()
    if text.strip() in _EMPTY:
        return counts
    for item in split_items(text):
        head = item.split("(", 1)[0].strip()
        match = _ITEM.match(head)
        if match is None:
            raise ValueError(f"GRES item {item!r} is not name[:type]:count")
        if match.group("name") != "gpu":
            continue
        count = int(match.group("count"))
        kind = (match.group("type") or "").strip()
        counts[kind] += count
        if counts[kind] > MAX_GPUS_PER_NODE:
            raise ValueError(f"GRES {item!r}: more than {MAX_GPUS_PER_NODE} GPUs of one type on a node")
    return counts
