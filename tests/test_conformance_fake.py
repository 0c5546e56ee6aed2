"""The conformance kit run on the core's fake provider (every provider plugin runs the same kit)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import fakecloud
import pytest

from gpuhub import Offer
from gpuhub.kit.testing import ProviderConformance


class TestFakeCloudConformance(ProviderConformance):
    provider_name = "fakecloud"
    registry_plugins = (fakecloud.PLUGIN,)
    min_offers = 7
    empty_body = b'{"offers": [], "next_page": null}'


def test_the_kit_fails_network_facts_without_a_source(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin that gives a fabric or bandwidth must say where it comes from (issue 28): the kit's data check
    fails it, and passes it again once ``network_source`` is set."""
    original = fakecloud.FakeCloud._offers

    def with_fabric(source: str | None) -> Callable[..., list[Offer]]:
        def offers(self: fakecloud.FakeCloud, ctx: Any, item: dict[str, Any]) -> list[Offer]:
            return [o.model_copy(update={"instance": o.instance.model_copy(update={
                "fabric": "InfiniBand", "fabric_gbps": 400.0, "network_source": source})})
                for o in original(self, ctx, item)]
        return offers

    monkeypatch.setattr(fakecloud.FakeCloud, "_offers", with_fabric(None))
    with pytest.raises(AssertionError, match="fabric, fabric_gbps without network_source"):
        TestFakeCloudConformance().test_data_sanity()
    monkeypatch.setattr(fakecloud.FakeCloud, "_offers", with_fabric("the provider's cluster page"))
    TestFakeCloudConformance().test_data_sanity()
