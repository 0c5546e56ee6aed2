"""Dated static price tables: a provider whose prices are a table bundled with its plugin (no HTTP) reads it with
:func:`load_price_table` and turns its rows into offers with :func:`guarded_offers`.

Data source: the plugin's own ``recording/<file>.json`` (built by its ``scripts/build_recording.py`` from a dated
reference), or ``--fixtures DIR/<provider>/`` in its place. May import: :mod:`gpuhub.errors`, :mod:`gpuhub.model`
and :mod:`.provider`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from gpuhub.errors import ProviderError
from gpuhub.fetch.provider import ProviderContext
from gpuhub.model import Offer

__all__ = ["guarded_offers", "load_price_table", "table_directory"]


def table_directory(ctx: ProviderContext) -> Path | None:
    """The directory ``fetch(ctx)`` reads its table from: the replayed recording's (``--fixtures``), else None
    (meaning the bundled one)."""
    return ctx.recording.directory if ctx.recording is not None else None


def load_price_table(directory: Path | None, bundled: Path, file_name: str, *, label: str, package: str,
                     rows: str | None = None, rows_label: str | None = None) -> dict[str, Any]:
    """The JSON object ``<directory or bundled>/<file_name>``, decoded.

    ``label`` names the table in messages (``"Daytona price table"``), ``package`` is the distribution to reinstall
    (``"gpuhub-daytona"``). With ``rows`` (a key, e.g. ``"sandboxes"``) the object must hold a non-empty list
    under it, called ``rows_label`` (default: ``rows``) in the message.

    Raises:
        ProviderError: the file is missing, unreadable or not JSON; not an object; or (with ``rows``) lists no rows
            — a broken install or a bad ``--fixtures``, never a silent empty list.
    """
    path = (directory or bundled) / file_name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProviderError(f"{label} {path} cannot be read: {exc}; reinstall {package}") from None
    if rows is not None:
        if not isinstance(data, dict) or not isinstance(data.get(rows), list) or not data[rows]:
            raise ProviderError(f"{label} {path} lists no {rows_label or rows}; reinstall {package}")
    elif not isinstance(data, dict):
        raise ProviderError(f"{label} {path} is not a JSON object; reinstall {package}")
    return data


def guarded_offers(ctx: ProviderContext, rows: Iterable[Any], what: str,
                   offers_of: Callable[[Any], list[Offer]], *, objects: str | None = None) -> Iterator[Offer]:
    """The offers ``offers_of(row)`` gives for each row, each row inside ``ctx.guard(what)`` (a malformed row is
    skipped and counted). With ``objects`` (a row's name, e.g. ``"row"``), a row that is not a JSON object is such a
    malformed row (``"<objects> is a list, not an object"``)."""
    for row in rows:
        offers: list[Offer] = []
        with ctx.guard(what):
            if objects is not None and not isinstance(row, Mapping):
                raise TypeError(f"{objects} is a {type(row).__name__}, not an object")
            offers = offers_of(row)
        yield from offers
