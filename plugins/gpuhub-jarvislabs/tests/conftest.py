"""Shared fixtures of gpuhub-jarvislabs's tests (a registry with this plugin only, the replayed recording, live runs
on a canned answer or a handler); made by the kit's :func:`gpuhub.plugin.plugin_fixtures`."""

from __future__ import annotations

import gpuhub_jarvislabs.plugin

from gpuhub.plugin import plugin_fixtures

registry, replayed, serve, live, reference = plugin_fixtures(
    "jarvislabs", gpuhub_jarvislabs.plugin, __file__, credentials={"JL_API_KEY": "test-key"})
