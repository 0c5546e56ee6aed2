"""The ``gpuhub`` command line: search, plugins, providers, gpus, record (plugins may add more).

Exit codes: 0 success (even when some providers failed: their status is on stderr), 1 nothing could be fetched,
2 bad arguments.
"""

from __future__ import annotations

import csv
import functools
import inspect
import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gpuhub.answer.spec import SEARCH_PARAMS, cli_option
from gpuhub.cli._lazy import lazy
from gpuhub.cli.options import FetchOption, FixturesOption, WideOption
from gpuhub.cli.process import err
from gpuhub.cli.process import load_registry as _load_registry
from gpuhub.cli.search import EmitFormat, OutputFormat, run_search, split_values
from gpuhub.cli.search import check_emit as _check_emit
from gpuhub.cli.search import emit_offer as _emit
from gpuhub.errors import PluginError, QueryError

if TYPE_CHECKING:
    from rich.table import Table

    from gpuhub.cli.table import TextConsole
    from gpuhub.fetch.plugins import Registry, get_registry, reset_registry
    from gpuhub.model import Offer
    from gpuhub.service.searching import default_engine
else:  # imported on first use: `gpuhub --version`, `--help` and `store` never load numpy, pydantic or httpx
    Table = lazy("rich.table", "Table")
    Registry, get_registry = lazy("gpuhub.fetch.plugins", "Registry"), lazy("gpuhub.fetch.plugins", "get_registry")
    reset_registry = lazy("gpuhub.fetch.plugins", "reset_registry")
    default_engine = lazy("gpuhub.service.searching", "default_engine")

_APP_SETTINGS: dict[str, Any] = {"add_completion": False, "no_args_is_help": True, "pretty_exceptions_enable": False,
                                 "rich_markup_mode": None,
                                 "help": "Find and price cloud GPU instances across providers."}
app = typer.Typer(**_APP_SETTINGS)


def _version(value: bool) -> None:
    if value:
        from gpuhub._version import __version__

        typer.echo(f"gpuhub {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="print the version and exit")] = False) -> None:
    """Find and price cloud GPU instances across providers."""


def _out() -> TextConsole:
    """stdout console (:func:`gpuhub.cli.table.stdout_console`): cells are data, never markup or emoji codes."""
    from gpuhub.cli.table import stdout_console

    return stdout_console()


def _fail_usage(message: str) -> None:
    from gpuhub.cli.process import fail_usage

    fail_usage(message)


_OPTION_TYPES: dict[str, Any] = {"list": list[str] | None, "number": float | None, "integer": int | None,
                                 "text": str | None, "flag": bool}
"""The typer type of each kind of search parameter (:data:`gpuhub.answer.spec.Kind`)."""


EmitOption = Annotated[EmitFormat | None, typer.Option(
    help="write a launch file for the first offer: a SkyPilot task, a dstack task or fleet")]
EmitFileOption = Annotated[Path | None, typer.Option(
    metavar="FILE",
    help="where --emit writes (default sky-task.yaml, task.dstack.yml, fleet.dstack.yml; - for stdout)")]


def _with_search_options(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` with one option per search parameter (:data:`gpuhub.answer.spec.SEARCH_PARAMS`, in its order)
    before its own options; ``command`` gets the filters' values in its first argument, ``filters`` (by parameter
    name, an inverted flag such as ``--all-regions`` turned back into its argument, ``distinct``), and the output
    parameters' (``columns``, ``wide``) in its second, ``shown``."""
    own = [p for p in inspect.signature(command, eval_str=True).parameters.values()
           if p.name not in ("filters", "shown")]
    options = [inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=p.flag_default, annotation=Annotated[
        _OPTION_TYPES[p.kind], typer.Option(p.option, *([p.short] if p.short else []), metavar=p.metavar,
                                            help=p.help)])
        for p in SEARCH_PARAMS]

    @functools.wraps(command)
    def run(**values: Any) -> None:
        filters, shown, own = split_values(values)
        command(filters, shown, **own)

    signature = inspect.Signature([*options, *(p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own)])
    run.__signature__ = signature  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
    return run


@app.command()
@_with_search_options
def search(
    filters: dict[str, Any],
    shown: dict[str, Any],
    explain: Annotated[bool, typer.Option("--explain", help="say why each offer ranks and what filters removed")]
    = False,
    fixtures: FixturesOption = None,
    fetch: FetchOption = "auto",
    refresh: Annotated[bool, typer.Option(help="fetch again, ignoring stored and cached data")] = False,
    max_age: Annotated[str | None, typer.Option(
        metavar="DURATION", help="how old stored live data may be: 600, 15min, 2h (default 1 h, spot 10 min); also "
                                 "each offer's price date (30d)")] = None,
    timeout: Annotated[float | None, typer.Option(metavar="SECONDS", help="seconds to wait for providers")] = None,
    output: Annotated[OutputFormat, typer.Option("--format", "-f", help="table, json or csv")] = OutputFormat.table,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="one status line per provider, with its "
                                          "warnings (default: one summary line)")] = False,
    emit: EmitOption = None,
    emit_file: EmitFileOption = None,
) -> None:
    """Search GPU offers across every installed provider."""
    run_search(filters, shown, explain=explain, fixtures=fixtures, fetch=fetch, refresh=refresh, max_age=max_age,
               timeout=timeout, output=output, verbose=verbose, emit=emit, emit_file=emit_file)


def _num(value: Any) -> str:
    from gpuhub.cli.table import num

    return num(value)


def _price(value: Any) -> str:
    from gpuhub.cli.table import price

    return price(value)


def _money(value: Any) -> str:
    from gpuhub.display import published

    return published(value)


def _cells(*values: Any) -> list[str]:
    from gpuhub.cli.table import cells

    return cells(*values)


def _plain(text: Any, newlines: bool = False) -> str:
    from gpuhub.display import plain

    return plain(text, newlines=newlines)


def _write_csv(records: list[dict[str, Any]], fields: list[str]) -> None:
    from gpuhub.cli.table import write_csv

    write_csv(records, fields)


@app.command()
def plugins(output: Annotated[OutputFormat, typer.Option("--format", "-f")] = OutputFormat.table,
            wide: WideOption = False) -> None:
    """List plugins with their status, version, providers and any error with its fix."""
    try:
        reports = get_registry().reports
    except PluginError:
        reports = Registry(strict=False).reports  # strict mode refuses to load; the report still shows why
    if output is OutputFormat.json:
        sys.stdout.write(json.dumps([r.to_dict() for r in reports], indent=2) + "\n")
        return
    from gpuhub.cli.plaintext import PlainTable

    # an error and its fix wrap (a path or URL in them folds); the distribution gives way first, then the version
    table = PlainTable(["plugin", "distribution", "version", "status", "providers", "error / fix"],
                       [False] * 6, ["words", "words", "whole", "words", "words", "fold"])
    for r in reports:
        problem = "\n".join([*([r.error] if r.error else []), *([f"fix: {r.fix}"] if r.fix else []),
                             *(f"warning: {w}" for w in r.warnings)])
        table.add_row(*_cells(r.name, r.distribution or "-", r.version or "-", r.status, ", ".join(r.providers)),
                      _plain(problem, newlines=True))  # a plugin's error text: text, control characters escaped
    _fitted(table, ["plugin", "status", "providers", "error / fix"], wide, rest=["version", "distribution"])


def _fitted(table: Any, core: list[str], wide: bool, **kwargs: Any) -> None:
    """Print ``table`` with the columns that fit the terminal (:func:`gpuhub.cli.table.print_fitted`)."""
    from gpuhub.cli.table import print_fitted

    print_fitted(table, core, _out(), err, wide=wide, **kwargs)


@app.command()
def providers(output: Annotated[OutputFormat, typer.Option("--format", "-f")] = OutputFormat.table,
              wide: WideOption = False) -> None:
    """List providers: kind, plugin, and whether a search would go live or replay a recording."""
    from gpuhub.service.reports import provider_rows

    rows = provider_rows(default_engine())
    if output is OutputFormat.json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    from gpuhub.cli.plaintext import PlainTable

    columns = ("provider", "kind", "plugin", "credentials", "data")
    # where the data comes from wraps (a recording's path folds); kind, then plugin, give way
    table = PlainTable(list(columns), [False] * 5, ["words", "words", "words", "words", "fold"])
    for row in rows:
        table.add_row(*_cells(*(row[c] for c in columns)))
    _fitted(table, ["provider", "credentials", "data"], wide)


@app.command()
def gpus(output: Annotated[OutputFormat, typer.Option("--format", "-f")] = OutputFormat.table,
         wide: WideOption = False) -> None:
    """List the GPU table: canonical names, memory, form factors, dense BF16/FP64 TFLOPS, CUDA compute capability,
    FP8, MIG, the CUDA releases that support each GPU and their minimum driver, aliases."""
    from gpuhub.service.reports import gpu_rows

    rows = gpu_rows(get_registry().gpus)
    if output is OutputFormat.json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    if output is OutputFormat.csv:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]) if rows else ["name"], lineterminator="\n")
        writer.writeheader()
        writer.writerows({**r, "aliases": "|".join(r["aliases"])} for r in rows)
        sys.stdout.write(buffer.getvalue())
        return
    from gpuhub.cli.plaintext import PlainTable

    headings = ["name", "vendor", "form", "GiB", "BF16 TFLOPS", "FP64 TFLOPS", "CC", "FP8", "MIG", "CUDA", "aliases"]
    numbers = ("GiB", "BF16 TFLOPS", "FP64 TFLOPS")
    # numbers, versions and yes/no are never cut; a name or an alias list wraps between words
    table = PlainTable(headings, [h in numbers for h in headings],
                       ["words" if h in ("name", "vendor", "form", "aliases") else "whole" for h in headings])
    yes_no = {True: "yes", False: "no", None: "-"}
    for r in rows:
        table.add_row(*_cells(r["name"], str(r["vendor"]), str(r["form_factor"]), _num(r["memory_gib"]),
                      _num(r["bf16_tflops"]), _num(r["fp64_tflops"]), r["compute_capability"] or "-",
                      yes_no[r["fp8"]], yes_no[r["mig"]], r["cuda"] or "-", ", ".join(r["aliases"])))
    # a GPU is its name, form (an H100 SXM and an H100 PCIe differ) and memory, and what it does for training
    _fitted(table, ["name", "form", "GiB", "BF16 TFLOPS"], wide,
            rest=["CUDA", "CC", "FP8", "FP64 TFLOPS", "MIG", "vendor", "aliases"], shows="--wide, --format csv")


@app.command()
def rankers(output: Annotated[OutputFormat, typer.Option("--format", "-f")] = OutputFormat.table) -> None:
    """List rankers (sort= and workload= values): name, unit and formula."""
    rows = [{"name": r.name, "unit": r.unit, "formula": r.description} for r in get_registry().rankers.values()]
    if output is OutputFormat.json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    table = Table(show_edge=False, header_style="bold")
    for column in ("name", "unit", "formula"):
        table.add_column(column)
    for row in rows:
        table.add_row(*_cells(row["name"], row["unit"], row["formula"]))
    _out().print(table)


@app.command()
def estimate(
    instance_type: Annotated[str, typer.Option(metavar="TYPE", help="instance type, e.g. p5.48xlarge")],
    hours: Annotated[float, typer.Option(metavar="HOURS", help="run time the job needs, hours")],
    provider: Annotated[str | None, typer.Option(metavar="NAME", help="provider name")] = None,
    region: Annotated[list[str] | None, typer.Option(
        metavar="CODE", help="region or zone code(s); default: every region")] = None,
    purchase: Annotated[str, typer.Option(metavar="MODEL", help="on_demand, spot, reserved_1y, ...")] = "on_demand",
    interruption_overhead: Annotated[float, typer.Option(
        metavar="FRACTION", help="spot: extra run time fraction when the interruption risk is unknown")] = 0.10,
    compare: Annotated[bool, typer.Option("--compare", help="every purchase model (on-demand, spot with expected "
                                          "cost, capacity blocks, reserved), cheapest first, with break-even hours")]
    = False,
    checkpoint_every: Annotated[float, typer.Option(
        metavar="HOURS", help="hours between checkpoints: spot expected cost")] = 1.0,
    egress_gb: Annotated[float | None, typer.Option(
        metavar="GB", help="GB the job moves out to the internet: its cost is added "
                           "where the provider publishes an egress price")] = None,
    disk_gib: Annotated[float | None, typer.Option(
        metavar="GIB", help="GiB of attached block storage the job keeps while it runs: "
                            "its cost is added where the provider publishes a price per "
                            "GB-month")] = None,
    start: Annotated[str | None, typer.Option(
        metavar="TIME", help="when the job may start, ISO date or time (UTC unless it "
                             "says): capacity blocks starting earlier are left out; "
                             "default now")] = None,
    fixtures: FixturesOption = None,
    fetch: FetchOption = "auto",
    output: Annotated[OutputFormat, typer.Option("--format", "-f")] = OutputFormat.table,
    emit: EmitOption = None,
    emit_file: EmitFileOption = None,
) -> None:
    """Job cost of an instance type in each region (cheapest first), with the regional price spread."""
    from gpuhub.service.reports import estimate_report

    _check_emit(emit, emit_file)
    engine = default_engine()
    try:
        from gpuhub.service.answers import number

        number("hours", hours)  # bounded as /api/estimate bounds it: a cost must stay representable
        for name, value in (("egress_gb", egress_gb), ("disk_gib", disk_gib)):
            if value is not None:
                number(name, value)
                if compare:
                    raise QueryError(name, "is not priced by --compare (it compares purchase models of one place); "
                                           "leave out --compare to add it to each region's job cost")
        if start is not None and not compare:
            raise QueryError("start", "applies to --compare (capacity-block windows); give --compare too")
        if fetch not in ("auto", "live", "replay"):
            raise QueryError("fetch", f"{fetch!r} is not allowed; allowed values: auto, live, replay")
        if compare and emit is not None:
            raise QueryError("emit", "hands off one offer: leave out --compare, or give --purchase")
        if compare:  # gpuhub.cli.obtain: every purchase model side by side
            from gpuhub.cli.obtain import print_compare
            from gpuhub.service.answers import compare_answer

            answer = compare_answer(engine, {"instance_type": instance_type, "hours": hours, "provider": provider,
                                             "region": region, "checkpoint_every": checkpoint_every,
                                             "interruption_overhead": interruption_overhead, "start": start},
                                    fixtures_dir=fixtures, fetch=fetch)  # type: ignore[arg-type]
            print_compare(answer["options"], hours, output is OutputFormat.json, _out(), err)
            return
        report, spread, offers = estimate_report(engine, instance_type, hours, provider=provider, region=region,
                                         purchase=purchase, interruption_overhead=interruption_overhead,
                                         checkpoint_every=checkpoint_every, fixtures_dir=fixtures,
                                         fetch=fetch, egress_gb=egress_gb,  # type: ignore[arg-type]
                                         disk_gib=disk_gib)
    except QueryError as exc:
        _fail_usage(f"{cli_option(exc.argument)}: {exc.detail}")
        return
    rows = report["jobs"]  # cheapest job first, ``offers`` in the same order
    if emit is not None:  # the cheapest place of the job
        _emit(offers[0], emit.value, emit_file)
        if str(emit_file) == "-":
            return  # stdout carries the launch file alone
    if output is OutputFormat.json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
        return
    if output is OutputFormat.csv:
        for r, o in zip(rows, offers, strict=True):
            r["price_per_hour"] = _money(o.price.amount)
        _write_csv(rows, list(rows[0]))
        return
    from gpuhub.cli.plaintext import PlainTable

    headings = ["provider", "region", "purchase", "per hour", "billed h", "job cost", "notes"]
    cells = [[*_cells(r["provider"], str(r["region"]) + (f" ({r['zone']})" if r["zone"] else ""), r["purchase"]),
              _price(r["price_per_hour"]), _num(r["billed_hours"]),
              f"{r['cost']:.2f} {r['currency']}" + "".join(
                  f" + {part} ?" for part, key in (("egress", "egress_cost"), ("disk", "disk_cost"))
                  if key in r and r[key] is None), _plain("; ".join(r["notes"]))] for r in rows]
    out = _out()
    natural = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(headings)]
    below = sum(natural) + 3 * (len(natural) - 1) > out.width and any(c[-1] for c in cells)
    notes = [c[-1] for c in cells]
    if below or not any(notes):  # too wide with its notes: they go under the table, each said once, not folded
        headings, cells = headings[:-1], [c[:-1] for c in cells]
    table = PlainTable(headings, [h in ("per hour", "billed h", "job cost") for h in headings],
                       # figures whole, names and notes broken between words only
                       ["whole" if h in ("per hour", "billed h") else "words" for h in headings], cells)
    out.print(table)
    if below:
        said: dict[str, list[str]] = {}  # each note once, after the places it applies to
        for row in rows:
            for note in row["notes"]:
                said.setdefault(_plain(note), []).append(f"{row['provider']} {row['region']}")
        for note, places in said.items():
            err.print(f"{', '.join(places)}: {note}", highlight=False)
    def place(o: Offer) -> str:
        return o.region.code + (f"/{o.region.zone}" if o.region.zone else "")

    err.print(f"{instance_type} {purchase}: {len(rows)} places, cheapest {place(spread.cheapest)} "
              f"{_price(float(spread.cheapest.price.amount))}, dearest {place(spread.dearest)} "
              f"{_price(float(spread.dearest.price.amount))} {spread.currency}/h "
              f"(spread {spread.spread_fraction:.1%})", highlight=False)


@app.command()
def record(
    provider: Annotated[str, typer.Argument(help="provider to record")],
    out: Annotated[Path, typer.Option(
        metavar="DIR", help="directory; the recording goes to DIR/<provider>/")] = Path("fixtures"),
) -> None:
    """Fetch a provider live and save every exchange (secrets scrubbed) as a replayable recording."""
    engine = default_engine()
    if provider not in engine.registry.providers:
        _fail_usage(f"PROVIDER: {provider!r} is not installed; allowed values: "
                    f"{', '.join(sorted(engine.registry.providers))}")
    if engine.registry.providers[provider].static:  # no API to record: write the table it uses, or refuse
        from gpuhub.cli.record import record_static

        raise typer.Exit(record_static(engine, provider, out, err))
    [(offers, status)] = engine.collect([provider], mode="record", record_dir=out, refresh=True)
    err.print(status.line(), highlight=False)
    if status.state != "ok":
        raise typer.Exit(1)
    typer.echo(f"recorded {len(offers)} offers to {out / provider}/manifest.json")


@app.command()
def serve(
    host: Annotated[str, typer.Option(
        metavar="ADDRESS", help="address to listen on (no login: keep loopback unless told)")]
    = "127.0.0.1",
    port: Annotated[int, typer.Option(metavar="PORT", help="TCP port", min=1, max=65535)] = 8000,
    fixtures: FixturesOption = None,
    fetch: FetchOption = "auto",
) -> None:
    """Serve the web page and the JSON API (/api/, same answers as the CLI's JSON); needs gpuhub-core[web]."""
    if fetch not in ("auto", "live", "replay"):
        _fail_usage(f"--fetch: {fetch!r} is not allowed; allowed values: auto, live, replay")
    from gpuhub.web import LOOPBACK
    from gpuhub.web import serve as run_server

    try:  # say what is missing before claiming to serve
        import uvicorn  # noqa: F401

        import gpuhub.web.app  # noqa: F401
    except ModuleNotFoundError as exc:
        _fail_usage(f"gpuhub serve needs the web extra ({exc.name} is missing): pip install 'gpuhub-core[web]'")
    if host not in LOOPBACK:
        err.print(f"warning: listening on {host}: anyone who reaches it can use it (no login)", style="yellow")
    import socket

    try:  # a port in use (or a host that is not this machine's) is the user's argument, said before serving
        with socket.create_server((host, port)):
            pass
    except OSError as exc:
        _fail_usage(f"--host/--port: cannot listen on {host}:{port}: {exc.strerror or exc}")
    err.print(f"gpuhub serving on http://{host}:{port}/ (API at /api/, Ctrl-C stops)", highlight=False)
    try:
        run_server(host, port, fixtures_dir=fixtures, fetch=fetch)
    except ModuleNotFoundError as exc:
        _fail_usage(str(exc))


@app.command()
def mcp(
    fixtures: FixturesOption = None,
    fetch: FetchOption = "auto",
) -> None:
    """Serve the MCP tools (search, explain, estimate, compare, history, gpus, providers) over stdio for an agent
    host; the same answers as the web API; needs gpuhub-core[mcp]."""
    if fetch not in ("auto", "live", "replay"):
        _fail_usage(f"--fetch: {fetch!r} is not allowed; allowed values: auto, live, replay")
    if fixtures is not None and not fixtures.is_dir():
        _fail_usage(f"--fixtures: {fixtures} is not a directory")
    from gpuhub.mcp import serve as run_mcp

    try:
        run_mcp(fixtures_dir=fixtures, fetch=fetch)
    except ModuleNotFoundError as exc:
        _fail_usage(str(exc))


from gpuhub.cli.store import store_app  # noqa: E402  (light: typer only)

app.add_typer(store_app, name="store")

from gpuhub.cli import history as cli_history  # noqa: E402  (light: typer only; history, diff, watch, catalog)

cli_history.register(app)

from gpuhub.cli.plan import plan_app  # noqa: E402  (light: typer only; commitments, follow-the-sun, arbitrage)

app.add_typer(plan_app, name="plan")


def _builtin_commands() -> set[str]:
    names = {c.name or typer.main.get_command_name(c.callback.__name__)  # type: ignore[union-attr]
             for c in app.registered_commands}
    return names | {g.name for g in app.registered_groups if g.name}


def _command_app(argv: list[str]) -> typer.Typer:
    """The app to run for ``argv``: for a top-level command, an app holding just that command (typer builds a
    click command from every registered function's signature on each run; one is enough), else the whole app."""
    name = argv[0] if argv else ""
    for info in app.registered_commands if name and not name.startswith("-") else ():
        callback = info.callback
        if callback is not None and (info.name or typer.main.get_command_name(callback.__name__)) == name:
            solo = typer.Typer(**_APP_SETTINGS)
            solo.registered_callback = app.registered_callback
            solo.registered_commands = [info]
            return solo
    return app


_NUMBER_KINDS: dict[Any, str] = {float: "a number", int: "a whole number", float | None: "a number",
                                 int | None: "a whole number"}


class _CoerceWhenGiven:
    """typer (0.2x) builds a pydantic ``TypeAdapter`` for every parameter of the command line before it looks at the
    value, even an option that was not given (``None``), and for ``--help`` imports pydantic just for that. This
    stands in for a parameter's coercion: ``None`` passes as typer's own ``coerce`` returns it (``()`` for a
    multi-value option), and the real coercion is built only for a value that was given."""

    def __init__(self, param: Any) -> None:
        self._param = param
        self._real: Any = None

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:
            return () if param.multiple or param.nargs == -1 else None
        if self._real is None:
            from typer._coercion import build_runtime_param

            self._real = build_runtime_param(self._param.type_descriptor)
        try:
            return self._real.coerce(value, param=param, ctx=ctx)
        except typer.BadParameter:
            # pydantic's "Input should be a valid number, unable to parse string as a number" said as the search
            # says it: "'abc' is not a number"
            kind = _NUMBER_KINDS.get(getattr(self._param.type_descriptor, "annotation", None))
            if kind is None or isinstance(value, (list, tuple)):
                raise
            raise typer.BadParameter(f"{_plain(value)!r} is not {kind}", ctx=ctx, param=param) from None


def _run_app(typer_app: typer.Typer) -> None:
    """Run ``typer_app`` on ``sys.argv``, each parameter's coercion built only when it has a value
    (:class:`_CoerceWhenGiven`); with a typer that lacks those internals, exactly as ``typer_app()``."""
    command_class = getattr(__import__("typer.core").core, "_TyperParameter", None)
    if command_class is None or not hasattr(command_class, "get_runtime_param"):
        typer_app()
        return
    def lazy(param: Any) -> Any:
        if isinstance(param, command_class) and getattr(param, "_runtime_param", None) is None:
            param._runtime_param = _CoerceWhenGiven(param)
        return param

    def with_lazy_help(original: Callable[[Any], Any]) -> Callable[[Any], Any]:
        return lambda ctx: lazy(original(ctx))  # the help option is made on first use, per command

    command = typer.main.get_command(typer_app)
    stack: list[Any] = [command]
    while stack:
        node = stack.pop()
        for param in getattr(node, "params", ()):
            lazy(param)
        if callable(getattr(node, "get_help_option", None)):
            node.get_help_option = with_lazy_help(node.get_help_option)
        stack.extend(getattr(node, "commands", {}).values())
    command()


plugin_app = typer.Typer(help="Write and check provider plugins.", no_args_is_help=True)
app.add_typer(plugin_app, name="plugin")


@plugin_app.command("new")
def plugin_new(
    name: Annotated[str, typer.Argument(help="provider name: lower-case letters and digits, e.g. mycloud")],
    directory: Annotated[Path, typer.Option("--dir", metavar="DIR", help="where to write gpuhub-NAME/")] = Path("."),
) -> None:
    """Write a plugin package that installs, bundles a recording and passes the conformance kit."""
    from gpuhub.kit.scaffold import new_plugin

    try:
        root = new_plugin(name, directory)
    except ValueError as exc:
        _fail_usage(f"NAME: {exc}")
        return
    typer.echo(f"wrote {root}: pip install -e '{root}[test]' && gpuhub plugins && python -m pytest {root}/tests")


def main(own_process: bool = False) -> None:
    """Console-script entry point: the command's exit code; a search with ``--timeout T`` exits within T s (plus
    printing) whatever a provider or plugin does. ``own_process``: this process runs only this command (the
    console script, ``python -m gpuhub.cli``), so Ctrl-C ends it at once (:func:`_exit_on_ctrl_c`); a host calling
    ``main`` in-process keeps its own SIGINT handling."""
    from gpuhub.cli.process import run

    run(_main_inner, own_process)


def _main_inner() -> None:
    """Plugins are loaded only when the command needs them: ``--version``, a built-in command's own ``--help`` and
    ``gpuhub store`` never import a plugin; top-level help imports them only when the store does not already
    know (from the installed entry points' versions and code) that none adds a command."""
    argv = sys.argv[1:]
    if argv == ["--version"]:
        from gpuhub._version import __version__

        sys.stdout.write(f"gpuhub {__version__}\n")
        return
    strict = os.environ.get("GPUHUB_STRICT_PLUGINS", "").strip().lower() in ("1", "true", "yes", "on")
    # Commands that need no plugin: `store ...`, a built-in command's --help, top-level help when no plugin adds
    # commands. Every other command loads the registry here (it needs it anyway), so a broken plugin in strict
    # mode stops it cleanly below.
    from gpuhub.cli.helpcache import no_plugin_commands

    builtin_help = bool(argv) and argv[0] in _builtin_commands() and ("--help" in argv or "-h" in argv)
    if not strict and (argv[:1] == ["store"] or builtin_help or (argv in ([], ["--help"])
                                                                 and no_plugin_commands())):
        _run_app(_command_app(argv))
        return
    import logging

    from gpuhub.cli.process import quiet_engine_log

    quiet_engine_log()
    try:
        _load_registry()
        get_registry().register_commands(app)
    except PluginError as exc:
        # Strict mode: a broken plugin stops every command but the one that diagnoses plugins.
        if sys.argv[1:2] != ["plugins"]:
            err.print(f"error: {exc}", style="red")
            err.print("run 'gpuhub plugins' to see every plugin's status, or unset GPUHUB_STRICT_PLUGINS",
                      highlight=False)
            raise SystemExit(1) from None
        plugin_log = logging.getLogger("gpuhub.fetch.plugins")
        plugin_log.disabled = True  # the failure was logged once already; the table below shows it
        try:
            reset_registry(Registry(strict=False))
        finally:
            plugin_log.disabled = False
    _run_app(_command_app(argv))

