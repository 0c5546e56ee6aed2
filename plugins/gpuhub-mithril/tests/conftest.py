"""Shared fixtures of gpuhub-mithril's tests (a registry with this plugin only, the replayed recording, live runs on a
canned answer or a handler); made by the kit's :func:`gpuhub.plugin.plugin_fixtures`."""

from __future__ import annotations

import gpuhub_mithril.plugin

from gpuhub.plugin import plugin_fixtures

registry, replayed, serve, live, reference = plugin_fixtures(
    "mithril", gpuhub_mithril.plugin, __file__, credentials={"MITHRIL_API_KEY": "test-key"})
