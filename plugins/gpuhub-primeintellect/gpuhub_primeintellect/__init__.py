"""gpuhub-primeintellect: GPU offers of the clouds Prime Intellect aggregates, from its availability API
(``GET /api/v1/availability/``), each naming the cloud that runs the machine (its seller).

Without ``PRIME_API_KEY`` the bundled recording (reconstructed from the SkyPilot catalog's Prime Intellect file)
replays.
"""

from __future__ import annotations

from gpuhub_primeintellect.provider import PrimeIntellectProvider

__all__ = ["PrimeIntellectProvider", "__version__"]

__version__ = "0.1.0"
