"""gpuhub-runpod: RunPod GPU pods for gpuhub, from RunPod's GraphQL API (``gpuTypes`` with ``lowestPrice``).

Without ``RUNPOD_API_KEY`` the bundled recording (reconstructed from the SkyPilot catalog's RunPod file) replays.
"""

from __future__ import annotations

from gpuhub_runpod.provider import RunPodProvider

__all__ = ["RunPodProvider", "__version__"]

__version__ = "0.1.0"
