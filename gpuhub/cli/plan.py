"""``gpuhub plan commitments|follow-the-sun|arbitrage``: planning beyond one search (:mod:`gpuhub.service.planning`).

Light at import (typer only); the planning code is imported when a command runs.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from gpuhub.cli.options import FetchOption, FixturesOption

__all__ = ["plan_app"]

plan_app = typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                       help="Plan beyond one search: commitments over months, follow-the-sun, regional arbitrage.")

Fmt = Annotated[str, typer.Option("--format", "-f", metavar="<table|json|csv>", help="table, json or csv")]
Explain = Annotated[bool, typer.Option("--explain", help="show the arithmetic of every number")]


def _run(output: str, fetch: str, work: Callable[[], Any]) -> Any:
    """Check the common options, run ``work``; a bad argument ends with its option named (exit 2)."""
    from gpuhub.answer.spec import cli_option
    from gpuhub.errors import QueryError

    try:
        if output not in ("table", "json", "csv"):
            raise QueryError("format", f"{output!r} is not allowed; allowed values: table, json, csv")
        if fetch not in ("auto", "live", "replay"):
            raise QueryError("fetch", f"{fetch!r} is not allowed; allowed values: auto, live, replay")
        return work()
    except QueryError as exc:
        from gpuhub.cli.table import TextConsole

        TextConsole(stderr=True, soft_wrap=True).print(f"error: {cli_option(exc.argument)}: {exc.detail}",
                                                       style="red")
        raise typer.Exit(2) from None


def _table(columns: list[str], rows: list[list[str]], core: list[str], give_way: list[str],
           right: tuple[str, ...]) -> None:
    """Print a plan's table with the columns that fit the terminal (:func:`gpuhub.cli.table.print_fitted`): ``core``
    always unless even their narrowest do not fit (then ``give_way``, first to last), the rest while they fit, in
    their given order; ``right``: the right-justified columns (figures). Every cell wraps only between words (a
    figure has none: never cut), an instance type anywhere."""
    from gpuhub.cli.plaintext import PlainTable
    from gpuhub.cli.process import err
    from gpuhub.cli.table import cells, print_fitted, stdout_console

    table = PlainTable(columns, [c in right for c in columns],
                       ["fold" if c == "instance type" else "words" for c in columns])
    for r in rows:
        table.add_row(*cells(*r))  # cells are data: text, control characters escaped
    print_fitted(table, core, stdout_console(), err, give_way=give_way, shows="--format csv")


def _csv(rows: list[dict[str, Any]]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    sys.stdout.write(buffer.getvalue())


def _say(lines: list[str]) -> None:
    for line in lines:
        typer.echo(line)


def _price(value: Any) -> str:
    """A price per hour by the printing rule (:func:`gpuhub.display.money`: 0.8081, not 0.80806)."""
    from gpuhub.display import money

    return money(value)


def _m(value: Any) -> str:
    from gpuhub.answer.planning.text import money_text

    return money_text(value)


@plan_app.command()
def commitments(
    gpu: Annotated[str, typer.Option(metavar="NAME", help="the GPU needed, e.g. H100")],
    gpus: Annotated[float | None, typer.Option(
        metavar="COUNT", help="GPUs needed at once (with --hours-per-day, --days-per-week)")]
    = None,
    hours_per_day: Annotated[float, typer.Option(
        metavar="HOURS", help="hours a day the GPUs are used, 0.25 to 24")] = 24.0,
    days_per_week: Annotated[int, typer.Option(metavar="DAYS", help="days a week the GPUs are used, 1 to 7")] = 7,
    months: Annotated[int, typer.Option(metavar="MONTHS", help="the plan's length, 1 to 36 months")] = 12,
    profile: Annotated[Path | None, typer.Option(
        metavar="FILE", help="file of GPUs per hour of the week (hour,gpus; hour 0 = "
                             "Monday 00:00 UTC) instead of --gpus")] = None,
    gpus_per_instance: Annotated[float | None, typer.Option(
        metavar="COUNT", help="GPUs per instance bought (default: the "
                              "smallest size holding min(peak, 8))")] = None,
    region: Annotated[list[str] | None, typer.Option(
        metavar="CODE", help="region code(s); default every region")] = None,
    provider: Annotated[list[str] | None, typer.Option(metavar="NAME", help="provider(s); default every one")] = None,
    near: Annotated[str | None, typer.Option(
        metavar="PLACE", help="a place: keep regions near it (with --max-rtt)")] = None,
    max_rtt: Annotated[float | None, typer.Option(metavar="MS", help="largest round trip from --near, ms")] = None,
    interruptible: Annotated[bool, typer.Option(help="the work survives interruptions: spot may serve it")]
    = False,
    checkpoint_every: Annotated[float, typer.Option(
        metavar="HOURS", help="hours between checkpoints: spot expected cost")] = 1.0,
    explain: Explain = False, output: Fmt = "table", fixtures: FixturesOption = None, fetch: FetchOption = "auto",
) -> None:
    """The cheapest mix of purchase models for a usage profile over months, each alternative's total a month, the
    break-even points and what the plan assumes."""
    from gpuhub.answer.planning.records import commit_record
    from gpuhub.answer.planning.text import commit_text
    from gpuhub.service.planning import plan

    result = _run(output, fetch, lambda: plan.commitments(
        gpu, gpus=gpus, hours_per_day=hours_per_day, days_per_week=days_per_week, months=months, profile=profile,
        gpus_per_instance=gpus_per_instance, region=region, provider=provider, near=near, max_rtt=max_rtt,
        interruptible=interruptible, checkpoint_every=checkpoint_every, fixtures_dir=fixtures,
        fetch=fetch))  # type: ignore[arg-type]
    record = commit_record(result)
    if output == "json":
        sys.stdout.write(json.dumps(record, indent=2) + "\n")
        return
    if output == "csv":
        _csv(record["rows"])
        return
    _table(["option", "purchase", "provider", "region", "instance type", "instances", "h/month", "per hour",
            "per month USD"],
           [[r["option"], r["purchase"], r["provider"] or "", r["region"] or "", r["instance_type"] or "",
             str(r["instances"]), f"{r['hours_per_month']:.2f}",
             "" if r["price_per_hour"] is None else _price(r["price_per_hour"]), _m(r["cost_per_month"])]
            for r in record["rows"]],
           ["option", "purchase", "provider", "region", "instance type", "instances", "per month USD"],
           ["instance type", "region", "provider"], ("instances", "h/month", "per hour", "per month USD"))
    lines, arithmetic = commit_text(result, record)
    _say(lines + (arithmetic if explain else []))


@plan_app.command("follow-the-sun")
def follow_the_sun(
    gpu: Annotated[str, typer.Option(metavar="NAME", help="the GPU every team needs, e.g. H100")],
    team: Annotated[list[str], typer.Option(
        metavar="TEAM", help="a team: name=..,tz=Asia/Tokyo (or place=Tokyo),hours=9-17,"
                             "days=mon-fri,gpus=8 (repeat for each team)")],
    months: Annotated[int, typer.Option(metavar="MONTHS", help="the plan's length, 1 to 36 months")] = 12,
    max_rtt: Annotated[float, typer.Option(
        metavar="MS", help="latency budget: the largest round trip from any team to the shared "
                           "cluster, ms")] = 150.0,
    near_rtt: Annotated[float, typer.Option(
        metavar="MS", help="the largest round trip to a cluster near a team (one per team, "
                           "per-day rental), ms")] = 50.0,
    week: Annotated[str | None, typer.Option(
        metavar="DATE", help="reference week (a Monday, ISO date) whose daylight saving "
                             "time applies; default this week")] = None,
    gpus_per_instance: Annotated[float | None, typer.Option(metavar="COUNT", help="GPUs per instance bought")] = None,
    provider: Annotated[list[str] | None, typer.Option(metavar="NAME", help="provider(s); default every one")] = None,
    interruptible: Annotated[bool, typer.Option(help="the work survives interruptions: spot may serve it")]
    = False,
    explain: Explain = False, output: Fmt = "table", fixtures: FixturesOption = None, fetch: FetchOption = "auto",
) -> None:
    """One shared cluster used in turn, one cluster per team, or rental per working day: utilization, latency from
    each team, cost and carbon a month, and the best shared region within the latency budget."""
    from gpuhub.answer.planning.records import sun_record
    from gpuhub.answer.planning.text import sun_text
    from gpuhub.errors import QueryError
    from gpuhub.service.planning import plan

    def work() -> Any:
        monday = None
        if week is not None:
            try:
                monday = dt.date.fromisoformat(week)
            except ValueError:
                raise QueryError("week", f"{week!r} is not an ISO date; give a Monday such as 2027-01-04") from None
        return plan.follow_the_sun(gpu, team, months=months, max_rtt=max_rtt, near_rtt=near_rtt, week=monday,
                                   gpus_per_instance=gpus_per_instance, provider=provider,
                                   interruptible=interruptible, fixtures_dir=fixtures,
                                   fetch=fetch)  # type: ignore[arg-type]

    result = _run(output, fetch, work)
    record = sun_record(result)
    if output == "json":
        sys.stdout.write(json.dumps(record, indent=2) + "\n")
        return
    if output == "csv":
        _csv([{k: v for k, v in r.items() if k != "how"} for r in record["rows"]])
        return
    _table(["option", "teams", "region", "GPUs", "bought as", "use (working days)", "use (week)", "RTT ms",
            "per month USD", "kg CO2e/month"],
           [[r["option"], r["teams"], f"{r['provider']}:{r['region']}", f"{r['gpus']:g}", r["purchase"],
             f"{r['utilization_working_days']:.0%}", f"{r['utilization_week']:.0%}", r["rtt_ms"],
             _m(r["cost_per_month"]), "-" if r["carbon_kg_per_month"] is None else f"{r['carbon_kg_per_month']:,.0f}"]
            for r in record["rows"]],
           ["option", "teams", "region", "bought as", "per month USD"], [],
           ("GPUs", "use (working days)", "use (week)", "per month USD", "kg CO2e/month"))
    lines, arithmetic = sun_text(result, record)
    _say(lines + (arithmetic if explain else []))


@plan_app.command()
def arbitrage(
    instance_type: Annotated[str | None, typer.Option(metavar="TYPE", help="instance type, e.g. p5.48xlarge")] = None,
    gpu: Annotated[str | None, typer.Option(metavar="NAME", help="or a GPU (with --gpus-per-instance)")] = None,
    gpus_per_instance: Annotated[float | None, typer.Option(
        metavar="COUNT", help="GPUs per instance, with --gpu")] = None,
    gpus: Annotated[float | None, typer.Option(
        metavar="COUNT", help="GPUs used at once (default one instance)")] = None,
    hours_per_day: Annotated[float, typer.Option(metavar="HOURS", help="hours a day used, 0.25 to 24")] = 24.0,
    days_per_week: Annotated[int, typer.Option(metavar="DAYS", help="days a week used, 1 to 7")] = 7,
    purchase: Annotated[str, typer.Option(
        metavar="MODEL", help="purchase model compared: on_demand, spot, ...")] = "on_demand",
    move_from: Annotated[str | None, typer.Option("--from", metavar="PLACE", help="where you run now: provider:region "
                                                                                 "or a region code; default the "
                                                                                 "dearest place")] = None,
    provider: Annotated[list[str] | None, typer.Option(metavar="NAME", help="provider(s); default every one")] = None,
    since: Annotated[str | None, typer.Option(
        metavar="WINDOW", help="history window from the store (30d, 2026-11-01): each "
                               "place's min/median/max price")] = None,
    limit: Annotated[int, typer.Option(metavar="COUNT", help="places shown (cheapest first), 0 for all")] = 10,
    explain: Explain = False, output: Fmt = "table", fixtures: FixturesOption = None, fetch: FetchOption = "auto",
) -> None:
    """An instance type's (or GPU's) price spread across regions and providers, and what moving saves a month."""
    from gpuhub.answer.planning.records import arbitrage_record
    from gpuhub.answer.planning.text import arbitrage_text
    from gpuhub.errors import QueryError
    from gpuhub.service.planning import plan

    def work() -> Any:
        if limit < 0:
            raise QueryError("limit", f"must be 0 (all) or more, got {limit}")
        return plan.arbitrage(instance_type=instance_type, gpu=gpu, gpus_per_instance=gpus_per_instance,
                              gpus=gpus, hours_per_day=hours_per_day, days_per_week=days_per_week,
                              purchase=purchase, move_from=move_from, provider=provider, since=since,
                              fixtures_dir=fixtures, fetch=fetch)  # type: ignore[arg-type]

    result = _run(output, fetch, work)
    record = arbitrage_record(result)
    rows = record["places"]
    if output == "json":
        sys.stdout.write(json.dumps(record, indent=2) + "\n")
        return
    if output == "csv":
        _csv(rows)
        return
    shown = rows if limit == 0 else rows[:limit] + [r for r in rows[limit:] if r["reference"]]
    history = since is not None
    columns = ["provider", "region", "instance type", "per hour", "per month USD", "saving/month"]
    columns += ["median/h in window", "saving at median"] if history else []
    _table(columns, [[r["provider"] + (" (from)" if r["reference"] else ""), r["region"], r["instance_type"],
                      _price(r["price_per_hour"]), _m(r["cost_per_month"]), _m(r["saving_per_month"])]
                     + ([_price(r["median_price_per_hour"]) if r["median_price_per_hour"] is not None else "-",
                         _m(r["saving_at_median"])] if history else []) for r in shown],
           columns[:6], ["instance type"], tuple(columns[3:]))
    lines, arithmetic = arbitrage_text(result, record, [f"{r['provider']}:{r['region']}" for r in shown])
    _say(lines + (arithmetic if explain else []))
