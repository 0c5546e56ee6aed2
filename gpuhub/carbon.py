"""Carbon: grid intensity per region and an estimated gCO2e per hour for an offer.

Intensity: ``gpuhub/data/carbon.csv``, the preferred row per region of ``shared/reference/carbon.csv`` (location-
based grid averages; provider renewable purchases are not netted out). Some rows are proxies: a region without
its own figure borrows a nearby one (``proxy_of``); that is said wherever the figure is shown.

Estimate: ``gCO2e/h = n × GPU TDP (kW) × PUE × intensity (gCO2e/kWh)`` with PUE 1.1 (hyperscaler fleet averages
reported for 2023 are 1.10 to 1.2). Host CPUs, memory and network are left out, so it is a lower bound that ranks
offers fairly against each other, not a footprint report.
"""

from __future__ import annotations

from gpuhub.regions import region_facts

__all__ = ["PUE", "carbon_note", "grams_per_hour"]

PUE = 1.1


def grams_per_hour(power_kw: float | None, intensity_g_per_kwh: float | None) -> float | None:
    """Estimated gCO2e per hour for GPUs drawing ``power_kw`` on a grid of the given intensity; None if unknown."""
    if power_kw is None or intensity_g_per_kwh is None:
        return None
    return power_kw * PUE * intensity_g_per_kwh


def carbon_note(provider: str, region: str) -> str:
    """How the region's intensity is known, e.g. ``396 gCO2e/kWh (2024)`` or ``... (proxy of gcp:asia-east1)``."""
    facts = region_facts(provider, region)
    if facts is None or facts.carbon_gco2e_per_kwh is None:
        return f"no grid carbon data for {provider}:{region}"
    text = f"{facts.carbon_gco2e_per_kwh:.0f} gCO2e/kWh ({facts.carbon_year or 'year unknown'}"
    if facts.carbon_proxy_of:
        text += f", proxy of {facts.carbon_proxy_of}"
    return text + ")"
