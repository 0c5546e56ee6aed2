"""Issue 16: a plugin author's first hour. ``gpuhub plugin new`` writes a package that installs (offline, into a
throwaway environment layered on this one), is listed by ``gpuhub plugins``, replays its bundled recording found
by the core without extra code, passes the conformance kit unchanged, and whose regions answer ``--near`` and
``--continent``."""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuhub.cli.commands import app

runner = CliRunner()


def _venv(tmp_path: Path) -> Path:
    """A venv without pip whose site-packages also holds this environment's (pip, setuptools, gpuhub, plugins)."""
    root = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120)
    python = root / "bin" / "python"
    own = subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"], check=True,
                         capture_output=True, text=True).stdout.strip()
    parents = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (Path(own) / "_gpuhub_parent.pth").write_text(
        "import site; " + "; ".join(f"site.addsitedir({p!r})" for p in parents) + "\n")
    return python


def test_generated_plugin_installs_lists_replays_and_passes_the_kit(tmp_path: Path) -> None:
    out = runner.invoke(app, ["plugin", "new", "mycloud", "--dir", str(tmp_path)])
    assert out.exit_code == 0, out.output
    root = tmp_path / "gpuhub-mycloud"
    assert (root / "gpuhub_mycloud" / "recording" / "manifest.json").is_file()
    python = _venv(tmp_path)
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                              "--no-index", str(root)], capture_output=True, text=True, timeout=300)
    if install.returncode != 0 and "bdist_wheel" in install.stderr:
        pytest.skip("this environment's setuptools cannot build wheels offline (install the test extra)")
    assert install.returncode == 0, install.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GPUHUB_", "MYCLOUD_"))}
    env["GPUHUB_CACHE_DIR"] = str(tmp_path / "cache")
    cli = [str(python), "-c", "from gpuhub.cli.commands import main; main()"]

    plugins = json.loads(subprocess.run([*cli, "plugins", "--format", "json"], capture_output=True, text=True,
                                        env=env, timeout=120, check=True).stdout)
    mine = next(p for p in plugins if p["name"] == "mycloud")
    assert (mine["distribution"], mine["status"], mine["providers"]) == ("gpuhub-mycloud", "loaded", ["mycloud"])

    near = subprocess.run([*cli, "search", "--provider", "mycloud", "--near", "Paris", "--format", "json",
                           "--all-regions"], capture_output=True, text=True, env=env, timeout=120)
    records = json.loads(near.stdout)
    assert [(r["instance_type"], r["region"], r["price_per_hour"], r["availability"]) for r in records] == [
        ("a100.1", "mycloud-fra", 1.1, "available"), ("a100.1", "mycloud-iad", 0.95, "available"),
        ("h100.8", "mycloud-fra", 18.4, "sold_out")]
    assert records[0]["rtt_ms"] == pytest.approx(8.9, abs=0.5) and records[0]["continent"] == "Europe"
    assert "276 gCO2e/kWh (2024, location-based, your facilities team's figure)" in records[0]["explanation"]
    assert records[0]["source"] == "replay:mycloud@2026-12-01"
    europe = json.loads(subprocess.run([*cli, "search", "--provider", "mycloud", "--continent", "North America",
                                        "--format", "json"], capture_output=True, text=True, env=env,
                                       timeout=120).stdout)
    assert [(r["region"], r["country"]) for r in europe] == [("mycloud-iad", "US")]

    kit = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(root / "tests")],
                         capture_output=True, text=True, env=env, timeout=300, cwd=root)
    assert kit.returncode == 0 and "9 passed" in kit.stdout, kit.stdout[-2000:]


def test_plugin_new_refuses_bad_names(tmp_path: Path) -> None:
    out = runner.invoke(app, ["plugin", "new", "My Cloud", "--dir", str(tmp_path)])
    assert out.exit_code == 2 and "lower-case letters and digits" in out.stderr
