"""Reading the packaged data files under ``gpuhub/data/``."""

from __future__ import annotations

import csv
import io
from importlib import resources


def read_csv(name: str) -> list[dict[str, str]]:
    """Rows of ``gpuhub/data/<name>`` as dicts (UTF-8 CSV with a header row)."""
    text = resources.files("gpuhub").joinpath("data").joinpath(name).read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))
