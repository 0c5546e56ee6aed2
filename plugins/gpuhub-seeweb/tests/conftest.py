"""Shared fixtures of gpuhub-seeweb's tests (a registry with this plugin only, the replayed recording, live runs on a
canned answer or a handler); made by the kit's :func:`gpuhub.plugin.plugin_fixtures`."""

from __future__ import annotations

import gpuhub_seeweb.plugin

from gpuhub.plugin import plugin_fixtures

registry, replayed, serve, live, reference = plugin_fixtures(
    "seeweb", gpuhub_seeweb.plugin, __file__, credentials={"SEEWEB_API_TOKEN": "test-key"})
