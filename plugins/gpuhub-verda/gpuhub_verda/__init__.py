"""gpuhub-verda: Verda (formerly DataCrunch) GPU instance types with on-demand and spot prices per instance-hour.

Live data comes from Verda's REST API (``GET /instance-types``, ``GET /instance-availability``; OAuth2 client
credentials ``VERDA_CLIENT_ID``/``VERDA_CLIENT_SECRET``); without them the bundled recording, reconstructed from
the SkyPilot catalog, replays.
"""

from __future__ import annotations

from gpuhub_verda.provider import Verda

__all__ = ["Verda", "__version__"]

__version__ = "0.1.0"
