"""HTTP request headers a provider sends to a JSON API, with its credential.

May import: nothing of gpuhub (pydantic's :class:`SecretStr` only).
"""

from __future__ import annotations

from pydantic import SecretStr

__all__ = ["json_headers"]


def json_headers(key: SecretStr | None = None, *, header: str = "Authorization", scheme: str | None = "Bearer",
                 sends_json: bool = False) -> dict[str, str]:
    """The headers of a request to a JSON API: ``Content-Type: application/json`` when ``sends_json`` (a JSON
    body), ``Accept: application/json``, and, when ``key`` is given (``ctx.secret``/``ctx.require_secret``: None
    in replay or when unset), ``<header>: <scheme> <key>`` (``Authorization: Bearer ...`` by default; ``scheme``
    None sends the bare key, e.g. ``header="X-API-KEY"``). The key's value goes into the dict only."""
    headers = {"Content-Type": "application/json"} if sends_json else {}
    headers["Accept"] = "application/json"
    if key is not None:
        value = key.get_secret_value()
        headers[header] = f"{scheme} {value}" if scheme else value
    return headers
