"""gpuhub-nebius: Nebius AI Cloud GPU presets and their prices per instance-hour, from a dated static price table.

Nebius publishes prices through its gRPC billing API (``CalculatorService.Estimate``), which gpuhub's HTTP seam
cannot speak; the plugin ships the prices of the SkyPilot catalog instead (see README).
"""

from __future__ import annotations

from gpuhub_nebius.provider import Nebius

__all__ = ["Nebius", "__version__"]

__version__ = "0.1.0"
