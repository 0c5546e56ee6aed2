"""gpuhub-coreweave: CoreWeave GPU node prices for gpuhub, from a versioned static price table.

CoreWeave publishes prices only on its web page, so this plugin ships them (``recording/price_table.json``,
verified on the date in ``recording/manifest.json``) and never calls the network.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
