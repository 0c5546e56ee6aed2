"""The engine's first decision for each provider: how to get its data (live, a recording to replay, a recording to
make), or why it is skipped. Pure: reads the provider's declarations, the recordings on disk and the environment
(for credentials); fetches nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from gpuhub.errors import QueryError
from gpuhub.fetch.provider import Mode, Provider
from gpuhub.fetch.recording import load_manifest

__all__ = ["MODES", "RequestedMode", "plan_fetch"]

MODES = ("auto", "live", "replay", "record")
RequestedMode = Literal["auto", "live", "replay", "record"]


@dataclass(frozen=True)
class _Plan:
    """How one provider's data is got in one search: its mode, the recording to replay or to write, and the
    search's freshness wishes."""

    provider: str
    mode: Mode
    recording: Path | None = None
    record_to: Path | None = None
    static: bool = False
    refresh: bool = False
    """Fetch again even when the store has fresh data (``--refresh``)."""
    max_age_s: float | None = None
    """How old stored live data may be, seconds (``--max-age``; default: per purchase model, see
    :meth:`Engine.freshness_s`)."""
    purchases: tuple[str, ...] | None = None
    """The purchase models the search asks for (None: all), for freshness."""

    @property
    def key(self) -> tuple[str, str, str | None]:
        return (self.provider, self.mode, str(self.recording) if self.recording else None)


def plan_fetch(provider: Provider, mode: RequestedMode, fixtures_dir: Path | None, record_dir: Path | None,
               environ: Mapping[str, str]) -> _Plan | str:
    """How to get ``provider``'s data, or (a string) the reason it is skipped.

    Args:
        provider: the provider plugin (its ``static`` flag, credentials and bundled recording are read).
        mode: the requested mode, one of :data:`MODES` (``auto``: live when credentials are configured, else the
            bundled recording).
        fixtures_dir: the user's recordings (a directory per provider, or one recording); they replace the bundled
            ones.
        record_dir: where ``record`` mode writes (default ``fixtures/``; the provider's name is appended).
        environ: the environment the provider's credentials are read from.

    Raises:
        QueryError: ``mode`` is not one of :data:`MODES`.
    """
    if mode not in MODES:
        raise QueryError("mode", f"{mode!r} is not a mode; allowed: {', '.join(MODES)}")
    if provider.static and fixtures_dir is None:
        return _Plan(provider.name, "replay", provider.fixtures_dir(), static=True)
    if fixtures_dir is not None:  # the user's recordings replace the bundled ones (static tables included)
        for candidate in (fixtures_dir / provider.name, fixtures_dir):
            if (candidate / "manifest.json").is_file() and (
                    candidate != fixtures_dir or _manifest_provider(candidate) == provider.name):
                return _Plan(provider.name, "replay", candidate, static=provider.static)
        expected = fixtures_dir / provider.name / "manifest.json"
        problem = _manifest_problem(fixtures_dir)
        return f"no recording for {provider.name} in {fixtures_dir} (expected {expected})" + (
            f"; {fixtures_dir / 'manifest.json'} cannot be used: {problem}" if problem else "")
    if mode == "record":
        target = (record_dir or Path("fixtures")) / provider.name
        return _Plan(provider.name, "record", record_to=target)
    live_ok = provider.credentials_configured(environ) or not provider.credentials
    if mode == "live" or (mode == "auto" and provider.credentials and live_ok):
        return _Plan(provider.name, "live")
    bundled = provider.fixtures_dir()
    if bundled is not None and (bundled / "manifest.json").is_file():
        return _Plan(provider.name, "replay", bundled)
    if not provider.credentials:  # nothing to configure: only an explicit live fetch or a recording
        return (f"{provider.name} has no bundled recording to replay; it needs no credentials, so ask for it "
                "live with --fetch live (fetch='live'), or replay your own recording with --fixtures DIR")
    return f"no credentials configured and no bundled recording: {provider.credentials_help()}"


def _manifest_problem(directory: Path) -> str | None:
    """Why ``directory/manifest.json`` cannot be read, when it exists and cannot (None otherwise)."""
    if not (directory / "manifest.json").exists():
        return None
    try:
        load_manifest(directory)
    except (OSError, ValueError) as exc:
        return str(exc)[:300]
    return None


def _manifest_provider(directory: Path) -> str | None:
    try:
        return load_manifest(directory).provider
    except (OSError, ValueError):
        return None
