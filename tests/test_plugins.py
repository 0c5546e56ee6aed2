from __future__ import annotations

import sys
import types
from collections.abc import Callable
from importlib import metadata

import fakecloud
import pytest

from gpuhub import PluginError, Provider, Registry, hookimpl
from gpuhub.kit.testing import make_engine, run_provider


class OldCloud:
    """A plugin written for an older hook spec: its hook declares an argument the spec does not have (C21)."""

    @hookimpl
    def register_providers(self, register, region):  # type: ignore[no-untyped-def]
        raise AssertionError("never called")


class Raising:
    @hookimpl
    def register_providers(self, register: Callable[[Provider], None]) -> None:
        raise RuntimeError("boom while registering")


class Twin:
    @hookimpl
    def register_providers(self, register: Callable[[Provider], None]) -> None:
        register(fakecloud.FakeCloud())


class UnknownHook:
    @hookimpl
    def gpuhub_fetch_offers(self, query):  # type: ignore[no-untyped-def]
        return []


def _report(registry: Registry, name: str):  # type: ignore[no-untyped-def]
    return next(r for r in registry.reports if r.name == name)


def test_c21_bad_hook_signature_is_reported_and_others_still_load() -> None:
    registry = Registry(entry_points=[], extra_plugins=[("gpuhub-oldcloud", OldCloud()), fakecloud.PLUGIN])
    report = _report(registry, "gpuhub-oldcloud")
    assert report.status == "failed"
    assert "'region'" in (report.error or "") and "register_providers(register)" in (report.error or "")
    assert "hookspecs" in (report.fix or "")
    assert list(registry.providers) == ["fakecloud"]
    offers, status = run_provider(make_engine(registry), "fakecloud")
    assert status.state == "ok" and len(offers) == 7


def test_c21_strict_mode_turns_it_into_an_error() -> None:
    with pytest.raises(PluginError, match="gpuhub-oldcloud"):
        Registry(entry_points=[], extra_plugins=[("gpuhub-oldcloud", OldCloud())], strict=True)
    with pytest.raises(PluginError):
        Registry(entry_points=[], extra_plugins=[("gpuhub-oldcloud", OldCloud())],
                 environ={"GPUHUB_STRICT_PLUGINS": "1"})


def test_hook_that_raises_and_duplicate_provider_and_unknown_hook() -> None:
    registry = Registry(entry_points=[], extra_plugins=[
        fakecloud.PLUGIN, ("raising", Raising()), ("twin", Twin()), ("unknownhook", UnknownHook())])
    assert "boom while registering" in (_report(registry, "raising").error or "")
    twin = _report(registry, "twin")
    assert twin.status == "failed" and "already registered by plugin 'fakecloud'" in (twin.error or "")
    assert "GPUHUB_DISABLE_PLUGINS=twin" in (twin.fix or "")
    assert "gpuhub_fetch_offers" in (_report(registry, "unknownhook").error or "")
    assert registry.provider_plugin == {"fakecloud": "fakecloud"}


def _entry_point(name: str, value: str) -> metadata.EntryPoint:
    return metadata.EntryPoint(name=name, value=value, group="gpuhub")


def test_import_error_is_reported_with_a_fix() -> None:
    registry = Registry(entry_points=[_entry_point("broken", "gpuhub_no_such_module.plugin")])
    report = _report(registry, "broken")
    assert report.status == "failed" and "ModuleNotFoundError" in (report.error or "")
    assert "pip install --force-reinstall" in (report.fix or "")


def test_entry_point_plugins_load_and_allow_block_lists_apply() -> None:
    module = types.ModuleType("gpuhub_test_ep_plugin")
    module.register_providers = Twin().register_providers  # type: ignore[attr-defined]
    sys.modules["gpuhub_test_ep_plugin"] = module
    try:
        ep = _entry_point("fake-ep", "gpuhub_test_ep_plugin")
        assert "fakecloud" in Registry(entry_points=[ep]).providers
        blocked = Registry(entry_points=[ep], environ={"GPUHUB_DISABLE_PLUGINS": "fake-ep"})
        assert blocked.providers == {} and _report(blocked, "fake-ep").status == "blocked"
        other_only = Registry(entry_points=[ep], environ={"GPUHUB_PLUGINS": "something-else"})
        assert other_only.providers == {}
        # Built-ins are never blocked: the GPU table stays available.
        assert "H100" in other_only.gpus.names()
    finally:
        del sys.modules["gpuhub_test_ep_plugin"]


class _Dist:
    def __init__(self, version: str, path: str) -> None:
        self.version, self._path = version, path
        self.metadata = {"Name": "gpuhub-twin"}

    def locate_file(self, _: str) -> str:
        return self._path


def test_same_distribution_found_twice_on_the_path_is_reported() -> None:
    module = types.ModuleType("gpuhub_test_twin")
    module.register_providers = Twin().register_providers  # type: ignore[attr-defined]
    sys.modules["gpuhub_test_twin"] = module
    try:
        first, second = _entry_point("twin", "gpuhub_test_twin"), _entry_point("twin", "gpuhub_test_twin")
        object.__setattr__(first, "dist", _Dist("1.0", "/site-a"))
        object.__setattr__(second, "dist", _Dist("0.9", "/site-b"))
        registry = Registry(entry_points=[first, second])
        dup = next(r for r in registry.reports if r.status == "duplicate")
        assert "installed twice" in (dup.error or "") and "/site-a" in (dup.error or "")
        assert "pip uninstall gpuhub-twin" in (dup.fix or "")
        assert "fakecloud" in registry.providers
    finally:
        del sys.modules["gpuhub_test_twin"]


def test_trace_switch_logs_each_step(capsys: pytest.CaptureFixture[str]) -> None:
    Registry(entry_points=[], extra_plugins=[fakecloud.PLUGIN], environ={"GPUHUB_TRACE_PLUGINS": "1"})
    err = capsys.readouterr().err
    assert "gpuhub plugins: fakecloud: registered" in err and "builtin: importing" in err
