"""gpuhub-vast: Vast.ai marketplace listings for gpuhub, from Vast's offer search (``/api/v0/bundles/``).

Without ``VAST_API_KEY`` the bundled recording (reconstructed from the SkyPilot catalog's Vast file, a summary of
listings) replays.
"""

from __future__ import annotations

from gpuhub_vast.provider import VastProvider

__all__ = ["VastProvider", "__version__"]

__version__ = "0.1.0"
