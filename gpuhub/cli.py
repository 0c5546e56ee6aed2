"""The ``gpuhub`` command line: search, plugins, providers, gpus, record (plugins may add more).

Exit codes: 0 success (even when some providers failed: their status is on stderr), 1 nothing could be fetched,
2 bad arguments.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from gpuhub.errors import QueryError
from gpuhub.plugins import get_registry
from gpuhub.query import build_query
from gpuhub.searching import SearchResult, default_engine, run_query

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Find and price cloud GPU instances across providers.")
err = Console(stderr=True)


def _out() -> Console:
    """stdout console; when piped, wide enough that tables are never cut to 80 columns."""
    return Console() if sys.stdout.isatty() else Console(width=240)


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


def _fail_usage(message: str) -> None:
    err.print(f"[red]error:[/red] {message}", highlight=False)
    raise typer.Exit(2)


@app.command()
def search(
    gpu: Annotated[list[str] | None, typer.Option("--gpu", "-g", help="GPU name or alias, repeatable")] = None,
    min_gpus: Annotated[float | None, typer.Option(help="minimum GPUs per instance")] = None,
    max_gpus: Annotated[float | None, typer.Option(help="maximum GPUs per instance")] = None,
    min_vram: Annotated[float | None, typer.Option(help="minimum usable VRAM per GPU, GiB")] = None,
    min_total_vram: Annotated[float | None, typer.Option(help="minimum VRAM of the instance, GiB")] = None,
    min_vcpus: Annotated[float | None, typer.Option(help="minimum vCPUs")] = None,
    min_memory: Annotated[float | None, typer.Option(help="minimum host RAM, GiB")] = None,
    provider: Annotated[list[str] | None, typer.Option("--provider", "-p", help="provider name(s)")] = None,
    region: Annotated[list[str] | None, typer.Option("--region", "-r", help="region or zone code(s)")] = None,
    country: Annotated[list[str] | None, typer.Option(help="ISO country code(s), e.g. US, DE")] = None,
    continent: Annotated[list[str] | None, typer.Option(help="continent(s), e.g. Europe")] = None,
    purchase: Annotated[list[str] | None, typer.Option(help="on_demand, spot, low_priority, reserved_1y, ...")] = None,
    max_price: Annotated[str | None, typer.Option(help="maximum price per instance-hour")] = None,
    currency: Annotated[str | None, typer.Option(help="only prices in this ISO 4217 currency")] = None,
    exclude_fractional: Annotated[bool, typer.Option(help="drop offers with part of one GPU")] = False,
    available: Annotated[bool, typer.Option("--available", help="only offers launchable now")] = False,
    sort: Annotated[str, typer.Option(help="price, price_per_gpu, price_per_vram, or a plugin's ranker")] = "price",
    limit: Annotated[int | None, typer.Option(help="at most this many offers")] = 20,
    fixtures: Annotated[Path | None, typer.Option(help="replay recordings from DIR/<provider>/")] = None,
    mode: Annotated[str, typer.Option(help="auto, live or replay")] = "auto",
    refresh: Annotated[bool, typer.Option(help="ignore cached data")] = False,
    timeout: Annotated[float | None, typer.Option(help="seconds to wait for providers")] = None,
    output: Annotated[OutputFormat, typer.Option("--format", "-f", help="table, json or csv")] = OutputFormat.table,
) -> None:
    """Search GPU offers across every installed provider."""
    engine = default_engine()
    registry = engine.registry
    if mode not in ("auto", "live", "replay"):
        _fail_usage(f"--mode: {mode!r} is not allowed; allowed values: auto, live, replay")
    if fixtures is not None and not fixtures.is_dir():
        _fail_usage(f"--fixtures: {fixtures} is not a directory")
    try:
        query = build_query(
            gpus=registry.gpus, providers=sorted(registry.providers), rankers=list(registry.rankers), gpu=gpu,
            min_gpus=min_gpus, max_gpus=max_gpus, min_vram=min_vram, min_total_vram=min_total_vram,
            min_vcpus=min_vcpus, min_memory=min_memory, max_price=max_price, currency=currency, purchase=purchase,
            provider=provider, region=region, country=country, continent=continent,
            exclude_fractional=exclude_fractional, available_only=available, sort=sort, limit=limit)
    except QueryError as exc:
        _fail_usage(f"--{exc.argument.replace('_', '-')}: {exc.detail}")
        return
    result = run_query(query, engine, fixtures_dir=fixtures, mode=mode, refresh=refresh,  # type: ignore[arg-type]
                       timeout=timeout)
    _print_result(result, output)
    for status in result.statuses:
        colour = {"ok": "green", "stale": "yellow", "failed": "red", "skipped": "dim"}[status.state]
        err.print(f"[{colour}]{status.line()}[/{colour}]", highlight=False)
    if not result.offers:
        for line in result.explain():
            err.print(f"  {line}", highlight=False)
    if all(s.state in ("failed", "skipped") for s in result.statuses):
        raise typer.Exit(1)


def _print_result(result: SearchResult, output: OutputFormat) -> None:
    records = result.to_dicts()
    if output is OutputFormat.json:
        sys.stdout.write(json.dumps(records, indent=2) + "\n")
        return
    if output is OutputFormat.csv:
        buffer = io.StringIO()
        fields = list(records[0]) if records else ["provider", "instance_type", "region", "price_per_hour"]
        writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(records)
        sys.stdout.write(buffer.getvalue())
        return
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for column, justify in (("provider", "left"), ("instance type", "left"), ("region", "left"), ("GPU", "left"),
                            ("GPUs", "right"), ("VRAM/GPU GiB", "right"), ("vCPUs", "right"), ("RAM GiB", "right"),
                            ("purchase", "left"), ("per hour", "right"), ("per GPU-hour", "right"),
                            ("avail", "left"), ("source", "left")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for r in records:
        region = r["region"] + (f" ({r['zone']})" if r["zone"] else "")
        gpu = r["gpu_name"] or "-"
        if r["gpu_known"] is False:
            gpu += " (unknown)"
        table.add_row(
            r["provider"], r["instance_type"], region, gpu, _num(r["gpu_count"]), _num(r["gpu_memory_gib"]),
            _num(r["vcpus"]), _num(r["memory_gib"]), r["purchase"], f"{_price(r['price_per_hour'])} {r['currency']}",
            _price(r["price_per_gpu_hour"]), {True: "yes", False: "no", None: "?"}[r["available"]], r["source"])
    _out().print(table)
    if result.matched > len(result.offers):
        err.print(f"showing {len(result.offers)} of {result.matched} matching offers (--limit)", highlight=False)


def _num(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _price(value: Any) -> str:
    if value is None:
        return "-"
    text = f"{value:.6f}".rstrip("0")
    return text + "0" if text.endswith(".") else (text if len(text.split(".")[1]) >= 2 else f"{value:.2f}")


@app.command()
def plugins(output: Annotated[OutputFormat, typer.Option("--format", "-f")] = OutputFormat.table) -> None:
    """List plugins with their status, version, providers and any error with its fix."""
    reports = get_registry().reports
    if output is OutputFormat.json:
        sys.stdout.write(json.dumps([r.to_dict() for r in reports], indent=2) + "\n")
        return
    table = Table(show_edge=False, header_style="bold")
    for column in ("plugin", "distribution", "version", "status", "providers", "error / fix"):
        table.add_column(column)
    for r in reports:
        problem = f"{r.error}\nfix: {r.fix}" if r.error else ""
        table.add_row(r.name, r.distribution or "-", r.version or "-", r.status, ", ".join(r.providers), problem)
    _out().print(table)


@app.command()
def providers(output: Annotated[OutputFormat, typer.Option("--format", "-f")] = OutputFormat.table) -> None:
    """List providers: kind, plugin, and whether a search would go live or replay a recording."""
    engine = default_engine()
    registry = engine.registry
    rows = []
    for name, provider in sorted(registry.providers.items()):
        plan = engine.plan(provider)
        how = plan if isinstance(plan, str) else (
            "static price table" if plan.static else plan.mode + (f" {plan.recording}" if plan.recording else ""))
        rows.append({"provider": name, "kind": provider.kind, "plugin": registry.provider_plugin[name],
                     "credentials": "configured" if provider.credentials_configured(engine.environ) else
                     ("none needed" if not provider.credentials else "not set"),
                     "data": how, "configure": provider.credentials_help()})
    if output is OutputFormat.json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    table = Table(show_edge=False, header_style="bold")
    for column in ("provider", "kind", "plugin", "credentials", "data"):
        table.add_column(column)
    for row in rows:
        table.add_row(*(str(row[c]) for c in ("provider", "kind", "plugin", "credentials", "data")))
    _out().print(table)


@app.command()
def gpus(output: Annotated[OutputFormat, typer.Option("--format", "-f")] = OutputFormat.table) -> None:
    """List the GPU table: canonical names, memory, form factors, dense BF16/FP64 TFLOPS, aliases."""
    table_data = get_registry().gpus
    rows = [{"name": s.name, "vendor": s.vendor, "form_factor": s.form_factor, "memory_gib": s.memory_gib,
             "bf16_tflops": s.bf16_tflops, "fp64_tflops": s.fp64_tflops,
             "memory_bandwidth_gb_s": s.memory_bandwidth_gb_s, "aliases": list(s.aliases)} for s in table_data.specs]
    if output is OutputFormat.json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    table = Table(show_edge=False, header_style="bold")
    for column in ("name", "vendor", "form", "GiB", "BF16 TFLOPS", "FP64 TFLOPS", "aliases"):
        table.add_column(column)
    for r in rows:
        table.add_row(str(r["name"]), str(r["vendor"]), str(r["form_factor"]), _num(r["memory_gib"]),
                      _num(r["bf16_tflops"]), _num(r["fp64_tflops"]), ", ".join(r["aliases"]))  # type: ignore[arg-type]
    _out().print(table)


@app.command()
def record(
    provider: Annotated[str, typer.Argument(help="provider to record")],
    out: Annotated[Path, typer.Option(help="directory; the recording goes to OUT/<provider>/")] = Path("fixtures"),
) -> None:
    """Fetch a provider live and save every exchange (secrets scrubbed) as a replayable recording."""
    engine = default_engine()
    if provider not in engine.registry.providers:
        _fail_usage(f"PROVIDER: {provider!r} is not installed; allowed values: "
                    f"{', '.join(sorted(engine.registry.providers))}")
    [(offers, status)] = engine.collect([provider], mode="record", record_dir=out, refresh=True)
    err.print(status.line(), highlight=False)
    if status.state != "ok":
        raise typer.Exit(1)
    typer.echo(f"recorded {len(offers)} offers to {out / provider}/manifest.json")


def main() -> None:
    """Console-script entry point."""
    get_registry().register_commands(app)
    app()


if __name__ == "__main__":
    main()
