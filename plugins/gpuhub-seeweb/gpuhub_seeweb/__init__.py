"""gpuhub-seeweb: Seeweb's cloud server GPU plans (Italy, Switzerland, Bulgaria) and hourly prices for gpuhub.

Live data comes from Seeweb's ECS API v2 ``GET /ecs/v2/plans`` (``SEEWEB_API_TOKEN``); without a token the bundled
recording, reconstructed from the SkyPilot catalog's Seeweb rows, replays.
"""

from __future__ import annotations

from gpuhub_seeweb.provider import Seeweb

__all__ = ["Seeweb", "__version__"]

__version__ = "0.1.0"
