"""Obtainability: spot interruption risk, placement scores, reservable capacity, quotas and capacity.

- :mod:`gpuhub.obtain.model`: what an offer carries (:class:`SpotRisk`, :class:`Reservation`,
  :class:`Obtainability`; ``Offer.obtain``);
- :mod:`gpuhub.obtain.cost`: the expected cost of a job on interruptible capacity (re-run of lost work);
- :mod:`gpuhub.obtain.compare`: one instance type's purchase options for a job, cheapest first, with break-evens.

Plugins fill ``Offer.obtain`` from their providers' own sources (AWS Spot Instance Advisor and capacity blocks,
GCP's statement that no rate is published, ...). Nothing here does I/O.
"""

from gpuhub.obtain.model import (
    CAPACITY_PURCHASES,
    Obtainability,
    Reservation,
    SpotRisk,
    register_obtain_purchase_models,
)

__all__ = ["CAPACITY_PURCHASES", "Obtainability", "Reservation", "SpotRisk", "register_obtain_purchase_models"]
