"""An engine installed process-wide for a block of tests (the CLI's and argument-less ``gpuhub.search()``'s)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from gpuhub import Engine
from gpuhub.fetch.plugins import reset_registry
from gpuhub.service.searching import reset_default_engine


@contextlib.contextmanager
def process_wide(engine: Engine) -> Iterator[Engine]:
    """``engine`` and its registry as the process's for the block; afterwards none, and ``engine`` shut down."""
    reset_registry(engine.registry)
    reset_default_engine(engine)
    try:
        yield engine
    finally:
        reset_default_engine(None)
        reset_registry(None)
        engine.shutdown()
