"""Searches served from a published catalog: with ``GPUHUB_CATALOG_URL`` set, a provider that would otherwise
replay its bundled recording (no credentials configured) answers with the catalog's offers instead, marked with the
catalog's version and date. Each process fetches the catalog once (ETag-checked, verified) and again after
``GPUHUB_CATALOG_TTL`` seconds (default 900); a failed download keeps the last good copy (status ``stale``)."""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from gpuhub.settings import number_setting, report_setting

if TYPE_CHECKING:
    from gpuhub.fetch.provider import ProviderStatus
    from gpuhub.model import Offer
    from gpuhub.publish import FetchedCatalog

__all__ = ["published_offers"]

_lock = threading.Lock()
_fetched: dict[str, tuple[float, FetchedCatalog | None, str | None]] = {}


def _catalog(url: str, environ: Mapping[str, str]) -> tuple[FetchedCatalog | None, str | None]:
    from gpuhub.publish import fetch_catalog
    from gpuhub.publish.remote import TargetError

    ttl = number_setting(environ, "GPUHUB_CATALOG_TTL", 900.0)
    with _lock:
        kept = _fetched.get(url)
        if kept is not None and time.monotonic() - kept[0] < ttl:
            return kept[1], kept[2]
        try:
            fetched: FetchedCatalog | None = fetch_catalog(url, environ=environ)
            error = None
        except TargetError as exc:
            fetched, error = None, str(exc)
        _fetched[url] = (time.monotonic(), fetched, error)
        return fetched, error


def published_offers(environ: Mapping[str, str], provider: str) -> tuple[Sequence[Offer], ProviderStatus] | None:
    """The provider's offers and status from ``GPUHUB_CATALOG_URL``'s catalog, or None when no catalog is set or it
    has no entry for the provider (the engine then replays the bundled recording as usual).

    A catalog that cannot be fetched and has no good local copy (a wrong path or URL, something that is not a
    catalog) is said once on stderr, naming ``GPUHUB_CATALOG_URL`` and the cause, and None is returned: the bundled
    recordings answer, as they do without the setting."""
    from gpuhub.fetch.provider import ProviderStatus

    url = environ.get("GPUHUB_CATALOG_URL", "").strip()
    if not url:
        return None
    fetched, error = _catalog(url, environ)
    if fetched is None:
        cause = " ".join((error or "unknown error").split())
        report_setting(f"GPUHUB_CATALOG_URL={url!r} is not a usable catalog ({cause}); searching the bundled data "
                       "instead")
        return None
    entry = fetched.manifest["providers"].get(provider)
    if entry is None or provider not in fetched.columns:
        return None
    saved = entry.get("status") or {}
    fetched_at = dt.datetime.fromisoformat(entry["fetched_at"]) if entry.get("fetched_at") else None
    reason = (f"published catalog version {fetched.version} ({url}), published "
              f"{fetched.manifest.get('published_at')}"
              + (f", signed by key {fetched.signed_by}" if fetched.signed_by else "")
              + f", fetched by the publisher {entry.get('fetched_at')}")
    if fetched.state == "stale":
        reason += f"; the newest version could not be used ({fetched.reason}), this is the last good copy"
    columns = fetched.columns[provider]
    status = ProviderStatus(provider, "stale" if fetched.state == "stale" else "ok", reason=reason, mode="replay",
                            source=saved.get("source"), offers=len(columns),
                            skipped_records=int(saved.get("skipped_records") or 0),
                            skipped_reasons=dict(saved.get("skipped_reasons") or {}),
                            unknown_gpus=dict(saved.get("unknown_gpus") or {}),
                            warnings=list(saved.get("warnings") or []), fetched_at=fetched_at,
                            # what the publisher's status said of its data: partial, its kind, its price dates
                            partial_reasons=dict(saved.get("partial_reasons") or {}),
                            source_kind=saved.get("source_kind") or entry.get("source_kind"),
                            data_date=_date(entry.get("data_date") or saved.get("data_date")),
                            data_date_note=saved.get("data_date_note"),
                            oldest_data_date=_date(saved.get("oldest_data_date")),
                            undated_offers=int(saved.get("undated_offers") or 0),
                            price_change_period_s=saved.get("price_change_period_s"))
    return columns, status


def _date(value: object) -> dt.date | None:
    """An ISO date from a manifest, or None (absent or not a date)."""
    try:
        return dt.date.fromisoformat(str(value)) if value else None
    except ValueError:
        return None
