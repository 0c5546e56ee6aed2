"""The core and every plugin resolve to this project's distributions only.

The name ``gpuhub`` on the package index belongs to an unrelated project ("CodeWithGPU Python Client"); the core is
published as ``gpuhub-core`` (import name ``gpuhub``). A plugin that depended on ``gpuhub``, or on ``gpuhub-core``
without a version range, would let pip install a stranger's package or an incompatible core.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version
from typer.testing import CliRunner

from gpuhub.cli.commands import app

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PLUGINS = sorted(p for p in (ROOT / "plugins").iterdir() if (p / "pyproject.toml").is_file())


def _project(path: Path) -> dict[str, object]:
    with (path / "pyproject.toml").open("rb") as f:
        project: dict[str, object] = tomllib.load(f)["project"]
    return project


def _core_requirements(path: Path) -> list[Requirement]:
    deps = _project(path).get("dependencies", [])
    assert isinstance(deps, list)
    found = [Requirement(d) for d in deps if canonicalize_name(Requirement(d).name).startswith("gpuhub")]
    return found


def test_the_core_is_published_as_gpuhub_core() -> None:
    assert _project(ROOT)["name"] == "gpuhub-core"


@pytest.mark.parametrize("plugin", PLUGINS, ids=lambda p: p.name)
def test_a_plugin_depends_on_gpuhub_core_within_one_minor_version(plugin: Path) -> None:
    (core,) = _core_requirements(plugin)
    assert core.name == "gpuhub-core"
    assert {s.operator for s in core.specifier} == {">=", "<"}
    assert core.specifier.contains(Version("0.1.0")) and not core.specifier.contains(Version("0.2.0"))
    assert not core.specifier.contains(Version("0.0.1"))  # the stranger's only release, were the name reused


def test_the_plugin_template_depends_on_gpuhub_core(tmp_path: Path) -> None:
    done = CliRunner().invoke(app, ["plugin", "new", "mycloud", "--dir", str(tmp_path)])
    assert done.exit_code == 0, done.output
    (core,) = _core_requirements(tmp_path / "gpuhub-mycloud")
    assert str(core) == "gpuhub-core<0.2,>=0.1"


def _wheel(directory: Path, name: str, version: str) -> None:
    """An empty wheel of ``name`` ``version`` (metadata only), standing in for a package on an index."""
    info = f"{name.replace('-', '_')}-{version}.dist-info"
    files = {f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: gpuhub-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    files[f"{info}/RECORD"] = "".join(f"{k},,\n" for k in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(directory / f"{name.replace('-', '_')}-{version}-py3-none-any.whl", "w") as z:
        for path, text in files.items():
            z.writestr(path, text)


def _resolve(index: Path) -> subprocess.CompletedProcess[str]:
    """What ``pip install ./plugins/gpuhub-lambda`` would install into an empty environment from ``index`` alone
    (offline: --no-index; --ignore-installed: as if nothing were installed; --dry-run: nothing is)."""
    return subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-index",
                           "--find-links", str(index), "--no-build-isolation", "--disable-pip-version-check",
                           "--quiet", "--report", "-", str(ROOT / "plugins" / "gpuhub-lambda")],
                          capture_output=True, text=True, timeout=300, check=False)


def test_installing_a_plugin_never_pulls_another_projects_package(tmp_path: Path) -> None:
    _wheel(tmp_path, "gpuhub", "0.0.1")  # the unrelated project's package
    _wheel(tmp_path, "gpuhub-core", "0.2.0")  # a core outside the plugin's range
    done = _resolve(tmp_path)
    assert done.returncode != 0
    assert "No matching distribution found for gpuhub-core<0.2,>=0.1" in done.stderr
    _wheel(tmp_path, "gpuhub-core", "0.1.7")
    done = _resolve(tmp_path)
    assert done.returncode == 0, done.stderr
    installed = {(i["metadata"]["name"], i["metadata"]["version"]) for i in json.loads(done.stdout)["install"]}
    assert installed == {("gpuhub-lambda", "0.1.0"), ("gpuhub-core", "0.1.7")}


def test_gpuhub_plugins_names_the_cores_distribution() -> None:
    done = CliRunner().invoke(app, ["plugins", "--format", "json"])
    assert done.exit_code == 0, done.output
    rows = json.loads(done.stdout)
    builtin = next(r for r in rows if r["name"] == "builtin")
    assert builtin["distribution"] == "gpuhub-core"
