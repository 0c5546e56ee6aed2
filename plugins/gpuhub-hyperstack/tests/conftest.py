"""Shared fixtures of gpuhub-hyperstack's tests (a registry with this plugin only, one replay of the bundled table per
session, its reference catalog file); made by the kit's :func:`gpuhub.plugin.plugin_fixtures`."""

from __future__ import annotations

import gpuhub_hyperstack.plugin

from gpuhub.plugin import plugin_fixtures, reference_file

registry, replayed, serve, live, reference = plugin_fixtures(
    "hyperstack", gpuhub_hyperstack.plugin, __file__, replay_mode="auto")
catalog_csv = reference_file(__file__, "skypilot-catalog", "hyperstack", "vms.csv", scope="session")
