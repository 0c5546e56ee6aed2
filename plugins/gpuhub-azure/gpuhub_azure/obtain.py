"""Obtainability for Azure offers: the spot eviction rate per size and region.

Source: Azure Resource Graph, ``SpotResources | where type =~ 'microsoft.compute/skuspotevictionrate/location'``
(``POST {ARM}/providers/Microsoft.ResourceGraph/resources``), which needs an Azure identity and a subscription.
Without them (and in replay: no real Resource Graph answer is bundled) every spot and low-priority offer carries an
``unknown`` risk that says why: unknown, never zero.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from gpuhub.plugin import Obtainability, Offer, SpotRisk

__all__ = ["SOURCE", "attach_risk"]

SOURCE = "azure resource graph (skuspotevictionrate)"
NOT_ASKED = Obtainability(risk=SpotRisk(
    label="unknown", source=SOURCE,
    note="the eviction rate comes from Azure Resource Graph (SpotResources), which needs AZURE_CLIENT_ID, "
         "AZURE_TENANT_ID, AZURE_CLIENT_SECRET and AZURE_SUBSCRIPTION_ID; not asked"))


def attach_risk(offers: Iterable[Offer]) -> Iterator[Offer]:
    """Every spot/low-priority offer with an ``unknown`` risk naming the missing source; others unchanged."""
    for offer in offers:
        yield offer.model_copy(update={"obtain": NOT_ASKED}) if offer.price.purchase in ("spot", "low_priority") \
            else offer
