"""Shared fixtures of gpuhub-cudo's tests (a registry with this plugin only, one replay of the bundled table per
session, its reference catalog file); made by the kit's :func:`gpuhub.plugin.plugin_fixtures`."""

from __future__ import annotations

import gpuhub_cudo.plugin

from gpuhub.plugin import plugin_fixtures, reference_file

registry, replayed, serve, live, reference = plugin_fixtures(
    "cudo", gpuhub_cudo.plugin, __file__)
catalog_csv = reference_file(__file__, "skypilot-catalog", "cudo", "vms.csv", scope="session")
