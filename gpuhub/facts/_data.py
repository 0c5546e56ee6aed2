"""Reading the packaged data files under ``gpuhub/data/``."""

from __future__ import annotations

import csv
import io


def read_csv(name: str) -> list[dict[str, str]]:
    """Rows of ``gpuhub/data/<name>`` as dicts (UTF-8 CSV with a header row)."""
    from importlib import resources  # ~4 ms to import: a search served from the store reads no data file

    text = resources.files("gpuhub").joinpath("data").joinpath(name).read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))
