"""Options several commands share (importing this module costs typer only)."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["WideOption"]

WideOption = Annotated[bool, typer.Option("--wide", help="every table column, whatever the terminal's width (a "
                                                         "narrow terminal otherwise leaves the less important out "
                                                         "and says which)")]
"""``--wide`` of the table commands (``gpuhub search`` has its own from :data:`gpuhub.answer.spec.SEARCH_PARAMS`)."""
