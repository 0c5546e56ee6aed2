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


def _with_instance(**fields: Any) -> Callable[..., list[Offer]]:
    """FakeCloud's ``_offers`` with ``fields`` set on every offer's instance."""
    original = fakecloud.FakeCloud._offers

    def offers(self: fakecloud.FakeCloud, ctx: Any, item: dict[str, Any]) -> list[Offer]:
        return [o.model_copy(update={"instance": o.instance.model_copy(update=fields)})
                for o in original(self, ctx, item)]
    return offers


def test_the_kit_fails_network_facts_without_a_source(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin that gives a fabric or bandwidth must say where it comes from (issue 28): the kit's data check
    fails it, and passes it again once ``network_source`` is set."""
    fabric = {"fabric": "InfiniBand", "fabric_gbps": 400.0}
    monkeypatch.setattr(fakecloud.FakeCloud, "_offers", _with_instance(**fabric, network_source=None))
    with pytest.raises(AssertionError, match="fabric, fabric_gbps without network_source"):
        TestFakeCloudConformance().test_data_sanity()
    monkeypatch.setattr(fakecloud.FakeCloud, "_offers",
                        _with_instance(**fabric, network_source="the provider's cluster page"))
    TestFakeCloudConformance().test_data_sanity()


@pytest.mark.parametrize(("fields", "message"), [
    ({"fabric_gbps": 3200.0}, "a fabric's rate or interfaces without its kind"),
    ({"fabric_interfaces": 8}, "a fabric's rate or interfaces without its kind"),
    ({"network_gbps": 25.0, "network_peak_gbps": 10.0}, "peak network_peak_gbps below the baseline network_gbps"),
    ({"storage_disks": 2}, "local disks described without storage_gib"),
])
def test_the_kit_fails_network_facts_that_do_not_fit(monkeypatch: pytest.MonkeyPatch, fields: dict[str, Any],
                                                     message: str) -> None:
    """A fabric's rate needs its kind, a peak is not below its baseline, disks need their GiB (issue 28); each
    fact carries its source, so only the misfit is what fails."""
    monkeypatch.setattr(fakecloud.FakeCloud, "_offers", _with_instance(**fields, network_source="the size page"))
    with pytest.raises(AssertionError, match=message):
        TestFakeCloudConformance().test_data_sanity()
