"""Shared fixtures of gpuhub-verda's tests (a registry with this plugin only, one replay of the bundled table per
session, its reference catalog file); made by the kit's :func:`gpuhub.plugin.plugin_fixtures`."""

from __future__ import annotations

import gpuhub_verda.plugin

from gpuhub.plugin import plugin_fixtures, reference_file

registry, replayed, serve, live, reference = plugin_fixtures(
    "verda", gpuhub_verda.plugin, __file__)
catalog_csv = reference_file(__file__, "skypilot-catalog", "verda", "vms.csv", scope="session")
