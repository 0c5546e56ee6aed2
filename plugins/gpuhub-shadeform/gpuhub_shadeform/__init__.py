"""gpuhub-shadeform: GPU instance types of about 18 clouds through Shadeform's API (``GET /v1/instances/types``),
each offer naming the cloud that runs the machine (its seller) and Shadeform as its source.

Without ``SHADEFORM_API_KEY`` the bundled recording (reconstructed from the SkyPilot catalog's Shadeform file)
replays.
"""

from __future__ import annotations

from gpuhub_shadeform.provider import ShadeformProvider

__all__ = ["ShadeformProvider", "__version__"]

__version__ = "0.1.0"
