"""``gpuhub plugins`` and ``gpuhub search`` with every installed plugin loaded: the cudo plugin is
listed and answers with its bundled prices (facts to the cent)."""

from __future__ import annotations

from gpuhub.plugin import run_cli_json as _run


def test_listed_by_gpuhub_plugins() -> None:
    mine = [p for p in _run("plugins", "--format", "json") if p["name"] == "cudo"]
    assert [(p["distribution"], p["status"], p["providers"]) for p in mine] == [
        ("gpuhub-cudo", "loaded", ["cudo"])]


def test_search_answers_with_the_bundled_prices() -> None:
    rows = _run("search", "--provider", "cudo", "--gpu", "L40S", "--format", "json", "--all-regions")
    rows = [r for r in rows if r["provider"] == "cudo"]  # not cudo resold by an aggregator
    got = {r["instance_type"]: r for r in rows}
    l40s = got["epyc-genoa-l40s-graphics_2x24v48gb"]
    assert (round(l40s["price_per_hour"], 2), l40s["gpu_name"], l40s["gpu_count"], l40s["vcpus"],
            l40s["memory_gib"], l40s["region"], l40s["purchase"]) == (
        2.09, "L40S", 2, 24, 48, "no-kristiansand-1", "on_demand")
    assert len(rows) == 13 and round(got["epyc-genoa-l40s-graphics_1x2v4gb"]["price_per_hour"], 4) == 0.8994
