"""Shared fixtures of gpuhub-vast's tests (a registry with this plugin only, the replayed recording, live runs on a
canned answer or a handler, its reference catalog file); made by the kit's :func:`gpuhub.plugin.plugin_fixtures`."""

from __future__ import annotations

import gpuhub_vast.plugin

from gpuhub.plugin import plugin_fixtures, reference_file

registry, replayed, serve, live, reference = plugin_fixtures(
    "vast", gpuhub_vast.plugin, __file__, credentials={"VAST_API_KEY": "test-key"})
catalog = reference_file(__file__, "skypilot-catalog", "vast", "vms.csv")
