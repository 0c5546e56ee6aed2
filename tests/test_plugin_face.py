"""The plugin face: plugins under ``plugins/`` import only :mod:`gpuhub.plugin` (their tests also the public
``gpuhub`` package), and every name the face exports resolves."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import gpuhub.plugin as face

ROOT = Path(__file__).resolve().parents[1]


def _core_imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = [node.module]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        found += [(node.lineno, m) for m in modules if m == "gpuhub" or m.startswith("gpuhub.")]
    return found


def _plugin_files() -> list[Path]:
    return sorted(p for p in (ROOT / "plugins").rglob("*.py") if "/build/" not in str(p))


def test_plugins_import_only_the_face() -> None:
    wrong = []
    for path in _plugin_files():
        is_test = "tests" in path.relative_to(ROOT).parts
        allowed = {"gpuhub.plugin", "gpuhub"} if is_test else {"gpuhub.plugin"}
        wrong += [f"{path.relative_to(ROOT)}:{line}: {module}" for line, module in _core_imports(path)
                  if module not in allowed]
    assert wrong == [], "plugins import core modules other than gpuhub.plugin:\n" + "\n".join(wrong)


def test_the_check_sees_a_wrong_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from gpuhub.model import Offer\nimport gpuhub.service.engine\n"
                   "from gpuhub.plugin import Offer as O\n")
    assert [m for _, m in _core_imports(bad)] == ["gpuhub.model", "gpuhub.service.engine", "gpuhub.plugin"]


@pytest.mark.parametrize("name", face.__all__)
def test_every_face_name_resolves(name: str) -> None:
    assert getattr(face, name) is not None


def test_the_face_exports_what_a_provider_needs() -> None:
    needed = {"hookimpl", "Provider", "ProviderContext", "Credential", "Offer", "Instance", "Price", "Region",
              "RegionFacts", "GpuSpec", "ProviderError", "CredentialsError", "ProviderConformance"}
    assert needed <= set(face.__all__)
    assert face.Offer is __import__("gpuhub").Offer
