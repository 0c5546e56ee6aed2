"""gpuhub-mithril: Mithril's spot GPU instance types, their auction prices and the regions with capacity.

Live data comes from Mithril's API v2 (``MITHRIL_API_KEY``); without a key the bundled recording, reconstructed from
the SkyPilot catalog's Mithril rows, replays.
"""

from __future__ import annotations

from gpuhub_mithril.provider import Mithril

__all__ = ["Mithril", "__version__"]

__version__ = "0.1.0"
