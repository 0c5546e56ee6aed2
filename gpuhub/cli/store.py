"""``gpuhub store``: what the offer store holds (``show``), ``prune`` old snapshots, and where it is (``path``).

Registered from :mod:`gpuhub.cli`; imports nothing heavy until a command runs.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from gpuhub.cli.durations import parse_duration

if TYPE_CHECKING:
    from gpuhub.store import Snapshot, Store

__all__ = ["parse_duration", "store_app"]

store_app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                        rich_markup_mode=None,
                        help="The offer store: snapshots of every provider fetch (GPUHUB_STORE).")
def _open(ctx: typer.Context) -> Store:
    from gpuhub.store import StoreError, default_location, open_store, redact_location

    try:
        store = open_store()
    except StoreError as exc:
        typer.echo(_plain(f"error: {exc}"), err=True)
        raise typer.Exit(1) from None
    if store is None:
        typer.echo(f"the store is off (GPUHUB_STORE={redact_location(default_location() or 'off')})", err=True)
        raise typer.Exit(1)
    ctx.call_on_close(store.close)  # a team store's connection is closed, not left to the garbage collector
    return store


def _plain(text: str) -> str:
    """Text as text: control characters escaped (:func:`gpuhub.display.plain`)."""
    from gpuhub.display import plain

    return plain(text)


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


@store_app.command("path")
def path() -> None:
    """Print where the store is (a directory, or a database URL)."""
    from gpuhub.store import default_location, redact_location

    typer.echo(redact_location(default_location() or "off"))


@store_app.command("show")
def show(
    ctx: typer.Context,
    provider: Annotated[str | None, typer.Option("--provider", "-p", metavar="NAME", help="only this provider")] = None,
    limit: Annotated[int, typer.Option(
        metavar="COUNT", help="at most this many snapshots per provider (newest first)")] = 5,
    output: Annotated[str, typer.Option("--format", "-f", metavar="<table|json>", help="table or json")] = "table",
) -> None:
    """List stored snapshots: provider, age, source kind, data date, offers, size, and why a fetch failed."""
    from gpuhub.service.engine import _age

    if output not in ("table", "json"):
        typer.echo(f"error: --format: {output!r} is not allowed; allowed values: table, json", err=True)
        raise typer.Exit(2)
    if limit < 1:
        typer.echo("error: --limit: must be at least 1", err=True)
        raise typer.Exit(2)
    store = _open(ctx)
    now = dt.datetime.now(dt.timezone.utc)
    shown = []
    counts: dict[str, int] = {}
    for snap in store.snapshots(provider):
        counts[snap.provider] = counts.get(snap.provider, 0) + 1
        if counts[snap.provider] <= limit:
            shown.append(snap)
    shown.sort(key=lambda s: (s.provider, -s.id))
    if provider is not None and not shown:
        stored = sorted({s.provider for s in store.snapshots(limit=None)})
        typer.echo(f"error: --provider: no snapshot of {provider!r} is stored; stored providers: "
                   f"{', '.join(stored) or 'none yet (run a search first)'}", err=True)
        raise typer.Exit(2)
    outdated = _outdated(shown)
    quarantined = store.quarantined()
    if output == "json":
        rows = [{"id": s.id, "provider": s.provider, "fetched_at": s.fetched_at.isoformat(timespec="seconds"),
                 "age_s": round(s.age_s(now), 1), "source_kind": s.source_kind, "source": s.status.get("source"),
                 "data_date": s.data_date.isoformat() if s.data_date else None, "complete": s.complete,
                 "offers": s.offers, "size_bytes": s.size_bytes, "content_hash": s.content_hash,
                 "reason": None if s.complete else s.status.get("reason") or "; ".join(s.status.get("warnings", [])),
                 "outdated": outdated[s.id]}
                for s in shown]
        set_aside = [{"snapshot_id": q.snapshot_id, "provider": q.provider, "reason": q.reason,
                      "set_aside_at": q.set_aside_at.isoformat(timespec="seconds")} for q in quarantined]
        sys.stdout.write(json.dumps({"location": store.location, "size_bytes": store.size_bytes(),
                                     "read_only": store.read_only, "snapshots": rows, "quarantined": set_aside},
                                    indent=2) + "\n")
        return
    from gpuhub.cli.plaintext import PlainTable
    from gpuhub.cli.process import err
    from gpuhub.cli.table import cells, print_fitted, stdout_console
    from gpuhub.display import plain

    headings = ["provider", "id", "age", "source kind", "data date", "offers", "size", "state"]
    # numbers, dates and sizes are never cut; a state (why a fetch failed) wraps between words
    table = PlainTable(headings, [h in ("id", "age", "offers", "size") for h in headings],
                       ["words" if h in ("provider", "source kind", "state") else "whole" for h in headings])
    for s in shown:
        if s.complete:
            state = "complete" + (f", {outdated[s.id]}" if outdated[s.id] else "")
        else:
            why = s.status.get("reason") or "; ".join(s.status.get("warnings", [])) or "no offers"
            state = f"not served: {why}"
        table.add_row(*cells(s.provider, s.id, _age(s.age_s(now)), s.source_kind,
                             s.data_date.isoformat() if s.data_date else "-", s.offers,
                             _size(s.size_bytes) if s.content_hash else "-", plain(state)[:100]))
    print_fitted(table, ["provider", "id", "age", "offers", "state"], stdout_console(), err,
                 rest=["data date", "size", "source kind"], shows="--format json")
    total = sum(counts.values())
    typer.echo(f"{store.location}: {_size(store.size_bytes())}, {total} snapshots"
               + (f" (newest {limit} per provider shown)" if len(shown) < total else ""), err=True)
    if store.read_only is not None:
        typer.echo(f"read-only ({store.read_only}): stored offers are served, new fetches are not kept", err=True)
    if quarantined:
        are = "row could not be decoded and is" if len(quarantined) == 1 else "rows could not be decoded and are"
        typer.echo(f"{len(quarantined)} snapshot {are} set aside (quarantine table, never served):", err=True)
        for q in quarantined[:10]:
            typer.echo(plain(f"  snapshot {q.snapshot_id} of {q.provider}: {q.reason}"), err=True)


def _outdated(snapshots: list[Snapshot]) -> dict[int, str | None]:
    """Snapshot id -> the OUTDATED flag of its provider's newest price (:func:`gpuhub.fetch.provider.outdated_text`),
    judged by the installed plugin's declared price-change period (else the one stored with the snapshot)."""
    from gpuhub.fetch.plugins import get_registry
    from gpuhub.fetch.provider import outdated_text

    providers = get_registry().providers
    out: dict[int, str | None] = {}
    for snap in snapshots:
        installed = providers.get(snap.provider)
        period = installed.price_change_period_s if installed is not None else snap.status.get("price_change_period_s")
        out[snap.id] = outdated_text(snap.data_date, period)
    return out


@store_app.command("prune")
def prune(
    ctx: typer.Context,
    keep: Annotated[int | None, typer.Option(
        metavar="COUNT", help="snapshots to keep per provider (default GPUHUB_STORE_KEEP, "
                              "else 50; with --older-than alone: 1)")] = None,
    older_than: Annotated[str | None, typer.Option(
        metavar="DURATION", help="delete snapshots older than this: 3600, 12h, 7d (with "
                                 "--keep: only those beyond the newest COUNT)")] = None,
) -> None:
    """Delete old snapshots (the newest complete one of each provider is always kept) and unused content."""
    from gpuhub.store.sqlite import _keep

    # --older-than alone means what it says: every snapshot older than that goes (but each provider's newest
    # complete one); the retention count applies only when asked for or when no age is given.
    keep_n = keep if keep is not None else (1 if older_than is not None else _keep())
    if keep_n < 1:
        typer.echo("error: --keep: must be at least 1", err=True)
        raise typer.Exit(2)
    try:
        seconds = parse_duration(older_than) if older_than is not None else None
    except ValueError as exc:
        typer.echo(_plain(f"error: --older-than: {exc}"), err=True)
        raise typer.Exit(2) from None
    store = _open(ctx)
    before = store.size_bytes()
    report = store.prune(keep_per_provider=keep_n, older_than_s=seconds)
    typer.echo(f"removed {report.snapshots} snapshots and {report.contents} unused contents "
               f"({_size(report.bytes_freed)} of offers); {store.location}: {_size(before)} -> "
               f"{_size(store.size_bytes())}")
