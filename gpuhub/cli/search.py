"""``gpuhub search``: the command's work (:func:`run_search`, shared by the typer command in
:mod:`gpuhub.cli.commands` and the fast path) and the fast path itself (:func:`fast_main`).

The fast path: a ``gpuhub search`` whose every argument is a well-formed option of the command (what
:func:`parse_argv` reads from :data:`gpuhub.answer.spec.SEARCH_PARAMS` and :data:`OWN_OPTIONS`) runs without
building the typer app: typer's import and its click command of ~60 options are a tenth of a warm search.
Anything else (``--help``, an unknown or malformed option, a value that does not convert) goes through typer,
which says what is wrong exactly as it always did.
"""

from __future__ import annotations

import re
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuhub.answer.spec import FILTER_PARAMS, OUTPUT_PARAMS, SEARCH_PARAMS, cli_option
from gpuhub.cli.process import DEADLINE, err, fail_usage
from gpuhub.display import plain
from gpuhub.errors import QueryError

if TYPE_CHECKING:
    from gpuhub.model import Offer

__all__ = ["OWN_OPTIONS", "EmitFormat", "OutputFormat", "UsageError", "fast_main", "parse_argv", "run_search",
           "split_values"]


class OutputFormat(str, Enum):
    """``--format``: a table for people, JSON or CSV for programs (same records as the API)."""
    table = "table"
    json = "json"
    csv = "csv"


class EmitFormat(str, Enum):
    """``--emit``: the launch file written for the chosen offer (SkyPilot task, dstack task or fleet)."""
    skypilot = "skypilot"
    dstack = "dstack"
    dstack_fleet = "dstack-fleet"


OWN_OPTIONS: dict[str, tuple[str, str]] = {
    "--explain": ("explain", "flag"), "--fixtures": ("fixtures", "path"), "--fetch": ("fetch", "text"),
    "--refresh": ("refresh", "flag"), "--no-refresh": ("refresh", "unflag"), "--max-age": ("max_age", "text"),
    "--timeout": ("timeout", "number"), "--format": ("output", "format"), "-f": ("output", "format"),
    "--verbose": ("verbose", "flag"), "-v": ("verbose", "flag"), "--emit": ("emit", "emit"),
    "--emit-file": ("emit_file", "path"),
}
"""The search command's own options beyond the search parameters: option -> (parameter name, kind). The typer
command declares the same (``tests/test_search_fast_path.py`` checks that the two agree option for option)."""

OWN_DEFAULTS: dict[str, Any] = {"explain": False, "fixtures": None, "fetch": "auto", "refresh": False,
                                "max_age": None, "timeout": None, "output": OutputFormat.table, "verbose": False,
                                "emit": None, "emit_file": None}
"""Each own option's value when it is not given (as the typer command's defaults)."""


def split_values(values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The command line's values by parameter name, split into the filters (an inverted flag such as
    ``--all-regions`` turned back into its argument, ``distinct``), the output parameters (``columns``, ``wide``)
    and the command's own options (:data:`OWN_OPTIONS`); ``values`` is emptied."""
    filters = {p.name: (not values.pop(p.name)) if p.inverted else values.pop(p.name) for p in FILTER_PARAMS}
    shown = {p.name: values.pop(p.name) for p in OUTPUT_PARAMS}
    own = dict(values)
    values.clear()
    return filters, shown, own


def _options() -> dict[str, tuple[str, str]]:
    """Every option the search command takes -> (parameter name, kind)."""
    table: dict[str, tuple[str, str]] = {p.option: (p.name, p.kind) for p in SEARCH_PARAMS}
    table.update({p.short: (p.name, p.kind) for p in SEARCH_PARAMS if p.short})
    table.update(OWN_OPTIONS)
    return table


_CONVERT: dict[str, Any] = {"number": float, "integer": int, "text": str, "path": Path, "format": OutputFormat,
                            "emit": EmitFormat}
_PLAIN_NUMBER = {"integer": re.compile(r"[0-9]{1,18}"),
                 "number": re.compile(r"(?:[0-9]{1,300}(?:\.[0-9]{0,300})?|\.[0-9]{1,300})(?:[eE][+-]?[0-9]{1,3})?")}
"""The numbers the fast parser converts itself (plain ASCII decimals); any other spelling (``1_000``, ``inf``,
Unicode digits, spaces) goes to typer, whose coercion decides."""


def parse_argv(args: list[str]) -> dict[str, Any] | None:
    """The values of ``gpuhub search ARGS`` by parameter name (what the typer command receives), or None when the
    arguments are anything but well-formed options: ``--help``, an unknown option, a positional argument, ``--``,
    an option given twice (but a repeatable one), a flag with a value, an empty value or one that starts with
    ``-`` (click decides those), a spelling of a number only typer's coercion reads (``1_000``, ``inf``). None sends
    the command line to typer, which answers it as it always did (help, or an error naming the option).

    Raises:
        UsageError: a value no spelling of its kind reads (``--limit x``, ``--format yaml``), in one line.
    """
    options = _options()
    values: dict[str, Any] = {p.name: p.flag_default for p in SEARCH_PARAMS}
    values.update(OWN_DEFAULTS)
    given: set[str] = set()
    i = 0
    while i < len(args):
        arg = args[i]
        name, _, attached = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        known = options.get(name)
        if known is None:
            return None
        param, kind = known
        if kind in ("flag", "unflag"):
            if attached or "=" in arg or param in given:
                return None
            values[param] = kind == "flag"
            given.add(param)
            i += 1
            continue
        if "=" in arg:
            text = attached
        elif i + 1 < len(args):
            text = args[i + 1]
            i += 1
        else:
            return None
        i += 1
        if not text or text.startswith("-") or (param in given and kind != "list"):
            return None
        given.add(param)
        if kind == "list":
            values[param] = [*(values[param] or []), text]
            continue
        plain = _PLAIN_NUMBER.get(kind)
        if plain is not None and not plain.fullmatch(text):
            _not_a_value(name, kind, text)
            return None
        try:
            values[param] = _CONVERT[kind](text)
        except ValueError:
            _not_a_value(name, kind, text)
            return None
    return values


class UsageError(ValueError):
    """A value the command line cannot take, said in one line (``--limit: 'x' is not a whole number``)."""


def _not_a_value(option: str, kind: str, text: str) -> None:
    """Raise :class:`UsageError` for ``text`` given to ``option`` when no spelling of its kind could read it (else
    return: typer's own coercion decides, as for ``1_000`` or ``inf``)."""
    shown = plain(text if len(text) <= 60 else text[:59] + "…")
    choices: list[str] | None = {"format": [f.value for f in OutputFormat],
                                 "emit": [e.value for e in EmitFormat]}.get(kind)
    if choices is not None:
        raise UsageError(f"{option}: {shown!r} is not allowed; allowed values: {', '.join(choices)}")
    try:
        (int if kind == "integer" else float)(text)
    except ValueError:
        raise UsageError(f"{option}: {shown!r} is not {'a whole number' if kind == 'integer' else 'a number'}") \
            from None


def fast_main(args: list[str]) -> bool:
    """Run ``gpuhub search ARGS`` without typer when :func:`parse_argv` reads every argument; False (nothing
    done) when it does not, or when strict plugin loading is asked for (the full command line reports a broken
    plugin). Ends the process (:func:`gpuhub.cli.process.leave`) when it ran.

    Raises:
        SystemExit: the command's exit code (0, 1 nothing fetched, 2 a bad argument).
    """
    import os

    wrong: str | None = None
    try:
        values = parse_argv(args)
    except UsageError as exc:
        values, wrong = {}, str(exc)
    if values is None or os.environ.get("GPUHUB_STRICT_PLUGINS", "").strip().lower() in ("1", "true", "yes", "on"):
        return False
    from gpuhub.cli import process

    def command() -> None:
        if wrong is not None:
            fail_usage(wrong)
        process.quiet_engine_log()
        process.load_registry()
        filters, shown, own = split_values(values)
        run_search(filters, shown, **own)

    process.run(command, own_process=True)
    return True


def check_emit(emit: Any, emit_file: Path | None) -> None:
    """``--emit-file`` names where ``--emit`` writes: alone it would be ignored, so it is an error.

    Raises:
        SystemExit: code 2, when ``emit_file`` is given without ``emit``.
    """
    if emit_file is not None and emit is None:
        fail_usage("--emit-file: names where --emit writes; give --emit skypilot, dstack or dstack-fleet too")


def emit_offer(offer: Offer, fmt: str, path: Path | None) -> None:
    """Write the hand-off file of ``offer`` (``--emit``) to ``path`` (default by format; ``-``: stdout).

    Raises:
        SystemExit: code 2, when the offer cannot be handed off in ``fmt`` or the file cannot be written.
    """
    from gpuhub.answer.handoff import HandoffError, default_file, handoff_text

    try:
        text, notes = handoff_text(offer, fmt)
    except HandoffError as exc:
        fail_usage(f"--emit {fmt}: {exc}")
        return
    for note in notes:
        err.print(f"note: {note}", highlight=False)
    if path is not None and str(path) == "-":
        sys.stdout.write(text)
        return
    target = path or Path(default_file(fmt))
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail_usage(f"--emit-file: cannot write {target}: {exc.strerror or exc}")
    err.print(f"wrote {target}: {fmt} for {offer.provider} {offer.instance_type} in {offer.region.code}",
              highlight=False)


def run_search(filters: dict[str, Any], shown: dict[str, Any], *, explain: bool = False, fixtures: Path | None = None,
               fetch: str = "auto", refresh: bool = False, max_age: str | None = None, timeout: float | None = None,
               output: OutputFormat = OutputFormat.table, verbose: bool = False, emit: EmitFormat | None = None,
               emit_file: Path | None = None) -> None:
    """Search GPU offers across every installed provider and print the answer (``gpuhub search``).

    Args:
        filters: the search parameters by name (:data:`gpuhub.answer.spec.FILTER_PARAMS`).
        shown: the output parameters (``columns``, ``wide``).
        explain, fixtures, fetch, refresh, max_age, timeout, output, verbose, emit, emit_file: the command's own
            options (``gpuhub search --help``): ``max_age`` as given (``600``, ``15min``, ``2h``), ``timeout`` in
            seconds.

    Raises:
        SystemExit: code 2 for a bad argument (the message names it), 1 when every provider failed or was skipped.
    """
    from gpuhub.answer.columns import choose_columns
    from gpuhub.answer.query import build_query
    from gpuhub.cli import process
    from gpuhub.cli.table import print_result, print_statuses
    from gpuhub.service.searching import default_engine, run_query

    try:
        columns = choose_columns(shown["columns"])
    except QueryError as exc:
        fail_usage(f"{cli_option(exc.argument)}: {exc.detail}")
        return
    check_emit(emit, emit_file)
    engine = default_engine()
    if process.OWN_PROCESS[0]:  # the offers are only printed: stored rows as views, no pydantic model is built (a
        engine.row_views = True  # host calling the command in-process keeps models in its engine for its own use)
    registry = engine.registry
    if fetch not in ("auto", "live", "replay"):
        fail_usage(f"--fetch: {fetch!r} is not allowed; allowed values: auto, live, replay")
    if fixtures is not None and not fixtures.is_dir():
        fail_usage(f"--fixtures: {fixtures} is not a directory")
    if timeout is not None and not (0 < timeout < float("inf")):
        fail_usage(f"--timeout: must be a positive number of seconds, got {timeout:g}")
    max_age_s = None
    if max_age is not None:
        from gpuhub.cli.durations import parse_duration

        try:
            max_age_s = parse_duration(max_age)
        except ValueError as exc:
            fail_usage(f"--max-age: {exc}")
    try:
        query = build_query(gpus=registry.gpus, providers=sorted(registry.providers), sellers=registry.sellers(),
                            rankers=list(registry.rankers), **filters)
    except QueryError as exc:
        fail_usage(f"{cli_option(exc.argument)}: {exc.detail}")
        return
    try:
        result = run_query(query, engine, fixtures_dir=fixtures, fetch=fetch, refresh=refresh,  # type: ignore[arg-type]
                           timeout=timeout, deadline=DEADLINE[0] if timeout is not None and DEADLINE else None,
                           max_age=max_age_s)
    except QueryError as exc:
        fail_usage(f"{cli_option(exc.argument)}: {exc.detail}")
        return
    if emit is not None and str(emit_file) == "-":  # stdout carries the launch file alone (a pipe to a tool)
        err.print(f"the {output.value} output is left out: stdout carries the --emit file", highlight=False)
    elif result.offers or output is not OutputFormat.table:
        print_result(result, output.value, err, None if shown["wide"] else columns, shown["wide"])
    else:
        err.print("no offers match", highlight=False)
    for line in result.launch_notes:  # --launchable: which checks could not be made (gpuhub.answer.launch)
        err.print(line, highlight=False)
    if explain and output is OutputFormat.table:
        for i, offer in enumerate(result.offers):
            err.print(f"{i + 1}. {offer.instance.channel} {offer.instance_type} {offer.region.code} "
                      f"({offer.price.purchase}): "
                      f"{result.details(i)['explanation']}", highlight=False)
    print_statuses(result, verbose, err)
    if not result.offers or (explain and (query.limit is None or len(result.offers) < query.limit)):
        said = tuple(f"{s.provider} {s.state}:" for s in result.statuses)  # the status lines above say these
        for line in result.explain():
            if not line.startswith(said):
                err.print(f"  {line}", highlight=False)
    if all(s.state in ("failed", "skipped") for s in result.statuses):
        raise SystemExit(1)
    if emit is not None:
        if result.groups is None and result.offers:
            emit_offer(result.offers[0], emit.value, emit_file)
        else:
            fail_usage(f"--emit: {'--group-by rows are not offers' if result.offers else 'no offer to hand off'}")
