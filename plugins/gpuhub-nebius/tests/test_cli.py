"""``gpuhub plugins`` and ``gpuhub search`` with every installed plugin loaded: the nebius plugin is
listed and answers with its bundled prices (facts to the cent)."""

from __future__ import annotations

from gpuhub.plugin import run_cli_json as _run


def test_listed_by_gpuhub_plugins() -> None:
    mine = [p for p in _run("plugins", "--format", "json") if p["name"] == "nebius"]
    assert [(p["distribution"], p["status"], p["providers"]) for p in mine] == [
        ("gpuhub-nebius", "loaded", ["nebius"])]


def test_search_answers_with_the_bundled_prices() -> None:
    rows = _run("search", "--provider", "nebius", "--gpu", "H100", "--format", "json", "--all-regions")
    rows = [r for r in rows if r["provider"] == "nebius"]  # not nebius resold by an aggregator
    got = {(r["instance_type"], r["purchase"]): r for r in rows}
    h100 = got[("gpu-h100-sxm 8gpu-128vcpu-1600gb", "on_demand")]
    assert (h100["price_per_hour"], h100["gpu_name"], h100["gpu_count"], h100["vcpus"], h100["memory_gib"],
            h100["region"]) == (23.6, "H100", 8, 128, 1600, "eu-north1")
    assert got[("gpu-h100-sxm 1gpu-16vcpu-200gb", "spot")]["price_per_hour"] == 1.25 and len(rows) == 4
