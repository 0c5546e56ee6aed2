"""gpuhub-jarvislabs: JarvisLabs GPU pools, on-demand (and container spot) prices and capacity for gpuhub.

Live data comes from JarvisLabs' ``GET /misc/server_meta`` (``JL_API_KEY``); without a key the bundled recording,
reconstructed from the SkyPilot catalog's JarvisLabs rows, replays.
"""

from __future__ import annotations

from gpuhub_jarvislabs.provider import JarvisLabs

__all__ = ["JarvisLabs", "__version__"]

__version__ = "0.1.0"
