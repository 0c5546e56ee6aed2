"""The provider plugins of this repository (``plugins/gpuhub-<name>``): provider name -> the distribution that
owns it.

No other distribution may register these names (an impostor ``lambda`` would serve its own prices as Lambda's),
and "not installed" messages name the distribution to install. One entry per line, so that plugins added side by
side do not touch the same line.
"""

from __future__ import annotations

import re

ENTRY_POINT_GROUP = "gpuhub"
"""The entry-point group a plugin distribution registers its plugin module under."""
CORE_DISTRIBUTION = "gpuhub-core"
"""The core's own distribution (import name ``gpuhub``; the index name ``gpuhub`` belongs to another project)."""

BUNDLED_PROVIDERS: dict[str, str] = {
    "aws": "gpuhub-aws",
    "azure": "gpuhub-azure",
    "coreweave": "gpuhub-coreweave",
    "cudo": "gpuhub-cudo",
    "daytona": "gpuhub-daytona",
    "gcp": "gpuhub-gcp",
    "hyperbolic": "gpuhub-hyperbolic",
    "hyperstack": "gpuhub-hyperstack",
    "jarvislabs": "gpuhub-jarvislabs",
    "lambda": "gpuhub-lambda",
    "lium": "gpuhub-lium",
    "mithril": "gpuhub-mithril",
    "nebius": "gpuhub-nebius",
    "oci": "gpuhub-oci",
    "primeintellect": "gpuhub-primeintellect",
    "runpod": "gpuhub-runpod",
    "seeweb": "gpuhub-seeweb",
    "shadeform": "gpuhub-shadeform",
    "spheron": "gpuhub-spheron",
    "vast": "gpuhub-vast",
    "verda": "gpuhub-verda",
    "yotta": "gpuhub-yotta",
}
"""Provider name -> owning distribution, for every public-cloud plugin under ``plugins/`` (the Kubernetes and Slurm
plugins describe the user's own clusters and are not listed: their names are the user's)."""


def installed_distributions() -> set[str]:
    """Names of the installed distributions that provide ``gpuhub`` entry points (normalized: ``gpuhub-aws``),
    read from the installed packages' metadata (no plugin is imported)."""
    from importlib import metadata  # only an error message asks: importing it costs a search ~10 ms

    names = set()
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        dist = getattr(ep, "dist", None)
        if dist is not None:
            names.add(re.sub(r"[-_.]+", "-", dist.name).lower())
    return names
