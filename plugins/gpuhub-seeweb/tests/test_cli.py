"""``gpuhub search`` with every installed plugin loaded answers with Seeweb's offers (facts to the cent)."""

from __future__ import annotations

import json
from typing import Any

from gpuhub.plugin import reset_state, run_cli


def _search(*args: str, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    reset_state()
    result = run_cli(["search", "--provider", "seeweb", "--format", "json", "--all-regions", "--limit", "200",
                      *args],
                     env={"GPUHUB_STORE": "off", **(env or {})})
    reset_state()
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


def test_cli_answers_with_the_bundled_prices() -> None:
    rows = {r["instance_type"]: r for r in _search()}
    assert len(rows) == 21
    assert (rows["ECS1GPU8"]["price_per_hour"], rows["ECS1GPU8"]["gpu_count"]) == (8.4, 4)
    assert rows["ECS8GPU10"]["price_per_hour"] == 20.8 and rows["ECS8GPU10"]["gpu_name"] == "H200"
    assert rows["ECS1GPU6"]["price_per_hour"] == 0.38 and rows["ECS1GPU6"]["gpu_name"] == "L4"
    assert rows["ECS3GPU2"]["price_per_hour"] == 2.96 and rows["ECS3GPU2"]["gpu_name"] == "RTXA6000"
    assert rows["ECS1GPU11"]["price_per_hour"] == 0.29 and rows["ECS1GPU11"]["gpu_name"] == "A30"
    assert {(r["region"], r["country"]) for r in rows.values()} == {("it-fr2", "IT")}


def test_cli_near_milan_and_currency_setting() -> None:
    rows = _search("--gpu", "L40S", "--near", "Milan", env={"GPUHUB_SEEWEB_CURRENCY": "EUR"})
    assert {r["instance_type"] for r in rows} == {"ECS1GPU7", "ECS2GPU7", "ECS3GPU7", "ECS4GPU7"}
    assert {r["currency"] for r in rows} == {"EUR"}
