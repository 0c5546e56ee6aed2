"""The JSON answers the surfaces serve, built once: the web API (``/api/*``) and the MCP server's tools give the
same JSON for the same parameters because both call these functions.

Each function takes the parameters as ``build_query``-style keyword arguments already read by
:func:`gpuhub.answer.params.query_kwargs` (text values, as a URL or a tool call gives them) and returns a JSON-ready
value. A bad parameter raises :class:`~gpuhub.errors.QueryError` naming it; the surfaces turn that into their own
error (a 400, a tool error).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from pathlib import Path
from typing import Any

from gpuhub.answer.query import build_query
from gpuhub.display import given
from gpuhub.errors import QueryError
from gpuhub.service.engine import Engine, RequestedMode
from gpuhub.service.searching import SearchResult, run_query

__all__ = ["MAX_NUMBER", "MAX_OFFERS", "compare_answer", "estimate_answer", "history_answer", "number",
           "result_answer", "run_search", "search_answer"]

MAX_OFFERS = 5000
"""The most offers one request may ask for (API ``limit``; the page holds at most this many rows)."""
MAX_NUMBER = 1e6
"""The largest number a request's hours, overhead or checkpoint interval may be (a million hours is 114 years;
beyond, job costs stop being representable)."""


def number(name: str, value: Any) -> float:
    """``value`` as a finite float of magnitude at most :data:`MAX_NUMBER`.

    Raises:
        QueryError: not a number, not finite, or too large (naming ``name``).
    """
    try:
        result = float(value)
    except (TypeError, ValueError):
        raise QueryError(name, f"expected a number, got {given(value)}") from None
    if not math.isfinite(result):
        raise QueryError(name, f"must be a finite number, got {given(value)}")
    if abs(result) > MAX_NUMBER:
        raise QueryError(name, f"must be at most {MAX_NUMBER:,.0f}, got {given(value)}")
    return result


def run_search(engine: Engine, kwargs: dict[str, Any], *, fixtures_dir: Path | None = None,
               fetch: RequestedMode = "auto") -> SearchResult:
    """Validate the search parameters (``build_query`` keyword arguments) against the installed providers and
    rankers, and run the search (a ``limit`` above :data:`MAX_OFFERS` is refused).

    The output parameters (``columns``, ``wide``: :data:`gpuhub.answer.spec.OUTPUT_PARAMS`) are not the search's
    and are left out here; :func:`search_answer` applies them.

    Raises:
        QueryError: a bad parameter, named.
    """
    from gpuhub.answer.spec import OUTPUT_PARAMS

    kwargs = {k: v for k, v in kwargs.items() if k not in {p.name for p in OUTPUT_PARAMS}}
    limit = kwargs.get("limit")
    if limit is not None:
        try:
            too_many = float(limit) > MAX_OFFERS
        except (TypeError, ValueError):
            too_many = False  # build_query names the problem
        if too_many:
            raise QueryError("limit", f"at most {MAX_OFFERS} offers per request, got {limit!r}")
    registry = engine.registry
    query = build_query(gpus=registry.gpus, providers=sorted(registry.providers), sellers=registry.sellers(),
                        rankers=list(registry.rankers), **kwargs)
    return run_query(query, engine, fixtures_dir=fixtures_dir, fetch=fetch)


def search_answer(engine: Engine, kwargs: dict[str, Any], *, fixtures_dir: Path | None = None,
                  fetch: RequestedMode = "auto") -> list[dict[str, Any]]:
    """The offers of a search, as ``gpuhub search --format json`` prints them (``/api/search``); with ``columns``
    (and not ``wide``), each record holds only the fields of those table columns
    (:data:`gpuhub.answer.columns.TABLE_COLUMNS`).

    Raises:
        QueryError: a bad parameter or column name, named.
    """
    from gpuhub.answer.columns import choose_columns, select_fields

    columns = None if kwargs.get("wide") else choose_columns(kwargs.get("columns"))
    return select_fields(run_search(engine, kwargs, fixtures_dir=fixtures_dir, fetch=fetch).to_dicts(), columns)


def result_answer(engine: Engine, kwargs: dict[str, Any], *, fixtures_dir: Path | None = None,
                  fetch: RequestedMode = "auto") -> dict[str, Any]:
    """Offers with their explanations, provider statuses, what each filter removed and the explanation lines
    (``/api/result``)."""
    result = run_search(engine, kwargs, fixtures_dir=fixtures_dir, fetch=fetch)
    return {**result.to_dict(), "explain": result.explain()}


def _required(kwargs: dict[str, Any], *names: str) -> None:
    for name in names:
        if name not in kwargs:
            raise QueryError(name, "is required")


def estimate_answer(engine: Engine, kwargs: dict[str, Any], *, fixtures_dir: Path | None = None,
                    fetch: RequestedMode = "auto") -> dict[str, Any]:
    """Job cost of an instance type in each region, cheapest first, with the price spread (``/api/estimate``,
    ``gpuhub estimate --format json``): ``kwargs`` as :data:`gpuhub.answer.params.ESTIMATE`.

    Raises:
        QueryError: a missing or bad parameter, or no offer of that instance type.
    """
    from gpuhub.service.reports import estimate_report

    _required(kwargs, "instance_type", "hours")
    try:
        report, _, _ = estimate_report(engine, kwargs["instance_type"], number("hours", kwargs["hours"]),
                                    provider=kwargs.get("provider"), region=kwargs.get("region"),
                                    purchase=kwargs.get("purchase", "on_demand"),
                                    interruption_overhead=number("interruption_overhead",
                                                                 kwargs.get("interruption_overhead", 0.10)),
                                    checkpoint_every=number("checkpoint_every", kwargs.get("checkpoint_every", 1.0)),
                                    fixtures_dir=fixtures_dir, fetch=fetch,
                                    egress_gb=number("egress_gb", kwargs["egress_gb"])
                                    if kwargs.get("egress_gb") is not None else None,
                                    disk_gib=number("disk_gib", kwargs["disk_gib"])
                                    if kwargs.get("disk_gib") is not None else None)
    except ArithmeticError as exc:  # a cost too large to compute from numbers that passed their bounds
        raise QueryError("hours", f"the job cost cannot be computed ({type(exc).__name__}); at most "
                                  f"{MAX_NUMBER:,.0f} hours") from None
    return report


def parse_start(text: str | None) -> dt.datetime | None:
    """A job's earliest start: an ISO date (midnight) or date and time; UTC unless it names an offset.

    Raises:
        QueryError: not an ISO date or time (naming ``start``).
    """
    if text is None:
        return None
    try:
        when = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise QueryError("start", f"{text!r} is not an ISO date or time, e.g. 2026-12-10 or 2026-12-10T11:30Z") \
            from None
    return when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)


def compare_answer(engine: Engine, kwargs: dict[str, Any], *, fixtures_dir: Path | None = None,
                   fetch: RequestedMode = "auto") -> dict[str, Any]:
    """Every purchase model of one instance type for a job, cheapest first, with break-even hours against on-demand
    (``/api/compare``, ``gpuhub estimate --compare --format json``): ``{"hours": h, "options": [...]}``;
    ``kwargs`` as :data:`gpuhub.answer.params.COMPARE`.

    Raises:
        QueryError: a missing or bad parameter, or no offer of that instance type.
    """
    from gpuhub.service.reports import compare_rows

    _required(kwargs, "instance_type", "hours")
    hours = number("hours", kwargs["hours"])
    checkpoint_every = number("checkpoint_every", kwargs.get("checkpoint_every", 1.0))
    overhead = number("interruption_overhead", kwargs.get("interruption_overhead", 0.10))
    registry = engine.registry
    query = build_query(gpus=registry.gpus, providers=sorted(registry.providers), rankers=list(registry.rankers),
                        provider=kwargs.get("provider"), region=kwargs.get("region"),
                        instance_type=kwargs["instance_type"], checkpoint_every=checkpoint_every)
    every = list(run_query(dataclasses.replace(query, limit=None), engine, fixtures_dir=fixtures_dir,
                           fetch=fetch, start=parse_start(kwargs.get("start"))))
    if not every:
        raise QueryError("instance_type", f"no offer of {kwargs['instance_type']!r}")
    try:
        rows = compare_rows(every, hours, checkpoint_every, overhead)
    except ArithmeticError as exc:
        raise QueryError("hours", f"the job cost cannot be computed ({type(exc).__name__}); at most "
                                  f"{MAX_NUMBER:,.0f} hours") from None
    return {"hours": hours, "options": rows}


def history_answer(engine: Engine, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Price history from the engine's store (``/api/history``, ``gpuhub history --format json``): the price at
    each change per offer (or group), cheapest last price first, at most ``limit`` series; ``kwargs`` as
    :data:`gpuhub.answer.params.HISTORY`.

    Raises:
        QueryError: a bad parameter, or the store is off (``GPUHUB_STORE=off``).
    """
    from gpuhub.history import history

    store = engine.store
    if store is None:
        raise QueryError("store", "the offer store is off (GPUHUB_STORE=off): history reads the store")
    limit_text = kwargs.get("limit", 50)
    limit = number("limit", limit_text)
    if limit < 1 or not limit.is_integer():
        raise QueryError("limit", f"must be a whole number of at least 1, got {limit_text!r}")
    since = str(kwargs.get("since", "30d"))
    result = history(instance_type=kwargs.get("instance_type"), gpu=kwargs.get("gpu"),
                     provider=kwargs.get("provider"), region=kwargs.get("region"),
                     purchase=kwargs.get("purchase"), since=None if since.strip().lower() == "all" else since,
                     group=str(kwargs.get("group", "offer")), store=store)
    shown = sorted(result.series, key=lambda s: (float(s.stats(result.since)["last"] or float("inf")), s.label))
    result.series = shown[:int(limit)]
    return result.to_dict()
