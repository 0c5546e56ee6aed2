"""The plugin index (gpuhub/fetch/plugin_index.py) with every plugin installed: a CLI run served from the store imports
no plugin, answers exactly what a run that loaded them answers, and the index follows the installed plugins at once
(switching one off or on, editing its files), never serving a stale GPU table or provider list."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from gpuhub.fetch.keys import INDEX_META, index_key, registry_fingerprint
from gpuhub.fetch.plugin_index import IndexedProvider, capture, restore
from gpuhub.fetch.plugins import Registry
from gpuhub.store import open_store

from .conftest import _environ

# Every installed plugin's package: one plugin that cannot be indexed (it registers code, or warns) makes every
# search import all of them again, as the 13 plugins that register region facts did before those were indexed.
PLUGIN_MODULES = tuple(sorted({ep.value.split(":")[0].split(".")[0].strip()
                               for ep in metadata.entry_points(group="gpuhub")}))
# Runs the CLI in this interpreter and reports which plugin packages the run imported (on stderr, last line).
CLI = """
import atexit, sys
atexit.register(lambda: sys.stderr.write("IMPORTED " + ",".join(sorted(
    m for m in sys.modules if m.split(".")[0] in {modules!r})) + "\\n"))
sys.argv = ["gpuhub", *sys.argv[1:]]
from gpuhub.cli.commands import main
main()
"""


def _run(home: Path, *args: str, env: dict[str, str] | None = None) -> tuple[str, str, list[str]]:
    done = subprocess.run([sys.executable, "-c", CLI.format(modules=set(PLUGIN_MODULES)), *args],
                          capture_output=True, text=True, timeout=300, env=_environ(home, env or {}), cwd=home)
    assert done.returncode == 0, done.stderr
    *status, last = done.stderr.rstrip("\n").split("\n")
    assert last.startswith("IMPORTED "), done.stderr
    imported = [m for m in last.removeprefix("IMPORTED ").split(",") if m]
    return done.stdout, "\n".join(status), imported


H100 = ("search", "-v", "--gpu", "H100", "--purchase", "on_demand", "--format", "json", "--limit", "1000",
        "--all-regions")


def _prices(stdout: str) -> dict[tuple[str, str, str], float]:
    return {(r["provider"], r["instance_type"], r["region"]): r["price_per_hour"] for r in json.loads(stdout)}


def test_a_search_served_from_the_store_imports_no_plugin_and_answers_the_same(tmp_path: Path) -> None:
    first, first_status, imported = _run(tmp_path, *H100)
    assert {"gpuhub_aws", "gpuhub_lambda"} <= {m.split(".")[0] for m in imported}  # loaded and indexed
    second, second_status, imported_again = _run(tmp_path, *H100)
    assert imported_again == []
    said_before = re.sub(r": from the store(; )?", lambda m: ": " if m.group(1) else "", second_status)
    assert second == first and said_before == first_status
    assert ": from the store" in second_status and ": from the store" not in first_status  # the lines say where
    prices = _prices(second)
    # Real rows of the bundled data: Lambda's 1x H100 PCIe on-demand, AWS's p5.48xlarge in us-east-1.
    assert prices[("lambda", "gpu_1x_h100_pcie", "us-east-1")] == 2.49
    assert prices[("aws", "p5.48xlarge", "us-east-1")] == 55.04
    assert "aws: ok" in second_status and "lambda: ok" in second_status


def test_switching_a_plugin_off_and_on_changes_the_answer_at_once(tmp_path: Path) -> None:
    _run(tmp_path, *H100)
    off, off_status, _ = _run(tmp_path, *H100, env={"GPUHUB_DISABLE_PLUGINS": "lambda"})
    assert not [k for k in _prices(off) if k[0] == "lambda"]
    assert "lambda" not in off_status
    on, _, imported = _run(tmp_path, *H100)
    assert imported == []  # the index of the full set was kept: nothing to load again
    assert _prices(on)[("lambda", "gpu_1x_h100_pcie", "us-east-1")] == 2.49


def test_a_refresh_through_the_index_hands_over_to_the_real_provider(tmp_path: Path) -> None:
    first, _, _ = _run(tmp_path, *H100)
    again, status, imported = _run(tmp_path, *H100, "--provider", "lambda", "--refresh")
    assert "gpuhub_lambda" in {m.split(".")[0] for m in imported}  # parsed again: the real plugin ran
    # --provider lambda also shows Lambda's machines resold through aggregators (seller lambda): compare Lambda's own.
    assert {k: v for k, v in _prices(first).items() if k[0] == "lambda"} == {
        k: v for k, v in _prices(again).items() if k[0] == "lambda"}
    assert "lambda: ok, " in status


def test_the_index_restores_an_equal_registry(tmp_path: Path) -> None:
    registry = Registry(environ={})
    key = index_key({})
    index = capture(registry, key)
    assert index is not None
    restored = restore(json.loads(json.dumps(index)), environ={})
    assert sorted(restored.providers) == sorted(registry.providers)
    assert restored.gpus.fingerprint() == registry.gpus.fingerprint()
    assert registry_fingerprint(restored) == registry_fingerprint(registry)
    assert sorted(restored.rankers) == sorted(registry.rankers)
    # Region facts are data: indexed and registered again (OCI's Frankfurt region is in Germany, Europe).
    assert restored.regions == registry.regions
    frankfurt = next(f for f in restored.regions if (f.provider, f.region) == ("oci", "eu-frankfurt-1"))
    assert (frankfurt.country, frankfurt.continent) == ("DE", "Europe")
    for name, real in registry.providers.items():
        stand_in = restored.providers[name]
        assert isinstance(stand_in, IndexedProvider)
        assert stand_in.code_identity() == real.code_identity()
        assert stand_in.fixtures_dir() == real.fixtures_dir()
        assert stand_in.credentials_configured({}) == real.credentials_configured({})
        assert (stand_in.kind, stand_in.static, stand_in.example_recording) == (real.kind, real.static,
                                                                                real.example_recording)
        # the staleness flag of a search served through the index reads it (GCP: 30 days, not the default 7)
        assert stand_in.price_change_period_s == real.price_change_period_s, name
    assert restored.providers["gcp"].price_change_period_s == 30 * 86400
    # A provider's own attribute is the real provider's (loaded on first need).
    own = restored.providers["coreweave"].offers_from_table
    assert own.__func__ is type(registry.providers["coreweave"]).offers_from_table


def test_a_plugin_that_registers_code_is_never_indexed() -> None:
    from gpuhub.answer.ranking import Ranker
    from gpuhub.fetch.hookspecs import hookimpl

    class Rankers:
        @hookimpl
        def register_rankers(self, register: object) -> None:
            register(Ranker("cheapest-twice", "price x 2", "USD/h", key=lambda offer: offer.price.amount * 2))

    registry = Registry(entry_points=[], extra_plugins=[("rankers", Rankers())], environ={})
    assert "cheapest-twice" in registry.rankers
    assert capture(registry, "k") is None


def test_editing_a_plugin_file_changes_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpuhub.fetch.keys import code_fingerprint, quick_key

    package = tmp_path / "gpuhub_tmpcloud"
    package.mkdir()
    (package / "__init__.py").write_text("")
    plugin = package / "plugin.py"
    plugin.write_text("PRICE_CENTS = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    ep = metadata.EntryPoint(name="tmpcloud", value="gpuhub_tmpcloud.plugin", group="gpuhub")
    keys = (lambda env: index_key(env, [ep]), lambda env: quick_key([ep.value], env))  # full, then quick
    before = [key({}) for key in keys]
    assert [key({}) for key in keys] == before
    # An edit that keeps the size and puts the modification time back (cp -p, rsync -t, touch -r) still counts.
    stat = plugin.stat()
    plugin.write_text("PRICE_CENTS = 2\n")
    os.utime(plugin, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert plugin.stat().st_size == stat.st_size and plugin.stat().st_mtime_ns == stat.st_mtime_ns
    code_fingerprint.cache_clear()
    for key, old in zip(keys, before, strict=True):
        assert key({}) != old
        assert key({"GPUHUB_DISABLE_PLUGINS": "tmpcloud"}) != key({})


def test_a_damaged_index_is_a_miss(tmp_path: Path) -> None:
    _run(tmp_path, *H100)
    store = open_store(str(tmp_path / "store"))
    assert store is not None
    store.put_meta(INDEX_META, json.dumps({"key": json.loads(store.get_meta(INDEX_META) or "{}")["key"],
                                           "format": 1, "reports": "not a list"}))
    out, status, imported = _run(tmp_path, *H100)
    assert imported  # loaded for real, and indexed again
    assert "lambda: ok, 340 offers" in status
    assert _prices(out)[("lambda", "gpu_1x_h100_pcie", "us-east-1")] == 2.49
    assert json.loads(store.get_meta(INDEX_META) or "{}")["reports"][0]["name"] == "builtin"


def test_a_plugin_switch_naming_no_installed_plugin_is_reported_on_every_run(tmp_path: Path) -> None:
    for _ in range(2):  # loaded for real, then restored from the index: the warning both times
        out, status, _ = _run(tmp_path, *H100, env={"GPUHUB_DISABLE_PLUGINS": "lamda"})
        assert "GPUHUB_DISABLE_PLUGINS names 'lamda': not an installed plugin" in status
        installed = sorted(ep.name for ep in metadata.entry_points(group="gpuhub"))
        assert f"installed: {', '.join(installed)})" in status and {"aws", "lambda"} <= set(installed)
        assert _prices(out)[("lambda", "gpu_1x_h100_pcie", "us-east-1")] == 2.49  # nothing was switched off
