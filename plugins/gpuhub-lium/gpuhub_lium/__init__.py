"""gpuhub-lium: Lium's rentable GPU nodes from its public node feed (``GET /api/public/v1/nodes``).

The hooks are in :mod:`gpuhub_lium.plugin` (entry point ``lium`` in the ``gpuhub`` group); the provider in
:mod:`gpuhub_lium.provider`.
"""

from __future__ import annotations

__version__ = "0.1.0"
