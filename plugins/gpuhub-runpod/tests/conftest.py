"""Shared fixtures of gpuhub-runpod's tests (a registry with this plugin only, the replayed recording, live runs on a
canned answer or a handler, its reference catalog file); made by the kit's :func:`gpuhub.plugin.plugin_fixtures`."""

from __future__ import annotations

import gpuhub_runpod.plugin

from gpuhub.plugin import plugin_fixtures, reference_file

registry, replayed, serve, live, reference = plugin_fixtures(
    "runpod", gpuhub_runpod.plugin, __file__, credentials={"RUNPOD_API_KEY": "test-key"})
digest = reference_file(__file__, "skypilot-catalog", "runpod", "vms.digest.csv")
