"""Options several commands declare alike, written once: where a command's offers come from (``--fixtures DIR``,
``--fetch MODE``), and ``--wide`` of the table commands. Light: typer only."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["FetchOption", "FixturesOption", "WideOption"]

FixturesOption = Annotated[Path | None, typer.Option(metavar="DIR", help="replay recordings from DIR/<provider>/")]
"""``--fixtures DIR``: replay the recordings under ``DIR/<provider>/`` instead of fetching."""
FetchOption = Annotated[str, typer.Option(metavar="MODE", help="auto (live if credentials are set), live or replay")]
"""``--fetch MODE``: ``auto``, ``live`` or ``replay`` (each command checks the value and names the option)."""
WideOption = Annotated[bool, typer.Option("--wide", help="every table column, whatever the terminal's width (a "
                                                         "narrow terminal otherwise leaves the less important out "
                                                         "and says which)")]
"""``--wide`` of the table commands (``gpuhub search`` has its own from :data:`gpuhub.answer.spec.SEARCH_PARAMS`)."""
