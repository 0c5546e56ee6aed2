"""The team's settings for its clusters: internal rates and where each cluster is (a small TOML file).

Found at ``$GPUHUB_KUBERNETES_SETTINGS``, else ``<user config dir>/gpuhub/kubernetes.toml``; a replayed recording
may carry its own ``settings.toml`` beside ``manifest.json`` (the bundled one does). The file's shape is the one
every internal-cloud plugin shares (``gpuhub.plugin.SiteSettings``): ``currency``, ``[rates]`` per GPU-hour by
canonical GPU name, ``[node_rates]`` per node-hour by instance-type label (wins over ``[rates]``), and one
``[clusters.<kube context>]`` table per cluster (city, country, continent, latitude, longitude,
carbon_gco2e_per_kwh, bare_metal, provision_wait_s for autoscaled pools, queue = the user's Kueue LocalQueue).

A MIG slice costs the GPU rate × its compute share (GPU instances / 7). A GPU without a rate gives no offer: the
status says which rates are missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from gpuhub.plugin import ClusterPlace, SiteSettings, SiteSettingsError, load_site_settings, site_settings_path

__all__ = ["ClusterPlace", "Settings", "SettingsError", "load_settings", "settings_path"]

Settings = SiteSettings
SettingsError = SiteSettingsError
load_settings = load_site_settings


def settings_path(environ: Mapping[str, str]) -> Path | None:
    """The settings file that applies: ``GPUHUB_KUBERNETES_SETTINGS`` or the user config file, when it exists."""
    return site_settings_path("kubernetes", environ)
