"""``gpuhub history``, ``gpuhub diff``, ``gpuhub watch`` and ``gpuhub catalog publish|show``: price history, change
reports and published catalogs from the offer store. Importing this module costs typer only; the work is imported
by each command."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import sys
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gpuhub.cli.options import WideOption
from gpuhub.cli.search import OutputFormat
from gpuhub.display import plain

if TYPE_CHECKING:
    from gpuhub.history import DiffReport
    from gpuhub.store import Store

__all__ = ["catalog_app", "register"]

catalog_app = typer.Typer(no_args_is_help=True, help="Publish the newest good snapshots as a catalog others read "
                                                     "(GPUHUB_CATALOG_URL).")


HistoryFormat = OutputFormat
"""``gpuhub history --format``: a table, or the price series as JSON or CSV (the search's formats)."""


class DiffFormat(str, Enum):
    """``gpuhub diff --format``: a table of changes, or the changes as JSON."""
    table = "table"
    json = "json"


InstanceTypes = Annotated[list[str] | None, typer.Option(metavar="TYPE", help="instance type name(s), exact")]
Gpus = Annotated[list[str] | None, typer.Option("--gpu", "-g", metavar="NAME", help="GPU name or alias, repeatable")]
Providers = Annotated[list[str] | None, typer.Option("--provider", "-p", metavar="NAME", help="provider name(s)")]
Regions = Annotated[list[str] | None, typer.Option("--region", "-r", metavar="CODE", help="region or zone code(s)")]
Purchases = Annotated[list[str] | None, typer.Option(
    metavar="MODEL", help="purchase model(s): on_demand, spot, reserved_1y, ...")]
"""The offer filters history, diff and watch share (each repeatable)."""


def _err(message: str, code: int = 2) -> None:
    from gpuhub.cli.table import TextConsole

    TextConsole(stderr=True, soft_wrap=True).print(f"error: {message}", style="red")
    raise typer.Exit(code)


def _store() -> Store:
    from gpuhub.store import StoreError, open_store

    try:
        store = open_store()
    except StoreError as exc:
        _err(str(exc))
        raise
    if store is None:
        _err("the offer store is off (GPUHUB_STORE=off): history, diff and watch read the store")
        raise typer.Exit(2)
    return store


def _known_providers(store: Store, provider: list[str] | None) -> list[str] | None:
    """``--provider`` names as the loaded plugins and the store spell them (any case: ``AWS`` is ``aws``); a name
    that is neither a loaded provider nor one with stored snapshots is a usage error listing the allowed values, as
    ``search`` says it (was: diff and watch compared nothing and said so as if all were well)."""
    if not provider:
        return provider
    from gpuhub.errors import QueryError
    from gpuhub.fetch.plugins import get_registry

    allowed = list(get_registry().providers)
    lookup = {name.lower(): name for name in allowed}
    if any(name.lower() not in lookup for name in provider):
        allowed = sorted(set(allowed) | {s.provider for s in store.snapshots()})
        lookup = {name.lower(): name for name in allowed}
    for name in provider:
        if name.lower() not in lookup:
            raise QueryError("provider", f"{name!r} is not allowed; allowed values: {', '.join(allowed)}")
    return [lookup[name.lower()] for name in provider]


@contextlib.contextmanager
def _opened_store() -> Iterator[Store]:
    """The store for one command, closed after it; a bad filter (``QueryError``) or an unreadable store is a clean
    usage error naming the argument (``OLD``/``NEW`` for diff's positional snapshots)."""
    from gpuhub.errors import QueryError
    from gpuhub.store import StoreError

    store = _store()
    try:
        yield store
    except QueryError as exc:
        name = exc.argument.upper() if exc.argument in ("old", "new") else "--" + exc.argument.replace("_", "-")
        _err(f"{name}: {exc.detail}")
    except StoreError as exc:
        _err(str(exc))
    finally:
        _close(store)


def _close(store: Store) -> None:
    from gpuhub.history.log import close_history

    close_history(store)
    store.close()


def _money(value: Any) -> str:
    """A price by the printing rule (:func:`gpuhub.display.money`), ``-`` when unknown."""
    from gpuhub.cli.table import price

    return price(value)


def _need_charts(plot: bool, chart: Path | None) -> None:
    """``--plot`` and ``--chart`` need the charts extra: without it, one line naming the missing module and the
    install command, exit code 2 (before any work), never a traceback."""
    import importlib.util

    for wanted, option, module in ((plot, "--plot", "plotext"), (chart is not None, "--chart", "matplotlib")):
        try:
            missing = wanted and importlib.util.find_spec(module) is None
        except (ImportError, ValueError):  # a module set to None (blocked) or without a spec
            missing = wanted
        if missing:
            _err(f"{option} needs the charts extra ({module} is missing): pip install 'gpuhub-core[charts]'")


def _percent(pct: float | None) -> str:
    """A change in percent to 2 decimals, or as many more as a change too small for 2 needs (``+0.003``, never
    ``+0.00`` for a change); empty when there is none."""
    if pct is None:
        return ""
    places = 2
    while places < 8 and pct and round(pct, places) == 0:
        places += 1
    return f"{pct:+.{places}f}"


def _row(table: Any, *values: Any) -> None:
    """A table row whose cells are text (control characters escaped)."""
    table.add_row(*(plain(v) for v in values))


def _fitted(headings: list[str], right: tuple[str, ...], words: tuple[str, ...], rows: list[list[str]],
            core: list[str], wide: bool, fold: tuple[str, ...] = (), **kwargs: Any) -> None:
    """Print a table (``right``: the headings of right-justified columns, ``words``: of those that wrap between
    words, ``fold``: of those that fold anywhere, identifiers; every other cell is never cut or wrapped) with the
    columns that fit the terminal (:func:`gpuhub.cli.table.print_fitted`; ``core`` always, the rest while they
    fit)."""
    from gpuhub.cli.plaintext import PlainTable
    from gpuhub.cli.process import err
    from gpuhub.cli.table import print_fitted, stdout_console

    table = PlainTable(headings, [h in right for h in headings],
                       ["words" if h in words else "fold" if h in fold else "whole" for h in headings])
    for row in rows:
        _row(table, *row)
    print_fitted(table, core, stdout_console(), err, wide=wide, **kwargs)


FilterOption = Annotated[list[str] | None, typer.Option()]


def history(
    instance_type: InstanceTypes = None,
    gpu: Gpus = None,
    provider: Providers = None,
    region: Regions = None,
    purchase: Purchases = None,
    since: Annotated[str, typer.Option(metavar="WINDOW", help="window: 30d, 12h, 2w, a date, or 'all'")] = "30d",
    group: Annotated[str, typer.Option(
        metavar="KEY", help="offer, instance_type, gpu, provider or region (a group's price is "
                            "its cheapest offer's)")] = "offer",
    points: Annotated[bool, typer.Option("--points", help="every change, not one line per series")] = False,
    plot: Annotated[bool, typer.Option("--plot", help="draw a terminal chart")] = False,
    chart: Annotated[Path | None, typer.Option(
        metavar="FILE", help="write a chart image: FILE.png or FILE.svg")] = None,
    limit: Annotated[int, typer.Option(
        metavar="COUNT", help="at most this many series (cheapest last price first)")] = 50,
    output: Annotated[HistoryFormat, typer.Option("--format", "-f", help="table, json or csv")] = HistoryFormat.table,
    wide: WideOption = False,
) -> None:
    """Price history from the store: the price at each change, and min / median / max over --since."""
    _need_charts(plot, chart)
    from gpuhub.history import history as run_history

    if limit < 1:
        _err(f"--limit: must be a whole number of at least 1, got {limit}")
    if chart is not None and chart.suffix.lower() not in (".png", ".svg"):
        _err(f"--chart: {chart} must end in .png or .svg")
    with _opened_store() as store:
        result = run_history(instance_type=instance_type, gpu=gpu, provider=provider, region=region,
                             purchase=purchase, since=None if since.strip().lower() == "all" else since,
                             group=group, store=store)
        if provider and not result.series:  # a provider never stored is a bad argument, not an empty history
            stored = sorted({s.provider for s in store.snapshots()})
            unknown = [p for p in provider if p not in stored]
            if unknown:
                _err(f"--provider: nothing is stored for {', '.join(unknown)}; stored providers: "
                     f"{', '.join(stored) or 'none yet (run a search first)'}")
    shown = sorted(result.series, key=lambda s: (float(s.stats(result.since)["last"] or float("inf")), s.label))
    result.series = shown[:limit]
    if output is HistoryFormat.json:
        sys.stdout.write(json.dumps(result.to_dict(), indent=2) + "\n")
    elif output is HistoryFormat.csv:
        rows = result.points() if points else result.summary()
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]) if rows else ["provider", "instance_type"],
                                lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        sys.stdout.write(buffer.getvalue())
    elif points:
        lines: list[list[str]] = []
        for row in result.points():
            label = " ".join(str(row.get(k)) for k in ("provider", "instance_type", "region", "purchase", "gpu_name")
                             if row.get(k))
            lines.append([row["at"].replace("T", " ")[:16], label,
                          "gone" if row["price_per_hour"] is None else _money(row["price_per_hour"]),
                          str(row.get("currency") or "")])
        headings = ["at (UTC)", "series", "price/h", "currency"]
        _fitted(headings, ("price/h",), ("series",), lines, headings, wide)
    else:
        first = "group" if result.group != "offer" else "offer"
        headings = [first, "changes", "first", "min", "median", "max", "last", "currency"]
        lines = [[s.label + (f" ({row['offers']} offers)" if "offers" in row else ""), str(row["changes"]),
                  *(_money(row[f"{k}_price_per_hour"]) for k in ("first", "min", "median", "max", "last")),
                  str(row.get("currency") or "")] for s, row in zip(result.series, result.summary(), strict=True)]
        # a series is its label and its lowest, highest and last price (a label too long for the terminal even
        # broken between words gives up the lowest, then the highest); the rest while there is room
        _fitted(headings, tuple(headings[1:-1]), (first,), lines, [first, "min", "max", "last", "currency"], wide,
                give_way=["min", "max"], rest=["median", "first", "changes"], shows="--wide, --format csv")
    window = f"since {result.since.isoformat(timespec='minutes')}" if result.since else "everything kept"
    print(f"{len(result.series)} of {len(shown)} series, {window}, from {result.snapshots} snapshot"
          f"{'' if result.snapshots == 1 else 's'}",
          file=sys.stderr)
    if not result.series:
        print("no price history matches (history starts with the first stored snapshot of each provider)",
              file=sys.stderr)
    elif not any(len(s.window(result.since)) > 1 for s in shown):  # a new store: one price per series so far
        print("no price has changed in this window: each series holds one price so far; history grows with each "
              "refresh of the store (gpuhub search --refresh, e.g. from a cron job)", file=sys.stderr)
    if plot and result.series:
        from gpuhub.history.chart import render_terminal

        sys.stdout.write(render_terminal(result.series, result.since) + "\n")
    if chart is not None and result.series:
        from gpuhub.history.chart import render_file

        print(f"chart written to {render_file(result.series, result.since, chart)}", file=sys.stderr)


def _print_diff(report: DiffReport, limit: int | None, wide: bool) -> None:
    headings = ["change", "provider", "instance type", "region", "purchase", "GPU", "old/h", "new/h", "%"]
    changes = report.changes[:limit] if limit else report.changes
    rows = []
    for c in changes:
        o = c.offer
        rows.append([c.kind, str(o["provider"]), str(o["instance_type"]),
                     str(o["region"]) + (f" ({o['zone']})" if o.get("zone") else ""), str(o["purchase"]),
                     str(o.get("gpu_name") or "-"), _money(c.old_price), _money(c.new_price), _percent(c.change_pct)])
    # the offer and its prices stay; a terminal too narrow for its names whole gives up the change and the %
    # (the prices say both), then the region; the GPU while there is room. An instance type folds, as the search's.
    if changes:
        _fitted(headings, ("old/h", "new/h", "%"), ("change", "provider", "region", "purchase", "GPU"), rows,
                [h for h in headings if h != "GPU"], wide, give_way=["change", "%", "region"],
                shows="--wide, --format json", fold=("instance type",))
    out = sys.stderr
    if len(changes) < len(report.changes):
        print(f"showing {len(changes)} of {len(report.changes)} changes (--limit)", file=out)
    counts = report.counts()
    print(f"{counts['down']} cheaper, {counts['up']} dearer, {counts['new']} new, {counts['gone']} gone, "
          f"{counts['unchanged']} unchanged", file=out)
    for label, found in (("regions appeared", report.regions_appeared), ("regions gone", report.regions_gone),
                         ("GPU types appeared", report.gpus_appeared), ("GPU types gone", report.gpus_gone)):
        for name, values in sorted(found.items()):
            print(f"{name}: {label}: {', '.join(values)}", file=out)
    for side in report.status_changes:
        print(f"{side.provider}: status {side.old_state or 'none'} -> {side.new_state or 'none'}"
              + (f" ({side.new_reason})" if side.new_reason else ""), file=out)
    for side in report.sides:
        if side.new is None:
            print(f"{side.provider}: no good snapshot to compare", file=out)
        elif side.old is None:
            print(f"{side.provider}: only one good snapshot (#{side.new.id}); every offer counts as new", file=out)


def diff(
    old: Annotated[str | None, typer.Argument(help="snapshot id, or a time: 1d, 2026-11-30 (default: the "
                                                   "snapshot before NEW)")] = None,
    new: Annotated[str | None, typer.Argument(help="snapshot id or a time (default: the newest)")] = None,
    instance_type: InstanceTypes = None,
    gpu: Gpus = None,
    provider: Providers = None,
    region: Regions = None,
    purchase: Purchases = None,
    limit: Annotated[int | None, typer.Option(metavar="COUNT", help="at most this many change rows in the table")] = 50,
    output: Annotated[DiffFormat, typer.Option("--format", "-f", help="table or json")] = DiffFormat.table,
    wide: WideOption = False,
) -> None:
    """What changed between two snapshots of each provider: prices up/down with %, offers new/gone, regions and
    GPU types that appeared, providers whose status changed."""
    from gpuhub.history import diff as run_diff
    from gpuhub.history import make_filter

    with _opened_store() as store:
        offer_filter = make_filter(instance_type=instance_type, gpu=gpu, provider=_known_providers(store, provider),
                                   region=region, purchase=purchase)
        report = run_diff(old, new, store=store, provider=offer_filter.providers or None, offer_filter=offer_filter)
    if output is DiffFormat.json:
        sys.stdout.write(json.dumps(report.to_dict(), indent=2) + "\n")
        return
    _print_diff(report, limit, wide)


def watch(
    drop: Annotated[str | None, typer.Option(
        metavar="PERCENT", help="match a price that fell by at least this much: 10%")] = None,
    rise: Annotated[str | None, typer.Option(
        metavar="PERCENT", help="match a price that rose by at least this much: 10%")] = None,
    below: Annotated[str | None, typer.Option(
        metavar="AMOUNT", help="match an offer whose price went below this per hour: 2.00")]
    = None,
    new_gpu: Annotated[list[str] | None, typer.Option(
        metavar="NAME", help="match a GPU type that appeared (repeatable; '*' any)")]
    = None,
    new_offers: Annotated[bool, typer.Option("--new-offers", help="match any new offer")] = False,
    gone_offers: Annotated[bool, typer.Option("--gone-offers", help="match any offer that went away")] = False,
    provider_failed: Annotated[bool, typer.Option("--provider-failed", help="match a provider turning "
                                                                            "failed/stale")] = False,
    old: Annotated[str | None, typer.Option(
        metavar="SNAPSHOT", help="compare from: snapshot id or time (default: the snapshot "
                                 "before the newest)")] = None,
    new: Annotated[str | None, typer.Option(
        metavar="SNAPSHOT", help="compare to: snapshot id or time (default: the newest)")] = None,
    instance_type: InstanceTypes = None,
    gpu: Gpus = None,
    provider: Providers = None,
    region: Regions = None,
    purchase: Purchases = None,
) -> None:
    """For cron and CI: exit 1 when a threshold matched (JSON report on stdout), 0 when nothing did, 2 on bad
    arguments or an unreadable store."""
    from gpuhub.errors import QueryError
    from gpuhub.history import WatchRules, parse_amount, parse_percent
    from gpuhub.history import watch as run_watch

    try:
        rules = WatchRules(drop_pct=parse_percent("drop", drop), rise_pct=parse_percent("rise", rise),
                           below=parse_amount("below", below), new_gpu=tuple(new_gpu or ()), new_offers=new_offers,
                           gone_offers=gone_offers, provider_failed=provider_failed)
    except QueryError as exc:
        _err(f"--{exc.argument}: {exc.detail}")
        return
    if rules == WatchRules():
        _err("give at least one threshold: --drop 10%, --rise 10%, --below 2.00, --new-gpu B300, --new-offers, "
             "--gone-offers or --provider-failed")
    with _opened_store() as store:
        report = run_watch(rules, old=old, new=new, instance_type=instance_type, gpu=gpu,
                           provider=_known_providers(store, provider), region=region, purchase=purchase, store=store)
    sys.stdout.write(json.dumps(report.to_dict(), indent=2) + "\n")
    for side in report.report.sides:
        if side.old is None and side.new is not None:
            print(f"{side.provider}: only one good snapshot (#{side.new.id}): nothing to compare with yet",
                  file=sys.stderr)
    print(f"watch: {len(report.matches)} matches" if report.matched else "watch: nothing matched", file=sys.stderr)
    raise typer.Exit(1 if report.matched else 0)


@catalog_app.command("publish")
def catalog_publish(
    destination: Annotated[str, typer.Argument(help="a directory or s3://bucket/prefix")],
    provider: Annotated[list[str] | None, typer.Option("--provider", "-p", metavar="NAME",
                                                       help="only these providers")] = None,
    max_loss: Annotated[str, typer.Option(
        metavar="PERCENT", help="largest share of a provider's offers that may go since the last "
                                "catalog")] = "20%",
    allow_unknown_gpu: Annotated[list[str] | None, typer.Option(
        metavar="NAME", help="a GPU name the GPU table does not know, "
                             "checked and allowed (repeatable)")] = None,
    refresh: Annotated[bool, typer.Option(help="refresh every provider into the store first (--no-refresh: "
                                               "publish what is stored)")] = True,
    fetch: Annotated[str, typer.Option(metavar="MODE", help="how the refresh fetches: auto, live or replay")] = "auto",
    sign_key: Annotated[Path | None, typer.Option(
        metavar="FILE", help="sign the catalog with this Ed25519 private key (made by "
                             "'gpuhub catalog keygen'); readers that set "
                             "GPUHUB_CATALOG_PUBLIC_KEY require it")] = None,
) -> None:
    """Publish the newest good snapshot of every provider (manifest with checksums + data files); integrity checks
    run first and a failed check publishes nothing (exit 1)."""
    from gpuhub.fetch.plugins import get_registry
    from gpuhub.history import parse_percent
    from gpuhub.publish import CatalogCheckError, publish
    from gpuhub.publish.remote import TargetError
    from gpuhub.publish.signing import SigningError, SigningKey, load_signing_key
    from gpuhub.store import StoreError

    try:
        loss = (parse_percent("max_loss", max_loss) or 0) / 100
    except Exception as exc:
        _err(f"--max-loss: {exc}")
        return
    if fetch not in ("auto", "live", "replay"):
        _err(f"--fetch: {fetch!r} is not allowed; allowed values: auto, live, replay")
    key: SigningKey | None = None
    if sign_key is not None:  # before any refresh: a bad key fails at once
        try:
            key = load_signing_key(sign_key)
        except SigningError as exc:
            _err(f"--sign-key: {exc}")
    from gpuhub.service.searching import default_engine

    engine = default_engine()
    chosen = provider
    if not provider:  # an example recording (demo clusters) is published only when named or live
        examples = [n for n, p in sorted(engine.registry.providers.items())
                    if p.example_recording and not p.credentials_configured(engine.environ)]
        for name in examples:
            print(f"{name}: left out: its bundled data is an example, not offers to rent (--provider {name} "
                  "publishes it)", file=sys.stderr)
        chosen = [n for n in sorted(engine.registry.providers) if n not in examples] if examples else None
    if refresh:
        names = list(chosen or sorted(engine.registry.providers))
        unknown = [n for n in names if n not in engine.registry.providers]
        if unknown:
            _err(f"--provider: unknown {', '.join(unknown)}; allowed: {', '.join(sorted(engine.registry.providers))}")
        for _, status in engine.collect(names, mode=fetch):  # type: ignore[arg-type]
            print(plain(status.line()), file=sys.stderr)
    store = _store()
    try:
        report = publish(destination, store, providers=chosen, max_loss=loss,
                         allow_unknown_gpus=allow_unknown_gpu or (), gpus=get_registry().gpus, sign_with=key)
    except CatalogCheckError as exc:
        for problem in exc.problems:
            print(plain(f"check failed: {problem}"), file=sys.stderr)
        print("nothing was published", file=sys.stderr)
        raise typer.Exit(1) from None
    except (TargetError, StoreError, ValueError) as exc:
        _err(str(exc))
        return
    finally:
        _close(store)
    sys.stdout.write(json.dumps(report.to_dict(), indent=2) + "\n")
    print(f"published catalog version {report.version} to {report.location}: {len(report.providers)} providers, "
          f"{report.files} files, {report.bytes} bytes"
          + (f", signed by key {report.signed_by}" if report.signed_by else ""), file=sys.stderr)


@catalog_app.command("keygen")
def catalog_keygen(
    path: Annotated[Path, typer.Argument(help="where to write the private key (the public key goes to PATH.pub)")],
) -> None:
    """Make an Ed25519 key pair for signing catalogs: the private key (PEM, readable by you only) in PATH for
    'catalog publish --sign-key PATH', the public key in PATH.pub for readers' GPUHUB_CATALOG_PUBLIC_KEY."""
    from gpuhub.publish.signing import SigningError, generate_key_pair

    try:
        key = generate_key_pair(path)
    except SigningError as exc:
        _err(f"PATH: {exc}")
        return
    sys.stdout.write(key.public.text + "\n")
    print(f"private key: {path} (keep it secret; publish with --sign-key {path})\npublic key: {path}.pub, key id "
          f"{key.public.key_id} (readers: export GPUHUB_CATALOG_PUBLIC_KEY=$(cat {path}.pub))", file=sys.stderr)


@catalog_app.command("show")
def catalog_show(
    url: Annotated[str | None, typer.Argument(help="a directory, https:// or s3:// (default: GPUHUB_CATALOG_URL)")]
    = None,
    allow_rollback: Annotated[bool, typer.Option(help="accept a catalog older than the version already read")]
    = False,
) -> None:
    """Fetch (ETag-aware) and verify a published catalog; print its version and providers."""
    import os

    from gpuhub.publish import fetch_catalog
    from gpuhub.publish.remote import TargetError

    where = url or os.environ.get("GPUHUB_CATALOG_URL", "").strip()
    if not where:
        _err("give a catalog URL or set GPUHUB_CATALOG_URL")
    try:
        fetched = fetch_catalog(where, allow_rollback=allow_rollback)
    except TargetError as exc:
        _err(str(exc), 1)
        return
    rows = {name: {**{k: entry.get(k) for k in ("offers", "fetched_at", "data_date", "source_kind")},
                   "state": (entry.get("status") or {}).get("state")}
            for name, entry in fetched.manifest["providers"].items()}
    signed = fetched.manifest.get("signed_by") or {}
    sys.stdout.write(json.dumps({"url": where, "version": fetched.version, "state": fetched.state,
                                 "reason": fetched.reason, "published_at": fetched.manifest.get("published_at"),
                                 "signed_by": signed.get("key_id"), "signature_verified": fetched.signed_by is not None,
                                 "providers": rows}, indent=2) + "\n")


def register(app: typer.Typer) -> None:
    """Add history, diff, watch and the catalog group to the ``gpuhub`` app."""
    app.command()(history)
    app.command()(diff)
    app.command()(watch)
    app.add_typer(catalog_app, name="catalog")
