"""``gpuhub search`` with every installed plugin loaded answers with JarvisLabs' offers (facts to the cent)."""

from __future__ import annotations

import json
from typing import Any

from gpuhub.plugin import reset_state, run_cli


def _search(*args: str) -> list[dict[str, Any]]:
    reset_state()
    result = run_cli(["search", "--provider", "jarvislabs", "--format", "json", "--all-regions", "--limit", "200",
                      *args],
                     env={"GPUHUB_STORE": "off"})
    reset_state()
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


def test_cli_answers_with_the_bundled_prices() -> None:
    rows = {r["instance_type"]: r for r in _search()}
    assert len(rows) == 19 and {r["provider"] for r in rows.values()} == {"jarvislabs"}
    assert rows["8x_H100"]["price_per_hour"] == 21.52 and rows["8x_H100"]["vcpus"] == 192
    assert rows["1x_L4"]["price_per_hour"] == 0.44 and rows["1x_L4"]["region"] == "IN2"
    assert rows["4x_A100-80GB"]["price_per_hour"] == 5.96 and rows["4x_A100-80GB"]["gpu_name"] == "A100-80GB"
    assert rows["8x_RTX-PRO6000"]["price_per_hour"] == 15.12 and rows["8x_RTX-PRO6000"]["country"] == "IN"
    assert rows["8x_H200"]["price_per_hour"] == 31.92 and rows["8x_H200"]["currency"] == "USD"


def test_cli_gpu_filter() -> None:
    rows = _search("--gpu", "H200", "--max-gpus", "1")
    assert [(r["instance_type"], r["price_per_hour"], r["gpu_memory_gib"]) for r in rows] == [("1x_H200", 3.99, 141)]
