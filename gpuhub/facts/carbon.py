"""Carbon: grid intensity per region and an estimated gCO2e per hour for an offer.

Intensity: ``gpuhub/data/carbon.csv``, the preferred row per region of ``shared/reference/carbon.csv``, put on one
basis for every provider by :mod:`gpuhub.facts.regions`: location-based grid averages (Google region-carbon-info, year
stated), provider renewable purchases not netted out. A region without its own location-based figure borrows the
nearest one in its country (``proxy of gcp:...``), said wherever the figure is shown; a region with none on that
basis has no figure and ranks last on ``carbon``.

Estimate: ``gCO2e/h = n × GPU TDP (kW) × PUE × intensity (gCO2e/kWh)`` with PUE 1.1 (hyperscaler fleet averages
reported for 2023 are 1.10 to 1.2). Host CPUs, memory and network are left out, so it is a lower bound that ranks
offers fairly against each other, not a footprint report.
"""

from __future__ import annotations

from gpuhub.facts.regions import region_facts

__all__ = ["PUE", "carbon_note", "grams_per_hour"]

PUE = 1.1


def grams_per_hour(power_kw: float | None, intensity_g_per_kwh: float | None) -> float | None:
    """Estimated gCO2e per hour for GPUs drawing ``power_kw`` on a grid of the given intensity; None if unknown."""
    if power_kw is None or intensity_g_per_kwh is None:
        return None
    return power_kw * PUE * intensity_g_per_kwh


def carbon_note(provider: str, region: str) -> str:
    """How the region's intensity is known, e.g. ``396 gCO2e/kWh (2024, location-based, Google region-carbon-info)``
    or ``... proxy of gcp:asia-east1``; or why there is no figure on the common basis."""
    facts = region_facts(provider, region)
    if facts is not None and facts.carbon_excluded:
        return (f"no location-based grid figure for {provider}:{region} (only {facts.carbon_excluded}, not "
                "comparable; left out of carbon ranking)")
    if facts is None or facts.carbon_gco2e_per_kwh is None:
        return f"no grid carbon data for {provider}:{region}"
    source = (facts.carbon_source or "source unknown").split(" data/")[0]
    text = (f"{facts.carbon_gco2e_per_kwh:.0f} gCO2e/kWh ({facts.carbon_year or 'year unknown'}, location-based, "
            f"{source}")
    if facts.carbon_proxy_of:
        text += f", proxy of {facts.carbon_proxy_of}"
    return text + ")"
