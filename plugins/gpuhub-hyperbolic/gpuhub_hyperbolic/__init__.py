"""gpuhub-hyperbolic: Hyperbolic's on-demand GPU VMs and prices for gpuhub.

Live data comes from ``GET /v2/skypilot/catalog`` (``HYPERBOLIC_API_KEY``), the catalog endpoint Hyperbolic serves
SkyPilot; without a key the bundled recording, reconstructed from the SkyPilot catalog's Hyperbolic rows, replays.
"""

from __future__ import annotations

from gpuhub_hyperbolic.provider import Hyperbolic

__all__ = ["Hyperbolic", "__version__"]

__version__ = "0.1.0"
