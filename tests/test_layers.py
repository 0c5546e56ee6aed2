"""The core's layers (issue 32): the import contracts hold and catch a bad import, the graph has no cycle, every
plugin package is under the contracts, the old module paths still work for one release (warning), and the layer
packages cost nothing to import."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest
import tomllib

from gpuhub._moved import MOVED

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
LAYER_PACKAGES = ["facts", "store", "answer", "fetch", "history", "publish", "service", "web", "cli", "kit"]
MARKER_PACKAGES = ["facts", "answer", "fetch", "service", "web", "cli", "kit"]
"""The layer packages whose ``__init__`` is only a docstring (store, history and publish hold their API there)."""


def _linter_config() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]  # type: ignore[no-any-return]


def _run_lint(cwd: Path, env_path: str | None = None) -> subprocess.CompletedProcess[str]:
    assert LINT_IMPORTS, "lint-imports is not installed (pip install -e '.[test]')"
    env = dict(os.environ) if env_path is None else {**os.environ, "PYTHONPATH": env_path}
    return subprocess.run([LINT_IMPORTS, "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env=env, check=False)


def test_the_contracts_hold() -> None:
    run = _run_lint(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Contracts: 3 kept, 0 broken." in run.stdout


def test_lint_imports_fails_on_an_upward_import(tmp_path: Path) -> None:
    """A throwaway package whose bottom layer imports its top one: the same kind of contract must break, naming
    the import and its line."""
    pkg = tmp_path / "layered"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "top.py").write_text("from layered import bottom\n")
    (pkg / "bottom.py").write_text("VALUE = 1\n")
    (tmp_path / ".importlinter").write_text(textwrap.dedent("""\
        [importlinter]
        root_package = layered

        [importlinter:contract:layers]
        name = layers
        type = layers
        containers = layered
        layers =
            top
            bottom
        """))
    good = _run_lint(tmp_path, str(tmp_path))
    assert good.returncode == 0, good.stdout + good.stderr
    (pkg / "bottom.py").write_text("VALUE = 1\n\n\ndef late() -> object:\n    from layered import top\n\n"
                                   "    return top\n")
    bad = _run_lint(tmp_path, str(tmp_path))
    assert bad.returncode == 1
    assert "layered.bottom -> layered.top (l.5)" in bad.stdout


def test_no_import_cycles_and_plugins_use_only_the_face() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import import_graph
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    found = import_graph.measure(ROOT)
    assert found["cycles"] == []
    assert found["upward"] == []
    assert found["plugin_imports"] == ["gpuhub.plugin"]


def test_every_plugin_package_is_under_the_contracts() -> None:
    packages = sorted(p.parent.name for p in (ROOT / "plugins").glob("*/gpuhub_*/__init__.py"))
    config = _linter_config()
    contracts = {c["name"]: c for c in config["contracts"]}  # type: ignore[attr-defined]
    never = contracts["The core never imports a plugin"]
    face = contracts["Plugins import the core only through its face, gpuhub.plugin"]
    missing = {"root_packages": sorted(set(packages) - set(config["root_packages"])),  # type: ignore[arg-type]
               "core never imports": sorted(set(packages) - set(never["forbidden_modules"])),
               "only through the face": sorted(set(packages) - set(face["source_modules"]))}
    assert missing == {"root_packages": [], "core never imports": [], "only through the face": []}, (
        "add each new plugin package to [tool.importlinter] in pyproject.toml")


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_module_path_warns_and_is_the_new_module(old: str) -> None:
    new = importlib.import_module(MOVED[old])
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"^{old} moved to {MOVED[old]}: import it from there"):
        module = importlib.import_module(old)
    assert module is new


def test_an_old_cli_name_warns() -> None:
    import gpuhub.cli
    from gpuhub.cli.commands import app

    with pytest.warns(DeprecationWarning, match="gpuhub.cli.app moved to gpuhub.cli.commands.app"):
        assert gpuhub.cli.app is app
    with pytest.raises(AttributeError):
        gpuhub.cli.no_such_name  # noqa: B018


def test_the_public_api_resolves_without_a_warning() -> None:
    import gpuhub

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [name for name in gpuhub.__all__ if getattr(gpuhub, name) is None] == []


@pytest.mark.parametrize("name", LAYER_PACKAGES)
def test_a_layer_package_says_what_it_may_import(name: str) -> None:
    doc = importlib.import_module(f"gpuhub.{name}").__doc__ or ""
    assert "May import" in doc


def test_the_commands_and_layer_packages_start_without_a_warning() -> None:
    code = ("import sys; before = set(sys.modules)\n"
            + "".join(f"import gpuhub.{name}\n" for name in MARKER_PACKAGES)
            + "print(' '.join(sorted(m for m in set(sys.modules) - before if m.startswith('gpuhub'))))")
    run = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, timeout=60,
                         check=True)
    # Importing a layer package imports only that package (and gpuhub itself): no eager module loads.
    assert run.stdout.split() == sorted(["gpuhub", "gpuhub._moved", "gpuhub._version",
                                         *(f"gpuhub.{n}" for n in MARKER_PACKAGES)])
    for argv in (["-m", "gpuhub.cli", "--version"], ["-c", "from gpuhub._entry import main; main()", "--version"]):
        out = subprocess.run([sys.executable, "-W", "error", *argv], capture_output=True, text=True, timeout=60,
                             check=True)
        assert (out.stdout, out.stderr) == ("gpuhub 0.1.0\n", "")
