"""gpuhub-spheron: Spheron's GPU offers (``GET /api/gpu-offers``, paginated, Bearer key).

The hooks are in :mod:`gpuhub_spheron.plugin` (entry point ``spheron`` in the ``gpuhub`` group); the provider in
:mod:`gpuhub_spheron.provider`.
"""

from __future__ import annotations

__version__ = "0.1.0"
