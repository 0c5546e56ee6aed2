"""gpuhub hook implementations of gpuhub-oci (entry point ``oci`` in the ``gpuhub`` group)."""

from __future__ import annotations

from collections.abc import Callable

from gpuhub.plugin import Provider, RegionFacts, hookimpl
from gpuhub_oci.provider import Oci, _region_table


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    """Register the OCI provider (name ``oci``)."""
    register(Oci())


@hookimpl
def register_regions(register: Callable[[RegionFacts], None]) -> None:
    """OCI's regions with the city each code names (``data/regions.json``: coordinates from gpuhub's GeoNames place
    table, city centres for the few cities it lacks), for ``--near``, ``--country`` and ``--continent``."""
    for row in _region_table():
        register(RegionFacts(provider="oci", region=row["region"], city=row["city"], country=row["country"],
                             continent=row["continent"], lat=row["lat"], lon=row["lon"]))
