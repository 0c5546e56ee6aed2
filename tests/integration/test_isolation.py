"""No plugin's installation changes another provider's answers (GPU, VRAM, price), whatever is cached."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.conftest import PROVIDERS, Run, search_json


def _answers(records: list[dict[str, Any]], provider: str) -> list[tuple[Any, ...]]:
    return sorted((r["instance_type"], r["region"], r["zone"] or "", r["purchase"], r["price_per_hour"],
                   r["gpu_name"], r["gpu_count"], r["gpu_memory_gib"], r["form_factor"] or "", r["vcpus"] or 0,
                   r["memory_gib"] or 0) for r in records if r["provider"] == provider)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_provider_alone_equals_provider_with_every_plugin(gpuhub_cli: Run, provider: str,
                                                          every_offer: tuple[list[dict[str, Any]], str]) -> None:
    # The same cache directory serves both runs: what one plugin set parsed must never be served to another.
    alone, stderr = search_json(gpuhub_cli, "--provider", provider, env={"GPUHUB_PLUGINS": provider})
    assert {r["provider"] for r in alone} == {provider}, stderr
    together = _answers(every_offer[0], provider)
    assert together and _answers(alone, provider) == together


def test_disabling_one_plugin_changes_no_other_provider(gpuhub_cli: Run,
                                                        every_offer: tuple[list[dict[str, Any]], str]) -> None:
    without_gcp, _ = search_json(gpuhub_cli, env={"GPUHUB_DISABLE_PLUGINS": "gcp"})
    for provider in ("aws", "azure", "coreweave", "lambda"):
        assert _answers(without_gcp, provider) == _answers(every_offer[0], provider), provider
    again, _ = search_json(gpuhub_cli)  # and back: the cached answers of the other plugin set are not reused
    assert _answers(again, "coreweave") == _answers(every_offer[0], "coreweave")
