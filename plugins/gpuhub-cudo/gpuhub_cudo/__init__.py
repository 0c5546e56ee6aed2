"""gpuhub-cudo: Cudo Compute GPU machine types, priced per component (GPU, vCPU, GiB of RAM) per hour.

Live data comes from Cudo's public ``GET /v1/vms/machine-types-2`` (no credentials; ask for it with
``--fetch live``); otherwise the bundled recording, reconstructed from the SkyPilot catalog, replays.
"""

from __future__ import annotations

from gpuhub_cudo.provider import Cudo

__all__ = ["Cudo", "__version__"]

__version__ = "0.1.0"
