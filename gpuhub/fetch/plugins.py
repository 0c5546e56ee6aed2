"""Plugin loading: the built-in plugin and every ``gpuhub`` entry point, each isolated from the others.

A broken plugin (import error, hook signature error, a hook that raises, a duplicate provider name, the same
distribution found twice on the path) is reported with its name, version, cause and fix; the rest keep working.

Environment switches:
    ``GPUHUB_PLUGINS``: comma-separated allow-list of plugin (entry-point) names; others are not loaded.
    ``GPUHUB_DISABLE_PLUGINS``: comma-separated block-list.
    ``GPUHUB_TRACE_PLUGINS=1``: log each loading step at INFO on the ``gpuhub.fetch.plugins`` logger (and stderr).
    ``GPUHUB_STRICT_PLUGINS=1``: any plugin failure raises :class:`~gpuhub.errors.PluginError`.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pluggy

from gpuhub.answer.ranking import Ranker
from gpuhub.bundled import BUNDLED_PROVIDERS, CORE_DISTRIBUTION, ENTRY_POINT_GROUP
from gpuhub.errors import PluginError
from gpuhub.facts.gpus import GpuSpec, GpuTable
from gpuhub.fetch import hookspecs
from gpuhub.fetch.provider import Provider
from gpuhub.settings import number_setting

if TYPE_CHECKING:
    from importlib import metadata

    from gpuhub.facts.regions import RegionFacts

__all__ = ["PluginReport", "Registry", "get_registry", "has_registry", "reset_registry"]

log = logging.getLogger("gpuhub.fetch.plugins")
_PROVIDER_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
DEFAULT_LOAD_TIMEOUT_S = 10.0
"""How long one plugin's import or hook may run, seconds (``GPUHUB_PLUGIN_TIMEOUT``); past it, it is ``hung``."""
_LOAD_LIMIT: list[float] = []


def limit_load_time(seconds: float) -> None:
    """Bound every plugin import and hook of registries made from now on to ``seconds`` (the CLI passes part of
    ``search --timeout``, so a hanging plugin cannot outlast the search's deadline)."""
    _LOAD_LIMIT[:] = [seconds]


_HOOKS = ("register_gpu_specs", "register_providers", "register_rankers", "register_regions")


@dataclass
class PluginReport:
    """One plugin's load outcome. ``status``: ``loaded``, ``failed``, ``hung`` (its import or a hook ran past
    ``GPUHUB_PLUGIN_TIMEOUT``; left out), ``blocked`` or ``duplicate``."""

    name: str
    distribution: str | None
    version: str | None
    status: str
    error: str | None = None
    fix: str | None = None
    providers: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """Problems that do not stop the plugin, e.g. a GPU alias another plugin maps to a different GPU."""

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready values (``gpuhub plugins --format json``): name, distribution, version, status,
        error and its fix, the providers it registers, warnings.
        """
        return {"name": self.name, "distribution": self.distribution, "version": self.version,
                "status": self.status, "error": self.error, "fix": self.fix, "providers": self.providers,
                "warnings": list(self.warnings)}


@dataclass
class _Candidate:
    name: str
    distribution: str | None
    version: str | None
    load: Callable[[], object]
    location: str | None = None


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _names(value: str | None) -> set[str]:
    return {n.strip() for n in (value or "").split(",") if n.strip()}


class Registry:
    """Everything plugins registered: providers, the GPU table, rankers; plus a report per plugin.

    Args:
        entry_points: entry points to load (default: the installed ``gpuhub`` group).
        extra_plugins: ``(name, plugin object)`` pairs registered after the built-in one (tests, embedding).
        environ: environment for the switches (default: ``os.environ``).
        strict: overrides ``GPUHUB_STRICT_PLUGINS``.

    Raises:
        PluginError: in strict mode, the first plugin failure.
    """

    def __init__(self, *, entry_points: Iterable[metadata.EntryPoint] | None = None,
                 extra_plugins: Iterable[tuple[str, object]] = (), environ: Mapping[str, str] | None = None,
                 strict: bool | None = None) -> None:
        self._configure(environ, strict)

        from gpuhub._version import __version__
        from gpuhub.fetch import builtin

        self._add(_Candidate("builtin", CORE_DISTRIBUTION, __version__, lambda: builtin), allow_filter=False)
        if entry_points is None:  # importlib.metadata (and email, zipfile) only for a real load, not a restore
            from importlib import metadata

            entry_points = metadata.entry_points(group=ENTRY_POINT_GROUP)
        eps = list(entry_points)
        for candidate in self._dedupe(eps):
            self._add(candidate)
        extras = list(extra_plugins)
        for name, obj in extras:
            self._add(_Candidate(name, None, None, _constant(obj)))
        self._check_switches([ep.name for ep in eps] + [name for name, _ in extras])
        self._run_hooks()

    def _configure(self, environ: Mapping[str, str] | None, strict: bool | None) -> None:
        env = os.environ if environ is None else environ
        self.strict = _truthy(env.get("GPUHUB_STRICT_PLUGINS")) if strict is None else strict
        self.trace = _truthy(env.get("GPUHUB_TRACE_PLUGINS"))
        self.load_timeout_s = min(number_setting(env, "GPUHUB_PLUGIN_TIMEOUT", DEFAULT_LOAD_TIMEOUT_S,
                                                 positive=True), *_LOAD_LIMIT, float("inf"))
        self._allow = _names(env.get("GPUHUB_PLUGINS"))
        self._block = _names(env.get("GPUHUB_DISABLE_PLUGINS"))
        self.providers: dict[str, Provider] = {}
        self.provider_plugin: dict[str, str] = {}
        self.gpus = GpuTable()
        self.rankers: dict[str, Ranker] = {}
        self.regions: list[RegionFacts] = []
        """Region facts the plugins registered (``register_regions``), in registration order (the plugin index
        keeps them: they are data)."""
        self.reports: list[PluginReport] = []
        self.pm = pluggy.PluginManager("gpuhub")
        self.pm.add_hookspecs(hookspecs)
        self._plugins: dict[str, tuple[object, PluginReport]] = {}
        self.switch_warnings: list[str] = []

    @classmethod
    def restore(cls, *, reports: Iterable[PluginReport], providers: Mapping[str, tuple[str, Provider]],
                gpus: GpuTable, regions: Iterable[RegionFacts] = (),
                environ: Mapping[str, str] | None = None) -> Registry:
        """A registry rebuilt from what the plugins registered in an earlier process (the plugin index,
        :mod:`gpuhub.fetch.plugin_index`), without importing them: ``providers`` maps each provider name to its plugin's
        name and a stand-in provider; ``regions`` are the region facts they registered, added again in their
        order. Only the built-in plugin runs (its rankers are code).

        Raises:
            PluginError: the built-in plugin's rankers cannot be registered (a broken installation).
        """
        from gpuhub.fetch import builtin

        self = cls.__new__(cls)
        self._configure(environ, False)
        self.gpus = gpus
        self.reports = list(reports)
        for name, (plugin, provider) in providers.items():
            self.providers[name] = provider
            self.provider_plugin[name] = plugin
        report = next((r for r in self.reports if r.name == "builtin"), None)
        if report is None:
            raise PluginError("the plugin index has no report of the built-in plugin")
        self._check_switches(r.name for r in self.reports)
        self.regions = list(regions)
        if self.regions:
            from gpuhub.facts.regions import add_region

            for facts in self.regions:
                add_region(facts)
        self.pm.register(builtin, name="builtin")
        self._plugins["builtin"] = (builtin, report)
        # The built-in rankers are the core's own code, called in this thread: a plugin's code runs in a thread
        # with a time limit (_plugin_code), but starting one costs a warm search milliseconds for nothing here.
        rankers: list[Ranker] = []
        builtin.register_rankers(register=rankers.append)
        self.rankers.update((ranker.name, ranker) for ranker in rankers)
        return self

    def _check_switches(self, installed: Iterable[str]) -> None:
        """Warn about names in ``GPUHUB_PLUGINS`` / ``GPUHUB_DISABLE_PLUGINS`` that match no installed plugin (a typo
        like ``lamda`` would otherwise silently do nothing); the warnings are kept in :attr:`switch_warnings`."""
        known = sorted(set(installed) - {"builtin"})
        for variable, names in (("GPUHUB_PLUGINS", self._allow), ("GPUHUB_DISABLE_PLUGINS", self._block)):
            unknown = sorted(names - set(known))
            if unknown:
                message = (f"{variable} names {', '.join(repr(n) for n in unknown)}: not an installed plugin "
                           f"(names are case-sensitive; installed: {', '.join(known) or 'none'})")
                self.switch_warnings.append(message)
                log.warning(message)

    # --- loading ------------------------------------------------------------------------------------------
    def _trace(self, message: str) -> None:
        if self.trace:
            log.info(message)
            print(f"gpuhub plugins: {message}", file=sys.stderr)

    def _dedupe(self, eps: list[metadata.EntryPoint]) -> list[_Candidate]:
        seen: dict[str, _Candidate] = {}
        out: list[_Candidate] = []
        for ep in eps:
            dist = getattr(ep, "dist", None)
            dist_name = dist.metadata["Name"] if dist is not None else None
            version = dist.version if dist is not None else None
            # one folder reached through two paths (a lib64 -> lib link) is one install: compare real paths
            location = os.path.realpath(str(dist.locate_file(""))) if dist is not None else None
            candidate = _Candidate(ep.name, dist_name, version, ep.load, location)
            first = seen.get(ep.name)
            if first is None:
                seen[ep.name] = candidate
                out.append(candidate)
                continue
            if first.distribution == dist_name and first.location == location and first.version == version:
                continue  # the same distribution listed twice through one path entry: harmless
            self._fail(PluginReport(ep.name, dist_name, version, "duplicate"),
                       f"plugin {ep.name!r} is installed twice: {first.distribution} {first.version} at "
                       f"{first.location} and {dist_name} {version} at {location}; the first one is used",
                       f"uninstall one copy: pip uninstall {dist_name or ep.name} (then reinstall one version)")
        return out

    def _add(self, candidate: _Candidate, *, allow_filter: bool = True) -> None:
        report = PluginReport(candidate.name, candidate.distribution, candidate.version, "loaded")
        if allow_filter and (candidate.name in self._block or (self._allow and candidate.name not in self._allow)):
            report.status = "blocked"
            report.error = "disabled by GPUHUB_DISABLE_PLUGINS / not in GPUHUB_PLUGINS"
            self.reports.append(report)
            self._trace(f"{candidate.name}: blocked")
            return
        self._trace(f"{candidate.name}: importing ({candidate.distribution} {candidate.version})")
        try:
            plugin = self._plugin_code(candidate.load, "import")
        except _PluginFault as fault:
            dist = candidate.distribution or candidate.name
            if fault.hung:
                report.status = "hung"
            self._fail(report, f"import {fault}",
                       f"reinstall the plugin (pip install --force-reinstall {dist}) or block it with "
                       f"GPUHUB_DISABLE_PLUGINS={candidate.name}")
            return
        try:
            self.pm.register(plugin, name=candidate.name)
        except pluggy.PluginValidationError as exc:
            self._fail(report, f"hook signature does not match gpuhub's hook specs: {_validation_detail(exc)}",
                       f"update {candidate.distribution or candidate.name} for this gpuhub version's hook specs "
                       "(see gpuhub/fetch/hookspecs.py)")
            return
        except ValueError as exc:  # pluggy: plugin already registered under another name
            self._fail(report, f"could not register: {exc}", "install the plugin once")
            return
        unknown = [impl for impl in _hookimpl_names(plugin) if impl not in _spec_names()]
        if unknown:
            self.pm.unregister(plugin)
            self._fail(report, f"implements hooks gpuhub does not have: {', '.join(unknown)}",
                       f"update {candidate.distribution or candidate.name}; known hooks: {', '.join(_spec_names())}")
            return
        self._plugins[candidate.name] = (plugin, report)
        self.reports.append(report)
        self._trace(f"{candidate.name}: registered")

    def _fail(self, report: PluginReport, error: str, fix: str) -> None:
        if report.status == "loaded":
            report.status = "failed"
        report.error, report.fix = error, fix
        if report not in self.reports:
            self.reports.append(report)
        self._trace(f"{report.name}: {report.status}: {error}")
        log.warning("plugin %s (%s %s) %s: %s; fix: %s", report.name, report.distribution, report.version,
                    report.status, error, fix)
        if self.strict:
            raise PluginError(f"plugin {report.name} ({report.distribution} {report.version}): {error}; fix: {fix}")

    def _plugin_code(self, fn: Callable[[], Any], what: str) -> Any:
        """Run plugin code (an import, a hook) in a daemon thread, at most :attr:`load_timeout_s` seconds.

        Anything it raises, ``SystemExit`` and ``KeyboardInterrupt`` included (a real Ctrl-C reaches the main
        thread, which is waiting here, so it is never mistaken for the plugin's), becomes :class:`_PluginFault`;
        so does running past the limit (``hung``: the thread is abandoned, never joined).
        """
        done = threading.Event()
        box: dict[str, Any] = {}

        def run() -> None:
            try:
                box["value"] = fn()
            except BaseException as exc:  # the plugin's SystemExit / KeyboardInterrupt is its failure, not ours
                box["error"] = exc
            finally:
                done.set()

        threading.Thread(target=run, name=f"gpuhub-plugin-{what}", daemon=True).start()
        if not done.wait(self.load_timeout_s):
            raise _PluginFault(f"hung: {what} did not finish within {self.load_timeout_s:g} s "
                               "(GPUHUB_PLUGIN_TIMEOUT); the plugin is left out", hung=True)
        if "error" in box:
            exc = box["error"]
            raise _PluginFault(f"failed: {type(exc).__name__}: {exc}")
        return box.get("value")

    def _run_hooks(self) -> None:
        for name, (plugin, report) in list(self._plugins.items()):
            for hook in _HOOKS:
                impl = getattr(plugin, hook, None)
                if impl is None or not callable(impl):
                    continue
                try:
                    self._call(hook, impl, name, report)
                except _PluginFault as fault:
                    if fault.hung:
                        report.status = "hung"
                    self._fail(report, f"hook {hook} {fault}",
                               f"report this to the maintainers of {report.distribution or name}, or block it "
                               f"with GPUHUB_DISABLE_PLUGINS={name}")
                except Exception as exc:
                    self._fail(report, f"hook {hook} raised {type(exc).__name__}: {exc}",
                               f"report this to the maintainers of {report.distribution or name}")

    def _call(self, hook: str, impl: Callable[..., Any], plugin_name: str, report: PluginReport) -> None:
        if hook == "register_gpu_specs":
            specs: list[GpuSpec] = []
            aliases: list[tuple[str, str, bool]] = []

            def alias(spelling: str, canonical: str, *, global_alias: bool = False) -> None:
                aliases.append((spelling, canonical, global_alias))

            self._plugin_code(lambda: impl(register=specs.append, alias=alias), hook)
            for spec in specs:
                self.gpus.add(spec)
            seen = len(self.gpus.conflicts)
            for spelling, canonical, is_global in aliases:
                # A plugin's spellings are its own providers' unless it says they are global (the core's are).
                scope = None if is_global or plugin_name == "builtin" else plugin_name
                self.gpus.add_alias(spelling, canonical, scope=scope, owner=plugin_name)
            for conflict in self.gpus.conflicts[seen:]:
                report.warnings.append(conflict)
                log.warning("plugin %s: %s", plugin_name, conflict)
        elif hook == "register_providers":
            providers: list[Provider] = []
            self._plugin_code(lambda: impl(register=providers.append), hook)
            for provider in providers:
                self._add_provider(provider, plugin_name, report)
        elif hook == "register_regions":
            from gpuhub.facts.regions import RegionFacts, add_region

            regions: list[RegionFacts] = []
            self._plugin_code(lambda: impl(register=regions.append), hook)
            for facts in regions:
                if not isinstance(facts, RegionFacts):
                    self._fail(report, f"register_regions got {facts!r}", "pass gpuhub.RegionFacts(...) objects")
                    continue
                add_region(facts)
                self.regions.append(facts)
        elif hook == "register_rankers":
            rankers: list[Ranker] = []
            self._plugin_code(lambda: impl(register=rankers.append), hook)
            for ranker in rankers:
                if ranker.name in self.rankers:
                    self._fail(report, f"ranker {ranker.name!r} is already registered",
                               "give the ranker another name")
                    continue
                self.rankers[ranker.name] = ranker

    def _add_provider(self, provider: Provider, plugin_name: str, report: PluginReport) -> None:
        name = getattr(provider, "name", "")
        fetch = getattr(provider, "fetch", None)
        if not isinstance(name, str) or not _PROVIDER_NAME.match(name) or not callable(fetch):
            self._fail(report, f"registered an invalid provider {provider!r} (needs a lower-case name and fetch())",
                       "subclass gpuhub.Provider and set name")
            return
        owner = BUNDLED_PROVIDERS.get(name)
        mine = _dist_key(report.distribution)
        if owner is not None and report.distribution is not None and mine != owner:
            # A bundled provider's name belongs to its own distribution, whichever loads first.
            holder = next((r for r in self.reports if _dist_key(r.distribution) == owner), None)
            installed = f"{holder.distribution} {holder.version}" if holder else f"{owner} (not installed)"
            self._fail(report, f"provider {name!r} belongs to the distribution {owner}; {report.distribution} "
                               f"{report.version} (plugin {plugin_name!r}) may not register it (installed: "
                               f"{installed})",
                       f"uninstall the impostor (pip uninstall {report.distribution}), or load only the plugins you "
                       f"trust with GPUHUB_PLUGINS (e.g. GPUHUB_PLUGINS={name}), or block this one with "
                       f"GPUHUB_DISABLE_PLUGINS={plugin_name}")
            return
        if name in self.providers:
            first = self.provider_plugin[name]
            other = next((r for r in self.reports if r.name == first), None)
            if owner is not None and mine == owner and other is not None and _dist_key(other.distribution) != owner:
                # the bundled distribution reclaims its name from a plugin without a distribution (embedding)
                del self.providers[name]
                other.providers.remove(name)
            else:
                theirs = f"{other.distribution} {other.version}" if other else "?"
                self._fail(report, f"provider {name!r} is already registered by plugin {first!r} ({theirs}); "
                                   f"{report.distribution} {report.version} (plugin {plugin_name!r}) registers it too",
                           f"uninstall one of the two distributions (pip uninstall {report.distribution or plugin_name}"
                           f" or {other.distribution if other else first}), or choose one with GPUHUB_PLUGINS, or "
                           f"block one with GPUHUB_DISABLE_PLUGINS={plugin_name}")
                return
        self.providers[name] = provider
        self.provider_plugin[name] = plugin_name
        self.gpus.bind_provider(name, plugin_name)
        report.providers.append(name)

    def sellers(self) -> list[str]:
        """Names ``--provider`` accepts beyond the loaded providers: the known sellers (:mod:`gpuhub.sellers`)
        when a loaded provider resells other clouds' machines (:attr:`Provider.resells`), else none."""
        if not any(getattr(p, "resells", False) for p in self.providers.values()):
            return []
        from gpuhub.sellers import known_sellers

        return [s for s in known_sellers() if s not in self.providers]

    def register_commands(self, cli: Any) -> None:
        """Let each loaded plugin add CLI subcommands; a failing plugin is reported, the others still run."""
        for name, (plugin, report) in self._plugins.items():
            impl = getattr(plugin, "register_commands", None)
            if impl is None:
                continue
            try:
                self._plugin_code(lambda impl=impl: impl(cli=cli), "register_commands")  # type: ignore[misc]
            except _PluginFault as fault:
                self._fail(report, f"hook register_commands {fault}",
                           f"report this to the maintainers of {report.distribution or name}")
            except Exception as exc:
                self._fail(report, f"hook register_commands raised {type(exc).__name__}: {exc}",
                           f"report this to the maintainers of {report.distribution or name}")


class _PluginFault(Exception):
    """Plugin code raised (anything, ``SystemExit`` included) or hung; the message says which."""

    def __init__(self, message: str, *, hung: bool = False) -> None:
        super().__init__(message)
        self.hung = hung


def _dist_key(name: str | None) -> str | None:
    """A distribution name normalized (PEP 503): ``gpuhub_AWS`` and ``gpuhub-aws`` are one distribution."""
    return re.sub(r"[-_.]+", "-", name).lower() if name else None


def _constant(obj: object) -> Callable[[], object]:
    return lambda: obj


def _spec_names() -> list[str]:
    """The hooks gpuhub defines: the functions marked ``@hookspec`` in :mod:`gpuhub.fetch.hookspecs`."""
    return [name for name in dir(hookspecs) if hasattr(getattr(hookspecs, name), "gpuhub_spec")]


def _hookimpl_names(plugin: object) -> list[str]:
    out = []
    for attr in dir(plugin):
        try:
            value = getattr(plugin, attr)
        except Exception:
            continue
        if callable(value) and hasattr(value, "gpuhub_impl"):
            out.append(attr)
    return out


def _validation_detail(exc: pluggy.PluginValidationError) -> str:
    text = str(exc)
    match = re.search(r"hookimpl definition: (\w+)\((.*?)\)\s*Argument\(s\) \{(.*?)\}", text, re.S)
    if match:
        hook, _, args = match.groups()
        spec = getattr(hookspecs, hook, None)
        import inspect

        params = ", ".join(inspect.signature(spec).parameters) if spec else "?"
        signature = f"{hook}({params})"
        return f"hook {hook} declares argument(s) {args} that the spec {signature} does not have"
    return " ".join(text.split())


_registry: Registry | None = None
_registry_lock = threading.Lock()


def get_registry() -> Registry:
    """The process-wide registry, loaded once on first use (thread-safe)."""
    global _registry
    with _registry_lock:
        if _registry is None:
            _registry = Registry()
        return _registry


def has_registry() -> bool:
    """True once the process-wide registry is loaded (or was set with :func:`reset_registry`)."""
    with _registry_lock:
        return _registry is not None


def reset_registry(registry: Registry | None = None) -> None:
    """Replace (or drop, to reload on next use) the process-wide registry; for tests and embedding."""
    global _registry
    with _registry_lock:
        _registry = registry
