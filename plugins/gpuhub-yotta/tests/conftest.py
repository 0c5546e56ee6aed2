"""Shared fixtures of gpuhub-yotta's tests (a registry with this plugin only, one replay of the bundled table per
session, its reference catalog file); made by the kit's :func:`gpuhub.plugin.plugin_fixtures`."""

from __future__ import annotations

import gpuhub_yotta.plugin

from gpuhub.plugin import plugin_fixtures, reference_file

registry, replayed, serve, live, reference = plugin_fixtures(
    "yotta", gpuhub_yotta.plugin, __file__, replay_mode="auto")
catalog = reference_file(__file__, "skypilot-catalog", "yotta", "vms.csv")
