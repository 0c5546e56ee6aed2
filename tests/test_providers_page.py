"""docs/providers.md (the coverage page) stays true: every installed plugin's row and section, regenerated from its
bundled data by scripts/gen_providers.py, equals the page's. Plugins land all session long, so the page may list
providers this environment lacks (they are not checked here); an installed provider missing from the page fails."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from gpuhub import Registry

ROOT = Path(__file__).resolve().parents[1]
FIX = "regenerate it: python scripts/gen_providers.py (with every plugin installed)"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_providers", ROOT / "scripts" / "gen_providers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated() -> dict[str, tuple[str, str]]:
    parts: dict[str, tuple[str, str]] = _script().sections(Registry())
    return parts


def _page() -> tuple[dict[str, str], dict[str, str]]:
    text = (ROOT / "docs" / "providers.md").read_text(encoding="utf-8")
    rows = {m.group(1): m.group(0) + "\n" for m in re.finditer(r"^\| \[[^\]]+\]\(#([a-z0-9]+)\) \|.*$", text, re.M)}
    sections = {}
    for chunk in text.split("\n## ")[1:]:
        name = chunk.split("\n", 1)[0].strip()
        sections[name] = "## " + chunk.rstrip("\n") + "\n\n"
    return rows, sections


def test_every_installed_provider_is_on_the_page_as_generated(generated: dict[str, tuple[str, str]]) -> None:
    rows, sections = _page()
    missing = sorted(set(generated) - set(sections))
    assert not missing, f"docs/providers.md lacks {missing}; {FIX}"
    drifted = [name for name, (row, text) in generated.items() if rows.get(name) != row or sections[name] != text]
    assert not drifted, f"docs/providers.md no longer matches {drifted}; {FIX}"


def test_page_lists_the_new_neocloud_plugins(generated: dict[str, tuple[str, str]]) -> None:
    _, sections = _page()
    for name in ("lium", "spheron", "yotta", "daytona"):
        assert name in sections
    if "spheron" in generated:
        text = generated["spheron"][1]
        assert "`SPHERON_API_KEY`" in text and "Sellers" in text and "sesterce" in text
    if "daytona" in generated:
        assert "none: static table" in generated["daytona"][1] and "data date unknown" in generated["daytona"][1]


def test_readme_links_the_page() -> None:
    assert "docs/providers.md" in (ROOT / "README.md").read_text(encoding="utf-8")
