"""Obtainability for GCP offers: Google publishes no Spot VM preemption rate, and each spot offer says so.

Google's documentation: "Compute Engine might reclaim the resources by preempting Spot VMs at any time" (Spot VMs,
create-manage-spot). The only per-zone figure is the authenticated, per-project
``POST /compute/v1/projects/{project}/regions/{region}/advice/capacityHistory``
(``preemptionHistory[].preemptionRate``), which needs OAuth credentials for a project; this plugin authenticates
with an API key only, so it is not asked and the note says so. The risk is ``not published`` (bounds None:
unknown, never zero).
"""

from __future__ import annotations

from collections.abc import Iterable

from gpuhub.model import Offer
from gpuhub.obtain import Obtainability, SpotRisk

__all__ = ["NO_RATE", "attach_risk"]

NO_RATE = Obtainability(risk=SpotRisk(
    label="not published", source="gcp: no published rate",
    note="Google publishes no Spot VM preemption rate (Compute Engine may preempt Spot VMs at any time); the "
         "per-project advice/capacityHistory preemption rate needs OAuth project credentials and was not asked"))


def attach_risk(offers: Iterable[Offer]) -> list[Offer]:
    """Every spot offer with :data:`NO_RATE`; others unchanged."""
    return [o.model_copy(update={"obtain": NO_RATE}) if o.price.purchase == "spot" else o for o in offers]
