"""Options several commands declare alike, written once: where a command's offers come from (``--fixtures DIR``,
``--fetch MODE``). Light: typer only."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["FetchOption", "FixturesOption"]

FixturesOption = Annotated[Path | None, typer.Option(metavar="DIR", help="replay recordings from DIR/<provider>/")]
"""``--fixtures DIR``: replay the recordings under ``DIR/<provider>/`` instead of fetching."""
FetchOption = Annotated[str, typer.Option(metavar="MODE", help="auto (live if credentials are set), live or replay")]
"""``--fetch MODE``: ``auto``, ``live`` or ``replay`` (each command checks the value and names the option)."""
