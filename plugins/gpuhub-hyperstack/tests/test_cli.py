"""``gpuhub plugins`` and ``gpuhub search`` with every installed plugin loaded: the hyperstack plugin is
listed and answers with its bundled prices (facts to the cent)."""

from __future__ import annotations

from gpuhub.plugin import run_cli_json as _run


def test_listed_by_gpuhub_plugins() -> None:
    mine = [p for p in _run("plugins", "--format", "json") if p["name"] == "hyperstack"]
    assert [(p["distribution"], p["status"], p["providers"]) for p in mine] == [
        ("gpuhub-hyperstack", "loaded", ["hyperstack"])]


def test_search_answers_with_the_bundled_prices() -> None:
    rows = _run("search", "--provider", "hyperstack", "--gpu", "RTXA6000", "--format", "json", "--all-regions")
    rows = [r for r in rows if r["provider"] == "hyperstack"]  # not hyperstack resold by an aggregator
    got = {r["instance_type"]: r for r in rows}
    a6000 = got["n3-RTX-A6000x4"]
    assert (a6000["price_per_hour"], a6000["gpu_name"], a6000["gpu_count"], a6000["vcpus"], a6000["memory_gib"],
            a6000["region"], a6000["purchase"]) == (2.0, "RTXA6000", 4, 124, 232, "CANADA-1", "on_demand")
    assert len(rows) == 4 and got["n3-RTX-A6000x1"]["price_per_hour"] == 0.5
