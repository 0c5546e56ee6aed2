"""Where the user's owned-capacity settings file is (:mod:`gpuhub.fetch.owned` reads it): known without importing
the reader, so a search with no such file loads none of it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["ENV", "settings_path"]

ENV = "GPUHUB_OWNED"
"""The environment variable naming the settings file (default: ``owned.yaml`` in the user's config directory)."""


def settings_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the owned-capacity settings are: ``GPUHUB_OWNED``, else ``<user config dir>/gpuhub/owned.yaml``."""
    env = os.environ if environ is None else environ
    if env.get(ENV):
        return Path(env[ENV]).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("gpuhub")) / "owned.yaml"
