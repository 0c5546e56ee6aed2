"""gpuhub-hyperstack: Hyperstack (NexGen Cloud) GPU flavors and on-demand prices per instance-hour, from a dated
static price table (see README: how the API's price book joins its flavors is not documented)."""

from __future__ import annotations

from gpuhub_hyperstack.provider import Hyperstack

__all__ = ["Hyperstack", "__version__"]

__version__ = "0.1.0"
