"""Checks for one row of a provider's price list, shared by the provider plugins (through :mod:`gpuhub.plugin`).

Price lists and catalogs carry the same traps again and again (``../shared/cases/known-faults.md``): a price as a
string or a float with binary artefacts, a zero or negative placeholder price (C23), GPU memory written in MiB in a
field meant for GB or the other way round (C37), an instance total where a per-GPU figure belongs (C32), a total
multiplied by the GPU count a second time (C26). These helpers turn a raw figure into a checked one or say which
trap it is, so a plugin can skip and count the row (``ctx.skip``) or warn (``ctx.warn``), never pass it silently.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gpuhub.fetch.provider import ProviderContext
    from gpuhub.model import Gpu

__all__ = ["MEMORY_TOLERANCE", "checked_gpu", "decimal_amount", "memory_per_gpu_gib", "placeholder_price"]

MEMORY_TOLERANCE = 0.15
"""A reported per-GPU memory more than 15 % away from the GPU table's marketed size contradicts it (an L4 reported
as 22888 MiB is within; an 80 GB figure for a 40 GB A100 is not)."""

_MIB_PER_GIB = 1024


def decimal_amount(value: object, what: str = "price") -> Decimal | None:
    """A published amount (``"1.98"``, ``1.98``, ``0.36979999999999996``) as an exact :class:`Decimal`, keeping the
    digits as published; None for an empty value (``None``, ``""``: the row has no such price).

    Raises:
        ValueError: not a finite number (``"n/a"``, ``True``, ``NaN``, a list); the message names ``what``.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Decimal)):
        raise ValueError(f"{what} is not a number: {value!r}")
    try:
        amount = Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError(f"{what} is not a number: {value!r}") from None
    if not amount.is_finite():
        raise ValueError(f"{what} is not a finite number: {value!r}")
    return amount


def placeholder_price(amount: Decimal) -> bool:
    """True for a price that cannot be real: zero or negative (known fault C23: a 0.00 H100 ranked cheapest)."""
    return amount <= 0


def _close(value: float, target: float) -> bool:
    return abs(value - target) <= MEMORY_TOLERANCE * target


def memory_per_gpu_gib(reported: float | None, gpu_count: float, table_gib: float | None,
                       unit: str = "GB per GPU") -> tuple[float | None, str | None]:
    """The per-GPU memory a row means, and the trap it fell into (None when the figure is what its field says).

    ``reported`` is the row's figure, in the unit its field claims (``unit``: ``GB per GPU``, ``GB total``,
    ``MiB per GPU`` or ``MiB total``); ``table_gib`` the GPU table's marketed size of the resolved GPU (None for an
    unknown GPU: the figure is then taken as its field says). The readings tried, in order: as the field says;
    GB where MiB was claimed or MiB where GB was claimed (C37); the instance total where a per-GPU figure was
    claimed, or per-GPU where a total was claimed (C32); the total multiplied by the count again (C26).

    Returns ``(per_gpu_gib, None)`` when the field is right, ``(per_gpu_gib, "how it was read")`` when another
    reading matches the table, ``(None, "contradicts ...")`` when nothing matches (the caller warns and keeps the
    table's size), and ``(None, None)`` when there is no figure.
    """
    if reported is None or reported <= 0 or gpu_count <= 0:
        return None, None
    in_mib, total = unit.startswith("MiB"), unit.endswith("total")
    as_gib = reported / _MIB_PER_GIB if in_mib else reported
    stated = as_gib / gpu_count if total else as_gib
    if table_gib is None or _close(stated, table_gib):
        return stated, None
    other_unit = reported if in_mib else reported / _MIB_PER_GIB
    readings = [
        (other_unit / gpu_count if total else other_unit,
         f"{'GB' if in_mib else 'MiB'} written in a field for {unit} (known fault C37)"),
        (as_gib if total else as_gib / gpu_count,
         f"{'a per-GPU figure' if total else 'the instance total'} in a field for {unit} (known fault C32)"),
        (other_unit if total else other_unit / gpu_count,
         f"{'a per-GPU figure' if total else 'the instance total'} in {'GB' if in_mib else 'MiB'}, in a field "
         f"for {unit} (known faults C32, C37)"),
        (as_gib / gpu_count / gpu_count,
         f"a total multiplied by the GPU count again, in a field for {unit} (known fault C26)"),
    ]
    for value, how in readings:
        if _close(value, table_gib):
            return value, how
    return None, f"contradicts the GPU table's {table_gib:g} GiB ({reported:g} {unit})"


def checked_gpu(ctx: ProviderContext, raw: str, reported: float | None, gpu_count: float,
                unit: str = "GB per GPU") -> tuple[Gpu, str | None]:
    """Resolve a provider's GPU spelling with the row's memory figure read the right way (see
    :func:`memory_per_gpu_gib`), and say what was wrong with the figure.

    The spelling is resolved with the figure as its field claims first (an ``A100`` row saying 80 GB is the 80 GB
    part); when no variant of that size exists (81920 "GB" is no H100, whatever variant is nearest), the figure
    is read against the spelling's default card (MiB for GB, a total for a per-GPU size, ...). Returns the
    :class:`~gpuhub.model.Gpu` (counted as unknown in the status when it is) and None, or the problem found (the
    caller warns with it; the GPU table's size is kept).
    """
    provider = ctx.provider.name
    as_claimed, _ = memory_per_gpu_gib(reported, gpu_count, None, unit)
    if as_claimed is not None:
        near = ctx.gpus.resolve(raw, as_claimed, provider)  # the variant nearest the figure, however far
        if near is not None and _close(as_claimed, near.memory_gib):
            return ctx.gpu(raw, as_claimed), None
    spec = ctx.gpus.resolve(raw, None, provider)
    if spec is None:
        return ctx.gpu(raw, as_claimed), None
    per_gpu, problem = memory_per_gpu_gib(reported, gpu_count, spec.memory_gib, unit)
    return ctx.gpu(raw, per_gpu if per_gpu is not None else spec.memory_gib), problem
