"""``gpuhub plugins`` and ``gpuhub search`` with every installed plugin loaded: the verda plugin is
listed and answers with its bundled prices (facts to the cent)."""

from __future__ import annotations

from gpuhub.plugin import run_cli_json as _run


def test_listed_by_gpuhub_plugins() -> None:
    mine = [p for p in _run("plugins", "--format", "json") if p["name"] == "verda"]
    assert [(p["distribution"], p["status"], p["providers"]) for p in mine] == [
        ("gpuhub-verda", "loaded", ["verda"])]


def test_search_answers_with_the_bundled_prices() -> None:
    rows = _run("search", "--provider", "verda", "--gpu", "B200", "--format", "json", "--all-regions")
    rows = [r for r in rows if r["provider"] == "verda"]  # not verda resold by an aggregator
    got = {(r["instance_type"], r["purchase"]): r for r in rows}
    b200 = got[("4B200.120V", "on_demand")]
    assert (b200["price_per_hour"], b200["gpu_name"], b200["gpu_count"], b200["vcpus"], b200["memory_gib"],
            b200["region"], b200["gpu_memory_gib"]) == (15.16, "B200", 4, 120, 736, "FIN-03", 180)
    assert got[("4B200.120V", "spot")]["price_per_hour"] == 3.79 and ("8B200.240V", "spot") not in got
