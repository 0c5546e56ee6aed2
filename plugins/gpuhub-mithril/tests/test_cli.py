"""``gpuhub search`` with every installed plugin loaded answers with Mithril's offers (facts to the cent)."""

from __future__ import annotations

import json
from typing import Any

from gpuhub.plugin import reset_state, run_cli


def _search(*args: str) -> list[dict[str, Any]]:
    reset_state()
    result = run_cli(["search", "--provider", "mithril", "--format", "json", "--all-regions", "--limit", "200",
                      *args],
                     env={"GPUHUB_STORE": "off"})
    reset_state()
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


def test_cli_answers_with_the_bundled_prices() -> None:
    rows = {r["instance_type"]: r for r in _search()}
    assert set(rows) == {"h100-80gb.sxm.8x", "h200.8x"}  # the A100 and B200 placeholders are not offers
    h100, h200 = rows["h100-80gb.sxm.8x"], rows["h200.8x"]
    assert (h100["price_per_hour"], h100["purchase"], h100["region"]) == (8.0, "spot", "us-central2-a")
    assert (h100["vcpus"], h100["memory_gib"], h100["price_per_gpu_hour"]) == (168, 1814, 1.0)
    assert (h200["price_per_hour"], h200["region"], h200["gpu_name"]) == (8.0, "us-central2-b", "H200")
    assert h200["memory_gib"] == 1600 and h200["country"] == "US"


def test_cli_spot_only() -> None:
    assert _search("--purchase", "on_demand") == []
