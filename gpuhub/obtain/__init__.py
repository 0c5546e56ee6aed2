"""Obtainability: spot interruption risk, placement scores, reservable capacity, quotas and capacity.

- :mod:`gpuhub.obtain.model`: what an offer carries (:class:`SpotRisk`, :class:`Reservation`,
  :class:`Obtainability`; ``Offer.obtain``);
- :mod:`gpuhub.answer.cost`: the expected cost of a job on interruptible capacity (re-run of lost work);
- :mod:`gpuhub.answer.compare`: one instance type's purchase options for a job, cheapest first, with break-evens.

Plugins fill ``Offer.obtain`` from their providers' own sources (AWS Spot Instance Advisor and capacity blocks,
GCP's statement that no rate is published, ...). Nothing here does I/O.

The bottom layer with :mod:`gpuhub.model` (``Offer.obtain``): imports nothing of gpuhub but :mod:`.model`.
"""

from gpuhub.obtain.model import (
    CAPACITY_PURCHASES,
    Obtainability,
    Reservation,
    SpotRisk,
)

__all__ = ["CAPACITY_PURCHASES", "Obtainability", "Reservation", "SpotRisk"]
