"""The team's settings for its clusters: internal rates and where each cluster is (a small TOML file).

Found at ``$GPUHUB_KUBERNETES_SETTINGS``, else ``<user config dir>/gpuhub/kubernetes.toml`` (platformdirs); a
replayed recording may carry its own ``settings.toml`` beside ``manifest.json`` (the bundled one does). Shape::

    currency = "USD"                  # ISO 4217, the currency of every rate below

    [rates]                           # internal price per GPU-hour, by canonical GPU name (gpuhub gpus)
    H100 = "2.40"
    "A100-80GB" = "1.60"

    [node_rates]                      # optional: price per node-hour by instance-type label (wins over [rates])
    "dgx-h100" = "19.00"

    [clusters.gpu-east]               # one table per kube context (= gpuhub region)
    city = "Ashburn"
    country = "US"                    # ISO 3166 alpha-2
    continent = "North America"
    latitude = 39.04
    longitude = -77.49
    carbon_gco2e_per_kwh = 367        # grid intensity if the team knows it
    bare_metal = true                 # nodes are physical machines (not VMs)

A MIG slice costs the GPU rate × its compute share (GPU instances / 7). A GPU without a rate gives no offer: the
status says which rates are missing.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["ClusterPlace", "Settings", "SettingsError", "load_settings", "settings_path"]

MAX_SETTINGS_BYTES = 1 << 20


class SettingsError(ValueError):
    """The settings file cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class ClusterPlace:
    """Where one cluster is, and what its nodes are (facts the Kubernetes API does not give)."""

    city: str | None = None
    country: str | None = None
    continent: str | None = None
    latitude: float | None = None
    longitude: float | None = None
    carbon_gco2e_per_kwh: float | None = None
    bare_metal: bool | None = None


@dataclass(frozen=True)
class Settings:
    """Parsed settings: ``rates`` per GPU-hour by GPU name, ``node_rates`` per node-hour by instance type."""

    path: Path | None = None
    currency: str = "USD"
    rates: Mapping[str, Decimal] = field(default_factory=dict)
    node_rates: Mapping[str, Decimal] = field(default_factory=dict)
    clusters: Mapping[str, ClusterPlace] = field(default_factory=dict)


def settings_path(environ: Mapping[str, str]) -> Path | None:
    """The settings file that applies: ``GPUHUB_KUBERNETES_SETTINGS`` or the user config file, when it exists."""
    explicit = environ.get("GPUHUB_KUBERNETES_SETTINGS")
    if explicit:
        return Path(explicit)
    import platformdirs

    default = Path(platformdirs.user_config_dir("gpuhub")) / "kubernetes.toml"
    return default if default.is_file() else None


def _money(path: Path, key: str, value: Any) -> Decimal:
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise SettingsError(f"{path}: {key} = {value!r} is not a number") from None
    if not amount.is_finite() or amount <= 0:
        raise SettingsError(f"{path}: {key} = {value!r} must be a positive price")
    return amount


def load_settings(path: Path | None) -> Settings:
    """Read ``path`` (None: empty settings).

    Raises:
        SettingsError: unreadable, too large, not TOML, or a value of the wrong kind (names the key).
    """
    if path is None:
        return Settings()
    try:
        raw = path.read_bytes()[:MAX_SETTINGS_BYTES + 1]
    except OSError as exc:
        raise SettingsError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    if len(raw) > MAX_SETTINGS_BYTES:
        raise SettingsError(f"{path}: larger than {MAX_SETTINGS_BYTES} bytes")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"{path}: not valid TOML: {exc}") from None
    currency = str(data.get("currency", "USD")).upper()
    rates = {str(k): _money(path, f"rates.{k}", v) for k, v in (data.get("rates") or {}).items()}
    node_rates = {str(k): _money(path, f"node_rates.{k}", v) for k, v in (data.get("node_rates") or {}).items()}
    clusters: dict[str, ClusterPlace] = {}
    for name, table in (data.get("clusters") or {}).items():
        if not isinstance(table, dict):
            raise SettingsError(f"{path}: clusters.{name} must be a table")
        try:
            clusters[str(name)] = ClusterPlace(
                city=table.get("city"), country=table.get("country"), continent=table.get("continent"),
                latitude=_float(table.get("latitude")), longitude=_float(table.get("longitude")),
                carbon_gco2e_per_kwh=_float(table.get("carbon_gco2e_per_kwh")),
                bare_metal=table.get("bare_metal") if isinstance(table.get("bare_metal"), bool) else None)
        except (TypeError, ValueError):
            raise SettingsError(f"{path}: clusters.{name}: latitude, longitude and carbon must be numbers") from None
    return Settings(path=path, currency=currency, rates=rates, node_rates=node_rates, clusters=clusters)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)
