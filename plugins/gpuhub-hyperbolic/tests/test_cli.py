"""``gpuhub search`` with every installed plugin loaded answers with Hyperbolic's offers (facts to the cent)."""

from __future__ import annotations

import json
from typing import Any

from gpuhub.plugin import reset_state, run_cli


def _search(*args: str) -> list[dict[str, Any]]:
    reset_state()
    result = run_cli(["search", "--provider", "hyperbolic", "--format", "json", "--all-regions", "--limit", "200",
                      *args],
                     env={"GPUHUB_STORE": "off"})
    reset_state()
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


def test_cli_answers_with_the_bundled_prices() -> None:
    rows = {r["instance_type"]: r for r in _search("--gpu", "H100")}
    assert set(rows) == {"1x-H100-75-722", "2x-H100-149-1443", "3x-H100-224-2165"}
    assert rows["1x-H100-75-722"]["price_per_hour"] == 1.29 and rows["1x-H100-75-722"]["memory_gib"] == 722
    assert rows["2x-H100-149-1443"]["price_per_hour"] == 2.58 and rows["2x-H100-149-1443"]["vcpus"] == 149
    assert rows["3x-H100-224-2165"]["price_per_hour"] == 3.87 and rows["3x-H100-224-2165"]["gpu_count"] == 3
    assert {r["region"] for r in rows.values()} == {"default"} and {r["currency"] for r in rows.values()} == {"USD"}
    assert rows["3x-H100-224-2165"]["price_per_gpu_hour"] == 1.29
