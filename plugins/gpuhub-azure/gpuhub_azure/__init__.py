"""gpuhub-azure: Microsoft Azure GPU virtual machines for gpuhub (Retail Prices API + a bundled size table)."""

from __future__ import annotations

__version__ = "0.2.0"
__all__ = ["__version__"]
