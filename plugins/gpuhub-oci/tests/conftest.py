"""Shared fixtures of gpuhub-oci's tests (a registry with this plugin only, one replay of the bundled table per
session, its reference catalog file); made by the kit's :func:`gpuhub.plugin.plugin_fixtures`."""

from __future__ import annotations

import gpuhub_oci.plugin

from gpuhub.plugin import plugin_fixtures, reference_file

registry, replayed, serve, live, reference = plugin_fixtures(
    "oci", gpuhub_oci.plugin, __file__)
digest_csv = reference_file(__file__, "skypilot-catalog", "oci", "vms.gpu-digest.csv", scope="session")
