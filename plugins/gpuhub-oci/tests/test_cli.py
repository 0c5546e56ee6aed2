"""``gpuhub plugins`` and ``gpuhub search`` with every installed plugin loaded: the oci plugin is
listed and answers with its bundled prices (facts to the cent)."""

from __future__ import annotations

from gpuhub.plugin import run_cli_json as _run


def test_listed_by_gpuhub_plugins() -> None:
    mine = [p for p in _run("plugins", "--format", "json") if p["name"] == "oci"]
    assert [(p["distribution"], p["status"], p["providers"]) for p in mine] == [
        ("gpuhub-oci", "loaded", ["oci"])]


def test_search_answers_with_the_bundled_prices() -> None:
    rows = _run("search", "--provider", "oci", "--gpu", "H200", "--region", "ap-osaka-1", "--format", "json")
    rows = [r for r in rows if r["provider"] == "oci"]  # not oci resold by an aggregator
    assert [(r["instance_type"], r["price_per_hour"], r["gpu_name"], r["gpu_count"], r["vcpus"], r["memory_gib"],
             r["region"], r["purchase"]) for r in rows] == [
        ("BM.GPU.H200.8", 80.0, "H200", 8, 224, 3072, "ap-osaka-1", "on_demand")]
    assert (rows[0]["country"], rows[0]["continent"]) == ("JP", "Asia")
