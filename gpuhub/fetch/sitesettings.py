"""A team's settings for its own clusters: internal rates and where each cluster is (a small TOML file).

Internal-cloud plugins (``gpuhub-kubernetes``, ``gpuhub-slurm``) price their free GPUs at the team's own rates and
place each cluster on the map from this file; the cluster APIs say neither. One file per provider:
``$GPUHUB_<PROVIDER>_SETTINGS``, else ``<user config dir>/gpuhub/<provider>.toml`` (platformdirs); a replayed
recording may carry its own ``settings.toml`` beside ``manifest.json``. Shape::

    currency = "USD"                  # ISO 4217, the currency of every rate below

    [rates]                           # internal price per GPU-hour, by canonical GPU name (gpuhub gpus)
    H100 = "2.40"
    "A100-80GB" = "1.60"

    [node_rates]                      # optional: price per node-hour by instance type / node shape (wins)
    "dgx-h100" = "19.00"

    [gpu_names]                       # optional: the site's own GPU spellings -> a GPU name gpuhub knows
    "1g.10gb" = "A100-80GB"           # (a Slurm GRES type that does not name its card)

    [clusters.gpu-east]               # one table per cluster (kube context, Slurm cluster) = gpuhub region
    city = "Ashburn"
    country = "US"                    # ISO 3166 alpha-2
    continent = "North America"
    latitude = 39.04
    longitude = -77.49
    carbon_gco2e_per_kwh = 367        # grid intensity if the team knows it
    bare_metal = true                 # nodes are physical machines (not VMs)
    provision_wait_s = 300            # how long a node that is added (autoscaled, powered up) takes to be ready
    queue = "ml/team-a"               # the user's Kueue LocalQueue (namespace/name) in this cluster

A GPU without a rate gives no offer: the plugin says which rates are missing.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]  # (installed on 3.10 only)

from gpuhub.errors import GpuhubError, ProviderError
from gpuhub.fetch.safeio import read_bytes
from gpuhub.model import Region

if TYPE_CHECKING:
    from gpuhub.fetch.provider import ProviderContext

__all__ = [
    "ClusterPlace",
    "SiteSettings",
    "SiteSettingsError",
    "load_site_settings",
    "site_region",
    "site_settings_path",
]

MAX_SETTINGS_BYTES = 1 << 20
MAX_WAIT_S = 7 * 86400
"""A provisioning wait longer than a week is a typo, not a setting."""


class SiteSettingsError(GpuhubError, ValueError):
    """The settings file cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class ClusterPlace:
    """Where one cluster is and what its nodes are: facts a cluster API does not give."""

    city: str | None = None
    country: str | None = None
    continent: str | None = None
    latitude: float | None = None
    longitude: float | None = None
    carbon_gco2e_per_kwh: float | None = None
    """Grid carbon intensity, gCO2e/kWh."""
    bare_metal: bool | None = None
    provision_wait_s: int | None = None
    """Seconds a node added on request (autoscaled, powered up) takes until it runs jobs; None: not known."""
    queue: str | None = None
    """The user's Kueue LocalQueue as ``namespace/name`` (Kubernetes), None: quotas are not applied."""


@dataclass(frozen=True)
class SiteSettings:
    """Parsed settings: ``rates`` per GPU-hour by GPU name, ``node_rates`` per node-hour by instance type,
    ``gpu_names`` (site spelling -> GPU name), ``clusters`` by region code; all amounts in ``currency``."""

    path: Path | None = None
    currency: str = "USD"
    rates: Mapping[str, Decimal] = field(default_factory=dict)
    node_rates: Mapping[str, Decimal] = field(default_factory=dict)
    gpu_names: Mapping[str, str] = field(default_factory=dict)
    clusters: Mapping[str, ClusterPlace] = field(default_factory=dict)

    def place(self, cluster: str) -> ClusterPlace:
        """The place of ``cluster`` (an empty one when the file does not name it)."""
        return self.clusters.get(cluster, ClusterPlace())

    def rate_for(self, gpu: str, gpu_count: float) -> Decimal | None:
        """Price per hour of ``gpu_count`` GPUs of ``gpu`` (a canonical name; fractions for slices), exact to
        1e-9; None when the file has no rate for it."""
        rate = self.rates.get(gpu)
        if rate is None:
            return None
        return (rate * Decimal(str(gpu_count))).quantize(Decimal("0.000000001")).normalize()

    def missing_rate_warning(self, gpu: str, count: int, variable: str | None = None) -> str:
        """The status warning for ``count`` offers of ``gpu`` left out for want of a rate (names the file, or
        the ``variable`` that names one when no file was read)."""
        where = self.path or (f"a settings file ({variable})" if variable else "a settings file")
        return f"{count} offers of {gpu} left out: no internal rate; add it under [rates] in {where}"


def site_settings_path(provider: str, environ: Mapping[str, str]) -> Path | None:
    """The settings file of ``provider`` that applies: ``GPUHUB_<PROVIDER>_SETTINGS`` (named even when missing,
    so the error says so), else ``<user config dir>/gpuhub/<provider>.toml`` when it exists, else None."""
    explicit = environ.get(f"GPUHUB_{provider.upper()}_SETTINGS")
    if explicit:
        return Path(explicit)
    import platformdirs

    default = Path(platformdirs.user_config_dir("gpuhub")) / f"{provider}.toml"
    return default if default.is_file() else None


def _money(path: Path, key: str, value: Any) -> Decimal:
    if isinstance(value, bool):
        raise SiteSettingsError(f"{path}: {key} = {value!r} is not a number")
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise SiteSettingsError(f"{path}: {key} = {value!r} is not a number") from None
    if not amount.is_finite() or amount <= 0 or amount.adjusted() > 9:
        raise SiteSettingsError(f"{path}: {key} = {value!r} must be a positive price below 10^9")
    return amount


def _float(path: Path, key: str, value: Any, low: float, high: float) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= float(value) <= high:
        raise SiteSettingsError(f"{path}: {key} = {value!r} must be a number in {low:g}..{high:g}")
    return float(value)


def _text(path: Path, key: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise SiteSettingsError(f"{path}: {key} = {value!r} must be a string")
    return value


def _place(path: Path, name: str, table: Any) -> ClusterPlace:
    if not isinstance(table, dict):
        raise SiteSettingsError(f"{path}: clusters.{name} must be a table")
    key = f"clusters.{name}"
    bare = table.get("bare_metal")
    if bare is not None and not isinstance(bare, bool):
        raise SiteSettingsError(f"{path}: {key}.bare_metal = {bare!r} must be true or false")
    wait = _float(path, f"{key}.provision_wait_s", table.get("provision_wait_s"), 0, MAX_WAIT_S)
    return ClusterPlace(
        city=_text(path, f"{key}.city", table.get("city")), country=_text(path, f"{key}.country", table.get("country")),
        continent=_text(path, f"{key}.continent", table.get("continent")),
        latitude=_float(path, f"{key}.latitude", table.get("latitude"), -90, 90),
        longitude=_float(path, f"{key}.longitude", table.get("longitude"), -180, 180),
        carbon_gco2e_per_kwh=_float(path, f"{key}.carbon_gco2e_per_kwh", table.get("carbon_gco2e_per_kwh"), 0, 5000),
        bare_metal=bare, provision_wait_s=None if wait is None else int(wait),
        queue=_text(path, f"{key}.queue", table.get("queue")))


def _table(path: Path, data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = data.get(name) or {}
    if not isinstance(value, dict):
        raise SiteSettingsError(f"{path}: [{name}] must be a table")
    return value


def load_site_settings(path: Path | None) -> SiteSettings:
    """Read the settings file at ``path`` (None: empty settings).

    Raises:
        SiteSettingsError: unreadable, larger than 1 MiB, not TOML, or a value of the wrong kind or out of range (the
            message names the file and the key).
    """
    if path is None:
        return SiteSettings()
    try:
        raw = read_bytes(path, limit=MAX_SETTINGS_BYTES)
    except OSError as exc:
        raise SiteSettingsError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SiteSettingsError(f"{path}: not valid TOML: {exc}") from None
    currency = str(data.get("currency", "USD")).upper()
    rates = {str(k): _money(path, f"rates.{k}", v) for k, v in _table(path, data, "rates").items()}
    node_rates = {str(k): _money(path, f"node_rates.{k}", v) for k, v in _table(path, data, "node_rates").items()}
    gpu_names = {str(k): str(_text(path, f"gpu_names.{k}", v)) for k, v in _table(path, data, "gpu_names").items()}
    clusters = {str(name): _place(path, str(name), table) for name, table in _table(path, data, "clusters").items()}
    return SiteSettings(path=path, currency=currency, rates=rates, node_rates=node_rates, gpu_names=gpu_names,
                        clusters=clusters)


def site_region(provider: str, code: str, place: ClusterPlace, zone: str | None = None) -> Region:
    """The :class:`~gpuhub.model.Region` of cluster ``code`` placed by its settings (``zone``: a node's zone)."""
    return Region(provider=provider, code=code, zone=zone, city=place.city, country=place.country,
                  continent=place.continent, latitude=place.latitude, longitude=place.longitude,
                  carbon_gco2e_per_kwh=place.carbon_gco2e_per_kwh)


def site_settings(ctx: ProviderContext) -> SiteSettings:
    """The settings of the provider ``ctx`` fetches for: its file (:func:`site_settings_path`), else, replaying a
    recording, the ``settings.toml`` beside the recording's ``manifest.json`` (an example's rates and places).

    Raises:
        ProviderError: the file cannot be used (``settings: <file>: <why>``, naming the key).
    """
    name = ctx.provider.name
    variable = f"GPUHUB_{name.upper()}_SETTINGS"
    environ = {key: value for key in (variable, "HOME") if (value := ctx.env(key)) is not None}
    path = site_settings_path(name, environ)
    if path is None and ctx.recording is not None and ctx.recording.directory is not None:
        bundled = ctx.recording.directory / "settings.toml"
        path = bundled if bundled.is_file() else None
    try:
        return load_site_settings(path)
    except SiteSettingsError as exc:
        raise ProviderError(f"settings: {exc}") from None
