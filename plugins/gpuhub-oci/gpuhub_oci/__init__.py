"""gpuhub-oci: Oracle Cloud Infrastructure GPU shapes with list prices per instance-hour, from Oracle's public Cost
Estimator data (``shapes.json`` and ``products.json``, no credentials)."""

from __future__ import annotations

from gpuhub_oci.provider import Oci

__all__ = ["Oci", "__version__"]

__version__ = "0.1.0"
