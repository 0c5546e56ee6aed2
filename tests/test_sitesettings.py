"""The internal-cloud settings file both internal plugins read (gpuhub.plugin.SiteSettings): values are checked and
every error names the file and the key."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from gpuhub.plugin import SiteSettingsError, load_site_settings, site_region, site_settings_path


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "slurm.toml"
    path.write_text(text)
    return path


def test_a_full_file(tmp_path: Path) -> None:
    settings = load_site_settings(_write(tmp_path, """
currency = "eur"
[rates]
H100 = "2.10"
[gpu_names]
"1g.10gb" = "A100-80GB"
[clusters.hpc]
city = "Hillsboro"
country = "US"
latitude = 45.52
longitude = -122.99
provision_wait_s = 300
queue = "ml/research"
"""))
    assert settings.currency == "EUR" and settings.rates["H100"] == Decimal("2.10")
    assert settings.rate_for("H100", 3 / 7) == Decimal("0.9") and settings.rate_for("T4", 1) is None
    place = settings.place("hpc")
    assert place.provision_wait_s == 300 and place.queue == "ml/research" and settings.gpu_names["1g.10gb"]
    region = site_region("slurm", "hpc", place)
    assert region.city == "Hillsboro" and region.latitude == 45.52 and settings.place("other").city is None


@pytest.mark.parametrize(("text", "key"), [
    ('[rates]\nH100 = "free"', "rates.H100"),
    ("[rates]\nH100 = true", "rates.H100"),
    ('[rates]\nH100 = "-1"', "rates.H100"),
    ('[rates]\nH100 = "1e100"', "rates.H100"),
    ("[clusters.hpc]\nlatitude = 123.0", "clusters.hpc.latitude"),
    ('[clusters.hpc]\ncarbon_gco2e_per_kwh = "lots"', "clusters.hpc.carbon_gco2e_per_kwh"),
    ("[clusters.hpc]\nprovision_wait_s = -5", "clusters.hpc.provision_wait_s"),
    ('[clusters.hpc]\nbare_metal = "yes"', "clusters.hpc.bare_metal"),
    ('rates = "2.10"', "[rates]"),
    ("[clusters]\nhpc = 3", "clusters.hpc"),
])
def test_bad_values_name_the_key(tmp_path: Path, text: str, key: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(SiteSettingsError) as caught:
        load_site_settings(path)
    assert key in str(caught.value) and str(path) in str(caught.value)


def test_unreadable_or_not_toml(tmp_path: Path) -> None:
    with pytest.raises(SiteSettingsError, match="cannot be read"):
        load_site_settings(tmp_path / "absent.toml")
    with pytest.raises(SiteSettingsError, match="not valid TOML"):
        load_site_settings(_write(tmp_path, "[rates\n"))
    with pytest.raises(SiteSettingsError, match="cannot be read"):
        load_site_settings(_write(tmp_path, "x" * (2 << 20)))
    assert site_settings_path("slurm", {"GPUHUB_SLURM_SETTINGS": "/nowhere.toml"}) == Path("/nowhere.toml")
