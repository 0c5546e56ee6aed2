"""gpuhub-yotta: Yotta Labs' GPU pods from a dated static price table (Yotta's API has no price listing).

The hooks are in :mod:`gpuhub_yotta.plugin` (entry point ``yotta`` in the ``gpuhub`` group); the provider in
:mod:`gpuhub_yotta.provider`.
"""

from __future__ import annotations

__version__ = "0.1.0"
