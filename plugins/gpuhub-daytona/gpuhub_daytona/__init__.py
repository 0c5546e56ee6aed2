"""gpuhub-daytona: Daytona's GPU sandboxes from a dated static price table (see README: why not live).

The hooks are in :mod:`gpuhub_daytona.plugin` (entry point ``daytona`` in the ``gpuhub`` group); the provider in
:mod:`gpuhub_daytona.provider`.
"""

from __future__ import annotations

__version__ = "0.1.0"
