"""The plugin index: what the installed plugins registered, remembered in the offer store, so that a CLI run
whose answers come from stored snapshots does not import a single plugin.

Every CLI run is a fresh process. Importing the six bundled plugins and running their hooks costs more than the
search itself when the offers are already stored, so the first run records what the plugins registered (their
reports, the GPU table with its aliases and scopes, each provider's declared facts) under a key of everything
that decides it: gpuhub's version and files, every ``gpuhub`` entry point (name, target, distribution, version,
location, size and modification time of each file of its package, the bundled recordings included) and the
``GPUHUB_PLUGINS`` / ``GPUHUB_DISABLE_PLUGINS`` switches. Installing, removing, upgrading or editing a plugin, or
switching one off, changes the key, and the next run loads the plugins for real and records the index again.

Later runs rebuild the :class:`~gpuhub.fetch.plugins.Registry` from the index with a stand-in
(:class:`IndexedProvider`) for each provider. A stand-in answers what planning and the store need (name, kind,
credentials, bundled recording, code identity); the first time anything else is needed (``fetch``, an error
translation, a plugin's own attribute) it loads the plugins for real and hands over to the real provider.

Region facts a plugin registers are data (:class:`~gpuhub.facts.regions.RegionFacts`) and are indexed with the
rest. Not indexed (loaded for real every run): a plugin that registers rankers or CLI commands (that is code, not
data), any plugin that failed, hung, clashed or warned (its warning must be shown again), and runs with
``GPUHUB_STRICT_PLUGINS`` or ``GPUHUB_TRACE_PLUGINS`` set.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from gpuhub.fetch.keys import INDEX_FORMAT, INDEX_META, index_key, installation_stamp, quick_key
from gpuhub.fetch.provider import Credential, Provider

if TYPE_CHECKING:
    import httpx

    from gpuhub.errors import ProviderError
    from gpuhub.fetch.plugins import Registry
    from gpuhub.fetch.provider import ProviderContext
    from gpuhub.store import Store

__all__ = ["INDEX_META", "IndexedProvider", "capture", "index_key", "load_registry", "restore"]

log = logging.getLogger("gpuhub.fetch.plugins")
_DATA_HOOKS = frozenset({"register_gpu_specs", "register_providers", "register_regions"})


def capture(registry: Registry, key: str) -> dict[str, Any] | None:
    """The index of a registry loaded for real (JSON-ready), or None when it must not be indexed: a plugin
    registers code (rankers, regions, commands), or any plugin did not load cleanly (its warning or failure must
    be reported on every run)."""
    from gpuhub.fetch.plugins import _hookimpl_names

    if registry.strict or registry.trace:
        return None
    for report in registry.reports:
        if report.status not in ("loaded", "blocked") or report.warnings or report.error:
            return None
    for name, (plugin, _) in registry._plugins.items():
        if name != "builtin" and set(_hookimpl_names(plugin)) - _DATA_HOOKS:
            return None
    if registry.gpus.conflicts:
        return None
    providers = []
    for name, provider in registry.providers.items():
        if not isinstance(provider, Provider):
            return None  # a duck-typed provider: nothing declared to remember
        cls = type(provider)
        qualname, module = provider.code_identity()
        where = provider.fixtures_dir()
        providers.append({
            "name": name, "plugin": registry.provider_plugin[name], "display_name": provider.display_name,
            "kind": provider.kind, "base_url": provider.base_url,
            "credentials": [{"env": list(c.env), "description": c.description} for c in provider.credentials],
            "static": provider.static, "example_recording": provider.example_recording,
            "resells": provider.resells,
            "min_request_interval_s": provider.min_request_interval_s, "timeout_s": provider.timeout_s,
            "price_change_period_s": provider.price_change_period_s,
            "fixtures_dir": str(where) if where is not None else None,
            "credentials_help": provider.credentials_help(), "qualname": qualname, "module": module,
            # A provider that decides for itself whether it is configured must be asked every time.
            "own_credentials_check": cls.credentials_configured is not Provider.credentials_configured,
        })
    return {"format": INDEX_FORMAT, "key": key, "stamp": installation_stamp(),
            "reports": [r.to_dict() for r in registry.reports], "providers": providers,
            "gpus": registry.gpus.to_state(),
            "regions": [dataclasses.asdict(facts) for facts in registry.regions]}


class IndexedProvider(Provider):
    """A provider as the plugin index remembers it (class attributes as the real class declared them); the real
    provider is loaded on first need (:meth:`fetch`, :meth:`error_from_response`, any attribute of its own).

    Raises (from the methods that need the real provider):
        ProviderError: its plugin no longer loads or no longer registers this provider.
    """

    _facts: ClassVar[dict[str, Any]] = {}
    _loader: ClassVar[_RealRegistry]

    def __init__(self) -> None:
        self._real: Provider | None = None
        self._real_lock = threading.Lock()

    def real(self) -> Provider:
        """The provider its plugin registers, loading the plugins on first use (once per process)."""
        with self._real_lock:
            if self._real is None:
                self._real = self._loader.provider(self.name)
            return self._real

    def fixtures_dir(self) -> Path | None:
        """The bundled recording directory, from the plugin index (no plugin import); None when the plugin has none."""
        where = self._facts["fixtures_dir"]
        return Path(where) if where is not None else None

    def credentials_configured(self, environ: Mapping[str, str]) -> bool:
        """Whether ``environ`` holds the provider's credentials: the index's list of variables, unless the plugin checks
        them itself (then the plugin is loaded and asked).
        """
        if self._facts["own_credentials_check"]:
            return self.real().credentials_configured(environ)
        return super().credentials_configured(environ)

    def credentials_help(self) -> str:
        """How to configure the provider's credentials, as indexed from the plugin (no plugin import)."""
        return str(self._facts["credentials_help"])

    def code_identity(self) -> tuple[str, str]:
        """(qualified class name, module) of the plugin's provider class, as indexed (for the snapshot keys)."""
        return str(self._facts["qualname"]), str(self._facts["module"])

    def error_from_response(self, response: httpx.Response) -> ProviderError | None:
        """The plugin's own reading of an error answer (loads the plugin: only a real fetch gets here)."""
        return self.real().error_from_response(response)

    def fetch(self, ctx: ProviderContext) -> Iterable[Any]:
        """The plugin's :meth:`Provider.fetch <gpuhub.fetch.provider.Provider.fetch>` (loads the plugin on first use).
        """
        return self.real().fetch(ctx)

    def __getattr__(self, name: str) -> Any:
        # Only reached for attributes the stand-in lacks: the plugin's own (helpers its fetch or tests use).
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.real(), name)

    def __repr__(self) -> str:
        return f"<{self._facts['qualname']} {self.name!r} (from the plugin index)>"


class _RealRegistry:
    """The registry loaded for real, on first need, shared by every stand-in of one restored registry."""

    def __init__(self, environ: Mapping[str, str] | None) -> None:
        self._environ = environ
        self._registry: Registry | None = None
        self._lock = threading.Lock()

    def provider(self, name: str) -> Provider:
        from gpuhub.errors import ProviderError
        from gpuhub.fetch.plugins import Registry

        with self._lock:
            if self._registry is None:
                self._registry = Registry(environ=self._environ)
            registry = self._registry
        provider = registry.providers.get(name)
        if provider is None:
            problems = "; ".join(f"{r.name}: {r.status}: {r.error}" for r in registry.reports if r.error)
            raise ProviderError(f"the plugin of provider {name!r} no longer registers it"
                                + (f" ({problems})" if problems else ""))
        return provider


def _stand_in(facts: Mapping[str, Any], loader: _RealRegistry) -> IndexedProvider:
    attrs = {
        "name": facts["name"], "display_name": facts["display_name"], "kind": facts["kind"],
        "base_url": facts["base_url"], "static": bool(facts["static"]),
        "credentials": tuple(Credential(tuple(c["env"]), c["description"]) for c in facts["credentials"]),
        "example_recording": bool(facts["example_recording"]), "resells": bool(facts.get("resells", False)),
        "min_request_interval_s": float(facts["min_request_interval_s"]), "timeout_s": facts["timeout_s"],
        # the stored data's staleness flag reads it (OUTDATED: over 3 × its 30-day period): the plugin's own value
        **({"price_change_period_s": float(facts["price_change_period_s"])}
           if facts.get("price_change_period_s") is not None else {}),
        "_facts": dict(facts), "_loader": loader,
    }
    cls = type(f"Indexed{facts['qualname'].rsplit('.', 1)[-1]}", (IndexedProvider,), attrs)
    return cls()  # type: ignore[no-any-return]


def restore(index: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> Registry:
    """The registry an index describes, with stand-in providers (no plugin imported).

    Raises:
        KeyError, TypeError, ValueError: the index is not what :func:`capture` writes.
        PluginError: the built-in plugin cannot register its rankers.
    """
    from gpuhub.facts.gpus import GpuTable
    from gpuhub.facts.regions import RegionFacts
    from gpuhub.fetch.plugins import PluginReport, Registry

    if index.get("format") != INDEX_FORMAT:
        raise ValueError(f"plugin index format {index.get('format')!r}, expected {INDEX_FORMAT}")
    loader = _RealRegistry(environ)
    reports = [PluginReport(**row) for row in index["reports"]]
    providers = {p["name"]: (str(p["plugin"]), _stand_in(p, loader)) for p in index["providers"]}
    return Registry.restore(reports=reports, providers=providers, gpus=GpuTable.from_state(index["gpus"]),
                            regions=[RegionFacts(**facts) for facts in index["regions"]], environ=environ)


def load_registry(environ: Mapping[str, str] | None = None, store: Store | None = None) -> Registry:
    """The registry for this process: restored from the store's plugin index when the installed plugins are
    exactly those it describes, else loaded for real (and indexed for the next run when it can be). Never fails
    for the index's sake: an unreadable, damaged or outdated index is a miss.

    Raises:
        PluginError: strict mode (``GPUHUB_STRICT_PLUGINS``) and a plugin failed.
    """
    from gpuhub.fetch.plugins import Registry, _truthy
    from gpuhub.store import StoreError, open_store

    env = os.environ if environ is None else environ
    if _truthy(env.get("GPUHUB_STRICT_PLUGINS")) or _truthy(env.get("GPUHUB_TRACE_PLUGINS")):
        return Registry(environ=environ)
    try:
        store = store if store is not None else open_store(environ=env)
    except StoreError:
        store = None
    if store is None:
        return Registry(environ=environ)
    index: Any = None
    try:
        text = store.get_meta(INDEX_META)
        index = json.loads(text) if text else None
        # First the quick key (no entry point read: installation stamp and package files), then the full one.
        if isinstance(index, dict) and isinstance(index.get("modules"), list) and index.get("quick") == quick_key(
                [str(m) for m in index["modules"]], env):
            return restore(index, environ)
    except (StoreError, OSError, ValueError, KeyError, TypeError) as exc:
        log.debug("plugin index not usable, loading the plugins: %s", exc)
        index = None
    from importlib import metadata

    from gpuhub.bundled import ENTRY_POINT_GROUP

    eps = list(metadata.entry_points(group=ENTRY_POINT_GROUP))
    key = index_key(env, eps)
    modules = sorted({ep.value.split(":")[0].strip() for ep in eps})
    try:
        if isinstance(index, dict) and index.get("key") == key:
            registry = restore(index, environ)
            if index.get("modules") != modules or index.get("quick") != quick_key(modules, env):
                # The index describes this installation: its stamp and quick key become this process's (another
                # interpreter path, such as ``python -c``, sees other sys.path directories).
                _put_index(store, {**index, "modules": modules, "quick": quick_key(modules, env),
                                   "stamp": installation_stamp(env)})
            return registry
    except (StoreError, OSError, ValueError, KeyError, TypeError) as exc:
        log.debug("plugin index not usable, loading the plugins: %s", exc)
    registry = Registry(environ=environ)
    index = capture(registry, key)
    if index is not None:
        _put_index(store, {**index, "modules": modules, "quick": quick_key(modules, env),
                           "stamp": installation_stamp(env)})
    return registry


def _put_index(store: Store, index: Mapping[str, Any]) -> None:
    """Write the plugin index (a failure only costs the next run a real load)."""
    from gpuhub.store import StoreError

    try:
        store.put_meta(INDEX_META, json.dumps(index, separators=(",", ":")))
    except (StoreError, OSError) as exc:
        log.debug("could not write the plugin index: %s", exc)
