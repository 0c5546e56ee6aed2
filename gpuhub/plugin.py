"""The one face for plugin authors: everything a provider plugin (and its tests) imports from gpuhub.

A plugin's code imports only this module (``from gpuhub.plugin import Provider, Offer, hookimpl, ...``), never
another core module, so the core can move its internals without breaking a plugin. ``tests/test_plugin_face.py``
fails when a plugin under ``plugins/`` imports any other core module, and import-linter checks the same in CI.

What it exports, by job:

- hooks: :data:`hookimpl` (the marker for ``register_providers``, ``register_gpu_specs``, ``register_regions``,
  ``register_rankers``, ``register_commands``);
- the provider: :class:`Provider` (subclass it), :class:`ProviderContext` (what ``fetch(ctx)`` is handed: HTTP
  through the engine's seam, ``ctx.gpu()``, ``ctx.region()``, ``ctx.guard()``, ``ctx.skip()``, ``ctx.warn()``),
  :class:`Credential`, :data:`ProviderKind`, :class:`ProviderStatus`;
- the model: :class:`Offer`, :class:`Instance`, :class:`Price`, :class:`Region`, :class:`Gpu`, :class:`Source`,
  :class:`PurchaseModel`, :func:`register_purchase_model`; sellers: :func:`seller_name` (an aggregator's spelling
  of the cloud that runs a machine -> the seller's one name, for ``Instance(seller=...)``), :func:`known_sellers`;
  obtainability: :class:`Obtainability`,
  :class:`SpotRisk`, :class:`Reservation`;
- reference facts: :class:`RegionFacts` (``register_regions``), :func:`known_regions`,
  :func:`located_region` (a marketplace's place as a region: continent from the country, coordinates from a known
  city), :class:`GpuSpec` and
  :class:`GpuTable` (``register_gpu_specs``), :func:`load_builtin_specs`;
- checks of one price-list row: :func:`decimal_amount` (a published amount as an exact Decimal),
  :func:`placeholder_price` (zero/negative), :func:`memory_per_gpu_gib` (GPU memory in the wrong unit or total),
  :func:`checked_gpu` (resolve a GPU spelling with its row's memory figure read the right way);
- internal clouds (a team's own clusters): :class:`SiteSettings` read by :func:`load_site_settings` from
  :func:`site_settings_path` (internal rates, GPU spellings, each cluster's :class:`ClusterPlace`: location, carbon,
  provisioning wait, Kueue queue), :func:`site_settings` (the same for ``fetch(ctx)``: the file, else the
  recording's ``settings.toml``), :class:`SiteSettingsError`, :func:`site_region` (a cluster as a region);
  :func:`read_json` (a user's JSON file, read as a regular file with size and nesting limits);
- dated static price tables (a table bundled with the plugin, no HTTP): :func:`table_directory` (``--fixtures`` or
  the bundled one), :func:`load_price_table` (the table, or a :class:`ProviderError` naming it),
  :func:`guarded_offers` (each row's offers, a malformed row skipped and counted);
- requests: :func:`json_headers` (``Accept``/``Content-Type`` JSON and the credential as ``Authorization: Bearer``
  or a key header);
- errors: :class:`GpuhubError`, :class:`ProviderError`, :class:`CredentialsError`, :class:`ReplayMissError`,
  :class:`UnknownGpuError`, :class:`QueryError`;
- recordings and secrets: :class:`Manifest`, :func:`load_manifest`, :class:`ReplayTransport`,
  :func:`write_json_files` (a build script writes or checks its recording), :func:`build_recording_main` (such a
  script's whole ``main()``: ``--check``, absent sources, exit codes), :func:`json_exchange` (one manifest exchange
  answered 200 with JSON from a file), :func:`remember_secret` (a
  credential the plugin read outside ``ctx.require_secret``, so logs and recordings redact it), :func:`scrub_url`;
- the conformance kit and test helpers (import pytest only when used): :class:`ProviderConformance`,
  :class:`CountingTransport`, :func:`make_engine`, :func:`run_provider`, :func:`reset_state` (forget the loaded
  plugins and the default engine between tests), :func:`run_cli` (``gpuhub ARGS`` in this process),
  :func:`run_cli_json` (the same with fresh plugins and no store, JSON decoded), :func:`plugin_fixtures` (the
  registry/replayed/serve/live/reference fixtures of a plugin's ``tests/conftest.py``), :func:`reference_file` (a
  fixture giving one file of ``../shared/reference``, or a skip), :func:`network_facts` (the network, fabric and
  local-disk facts an offer gives, by field; empty where the provider publishes none), :func:`replaying` (a
  handler answering from a recording), :func:`build_script` (a plugin's ``scripts/build_recording.py`` as a
  module), :func:`search` and :class:`SearchResult` (the public search), :class:`Engine`, :class:`Registry`.

Names are imported on first use (PEP 562), so importing this module costs nothing until a name is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Public name -> the core module that defines it. Only this table knows where things live.
_EXPORTS: dict[str, str] = {
    "hookimpl": "gpuhub.fetch.hookspecs",
    "Credential": "gpuhub.fetch.provider", "Provider": "gpuhub.fetch.provider",
    "ProviderContext": "gpuhub.fetch.provider",
    "ProviderKind": "gpuhub.fetch.provider", "ProviderStatus": "gpuhub.fetch.provider",
    "Gpu": "gpuhub.model", "Instance": "gpuhub.model", "Offer": "gpuhub.model", "Price": "gpuhub.model",
    "PurchaseModel": "gpuhub.model", "Region": "gpuhub.model", "Source": "gpuhub.model",
    "register_purchase_model": "gpuhub.model",
    "Obtainability": "gpuhub.obtain", "Reservation": "gpuhub.obtain", "SpotRisk": "gpuhub.obtain",
    "RegionFacts": "gpuhub.facts.regions", "known_regions": "gpuhub.facts.regions",
    "located_region": "gpuhub.facts.regions",
    "GpuSpec": "gpuhub.facts.gpus", "GpuTable": "gpuhub.facts.gpus", "UnknownGpuError": "gpuhub.facts.gpus",
    "load_builtin_specs": "gpuhub.facts.gpus",
    "GpuhubError": "gpuhub.errors", "ProviderError": "gpuhub.errors", "CredentialsError": "gpuhub.errors",
    "ReplayMissError": "gpuhub.errors", "QueryError": "gpuhub.errors",
    "Manifest": "gpuhub.fetch.recording", "load_manifest": "gpuhub.fetch.recording",
    "ReplayTransport": "gpuhub.fetch.transports", "write_json_files": "gpuhub.fetch.recording",
    "build_recording_main": "gpuhub.fetch.recording", "json_exchange": "gpuhub.fetch.recording",
    "remember_secret": "gpuhub.fetch.recording", "scrub_url": "gpuhub.fetch.recording",
    "ProviderConformance": "gpuhub.kit.testing", "CountingTransport": "gpuhub.kit.testing",
    "make_engine": "gpuhub.kit.testing", "run_provider": "gpuhub.kit.testing", "reset_state": "gpuhub.kit.testing",
    "run_cli": "gpuhub.kit.testing", "run_cli_json": "gpuhub.kit.testing",
    "plugin_fixtures": "gpuhub.kit.testing", "reference_file": "gpuhub.kit.testing",
    "network_facts": "gpuhub.kit.testing",
    "replaying": "gpuhub.kit.testing", "build_script": "gpuhub.kit.testing", "LoopbackJson": "gpuhub.kit.testing",
    "search": "gpuhub.service.searching", "SearchResult": "gpuhub.service.searching",
    "Engine": "gpuhub.service.engine", "Registry": "gpuhub.fetch.plugins",
    "seller_name": "gpuhub.sellers", "known_sellers": "gpuhub.sellers",
    "checked_gpu": "gpuhub.fetch.rowchecks", "decimal_amount": "gpuhub.fetch.rowchecks",
    "memory_per_gpu_gib": "gpuhub.fetch.rowchecks",
    "placeholder_price": "gpuhub.fetch.rowchecks",
    "ClusterPlace": "gpuhub.fetch.sitesettings", "SiteSettings": "gpuhub.fetch.sitesettings",
    "SiteSettingsError": "gpuhub.fetch.sitesettings", "load_site_settings": "gpuhub.fetch.sitesettings",
    "site_region": "gpuhub.fetch.sitesettings", "site_settings_path": "gpuhub.fetch.sitesettings",
    "site_settings": "gpuhub.fetch.sitesettings", "read_json": "gpuhub.fetch.safeio",
    "load_price_table": "gpuhub.fetch.statictable", "guarded_offers": "gpuhub.fetch.statictable",
    "table_directory": "gpuhub.fetch.statictable", "json_headers": "gpuhub.fetch.headers",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gpuhub.plugin' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:
    pass
