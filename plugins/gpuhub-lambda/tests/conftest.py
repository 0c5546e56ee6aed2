"""Shared fixtures of gpuhub-lambda's tests (a registry with this plugin only, the replayed recording, live runs on a
canned answer or a handler); made by the kit's :func:`gpuhub.plugin.plugin_fixtures`."""

from __future__ import annotations

import gpuhub_lambda.plugin

from gpuhub.plugin import plugin_fixtures

registry, replayed, serve, live, reference = plugin_fixtures(
    "lambda", gpuhub_lambda.plugin, __file__, credentials={"LAMBDA_API_KEY": "test-key"})
