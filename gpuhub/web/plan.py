"""``/api/plan/commitments``, ``/api/plan/follow-the-sun``, ``/api/plan/arbitrage``: ``gpuhub plan``'s answers
as JSON, the same records as ``gpuhub plan ... --format json`` (:mod:`gpuhub.answer.planning.records`); and the
page ``/plan?kind=...``: a form per question, the table, the summary and the arithmetic.

Parameters are named like the CLI's options without dashes (``--hours-per-day`` → ``hours_per_day``, ``--from``
→ ``from``); a profile file is a CLI-only input (a request sends no files). A bad parameter answers 400 with
``{"error": {"parameter", "message"}}``, the message naming the allowed values.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from gpuhub.answer.params import MAX_LIST_VALUES, Param
from gpuhub.errors import QueryError

if TYPE_CHECKING:
    from gpuhub.service.engine import Engine, RequestedMode

__all__ = ["PLAN_PARAMS", "openapi_paths", "plan_routes"]


def _p(name: str, kind: str, help: str, default: Any = None) -> Param:
    return Param(name, kind, help, default, name)


_USAGE = [_p("gpus", "number", "GPUs needed at once"), _p("hours_per_day", "number", "hours a day used", 24.0),
          _p("days_per_week", "integer", "days a week used", 7)]
PLAN_PARAMS: dict[str, dict[str, Param]] = {
    "commitments": {p.name: p for p in [
        _p("gpu", "text", "the GPU needed, e.g. H100"), *_USAGE, _p("months", "integer", "plan length, 1-36", 12),
        _p("gpus_per_instance", "number", "GPUs per instance bought"), _p("region", "list", "region code(s)"),
        _p("provider", "list", "provider(s)"), _p("near", "text", "a place: keep regions near it"),
        _p("max_rtt", "number", "largest round trip from near, ms"),
        _p("interruptible", "flag", "spot may serve the work", False),
        _p("checkpoint_every", "number", "hours between checkpoints", 1.0)]},
    "follow-the-sun": {p.name: p for p in [
        _p("gpu", "text", "the GPU every team needs"),
        _p("team", "list", "name=..,tz=Asia/Tokyo (or place=Tokyo),hours=9-17,days=mon-fri,gpus=8"),
        _p("months", "integer", "plan length, 1-36", 12),
        _p("max_rtt", "number", "latency budget of the shared cluster, ms", 150.0),
        _p("near_rtt", "number", "largest round trip to a cluster near a team, ms", 50.0),
        _p("week", "text", "reference week (a Monday, ISO date)"),
        _p("gpus_per_instance", "number", "GPUs per instance bought"), _p("provider", "list", "provider(s)"),
        _p("interruptible", "flag", "spot may serve the work", False)]},
    "arbitrage": {p.name: p for p in [
        _p("instance_type", "text", "instance type"), _p("gpu", "text", "or a GPU"),
        _p("gpus_per_instance", "number", "GPUs per instance, with gpu"), *_USAGE,
        _p("purchase", "text", "purchase model compared", "on_demand"),
        _p("from", "text", "where you run now: provider:region or a region code"),
        _p("provider", "list", "provider(s)"), _p("region", "list", "region code(s)"),
        _p("since", "text", "history window from the store, e.g. 30d")]},
}
"""Each plan endpoint's parameters (name, kind, help, default)."""


def _values(names: Iterable[str], getlist: Callable[[str], list[str]], params: Mapping[str, Param]) -> dict[str, Any]:
    """The parameters ``names`` (read with ``getlist``) converted to their kinds.

    Raises:
        QueryError: an unknown parameter, or a value that is not of its kind (named, with the allowed values).
    """
    out: dict[str, Any] = {}
    for name in names:
        if name not in params:
            raise QueryError(name, f"unknown parameter; allowed: {', '.join(params)}")
    for name, param in params.items():
        values = getlist(name)
        if not values:
            continue
        if param.kind == "list":
            if len(values) > MAX_LIST_VALUES:
                raise QueryError(name, f"at most {MAX_LIST_VALUES} values")
            out[name] = values
            continue
        text = values[-1].strip()
        if param.kind == "flag":
            if text.lower() not in ("1", "true", "on", "yes", "0", "false", "off", "no", ""):
                raise QueryError(name, f"{text!r} is not allowed; allowed values: true, false")
            out[name] = text.lower() in ("1", "true", "on", "yes", "")
        elif param.kind in ("number", "integer"):
            try:
                number = float(text) if param.kind == "number" else int(text)
            except ValueError:
                raise QueryError(name, f"{text!r} is not {'a number' if param.kind == 'number' else 'a whole number'}"
                                 ) from None
            if isinstance(number, float) and not math.isfinite(number):
                raise QueryError(name, f"{text!r} is not a finite number")
            out[name] = number
        else:
            out[name] = text
    return out


def _commitments(v: dict[str, Any], common: dict[str, Any]) -> Any:
    from gpuhub.service.planning import plan

    if "gpu" not in v:
        raise QueryError("gpu", "is required, e.g. H100")
    return plan.commitments(v.pop("gpu"), **v, **common)


def _follow_the_sun(v: dict[str, Any], common: dict[str, Any]) -> Any:
    from gpuhub.service.planning import plan

    for name in ("gpu", "team"):
        if name not in v:
            raise QueryError(name, "is required")
    if "week" in v:
        try:
            v["week"] = dt.date.fromisoformat(v["week"])
        except ValueError:
            raise QueryError("week", f"{v['week']!r} is not an ISO date; give a Monday such as 2027-01-04") from None
    return plan.follow_the_sun(v.pop("gpu"), v.pop("team"), **v, **common)


def _arbitrage(v: dict[str, Any], common: dict[str, Any]) -> Any:
    from gpuhub.service.planning import plan

    if "from" in v:
        v["move_from"] = v.pop("from")
    return plan.arbitrage(**v, **common)


_ANSWERS: dict[str, Callable[[dict[str, Any], dict[str, Any]], Any]] = {
    "commitments": _commitments, "follow-the-sun": _follow_the_sun, "arbitrage": _arbitrage}


def _record(kind: str, result: Any) -> dict[str, Any]:
    from gpuhub.answer.planning import records

    if kind == "commitments":
        return records.commit_record(result)
    if kind == "follow-the-sun":
        return records.sun_record(result)
    return records.arbitrage_record(result)


def _error(exc: QueryError) -> dict[str, str]:
    return {"parameter": "from" if exc.argument == "move_from" else exc.argument, "message": exc.detail}


def plan_routes(engine: Callable[[], Engine], fixtures_dir: Any, fetch: RequestedMode,
                templates: Jinja2Templates | None = None) -> list[Route]:
    """The three API routes and, with ``templates``, the page ``/plan?kind=...``, answering with the server's
    engine and data source."""
    def common() -> dict[str, Any]:
        return {"fixtures_dir": fixtures_dir, "fetch": fetch, "engine": engine()}

    def endpoint(kind: str) -> Callable[[Request], Response]:
        def answer(request: Request) -> Response:
            try:
                values = _values(request.query_params, request.query_params.getlist, PLAN_PARAMS[kind])
                record = _record(kind, _ANSWERS[kind](values, common()))
            except QueryError as exc:
                return JSONResponse({"error": _error(exc)}, status_code=400)
            return JSONResponse(record)
        return answer

    def page(request: Request) -> Response:
        assert templates is not None  # the route exists only with templates
        kind = request.query_params.get("kind") or "commitments"
        context: dict[str, Any] = {"kinds": list(PLAN_PARAMS), "kind": kind, "values": {}, "error": None,
                                   "rows": None, "params": []}
        if kind not in PLAN_PARAMS:
            context["kind"] = "commitments"
            context["error"] = {"parameter": "kind", "message": f"{kind!r} is not allowed; allowed values: "
                                                                f"{', '.join(PLAN_PARAMS)}"}
            context["params"] = list(PLAN_PARAMS["commitments"].values())
            return templates.TemplateResponse(request, "plan.html", context, status_code=400)
        params = PLAN_PARAMS[kind]
        context["params"] = list(params.values())

        def getlist(name: str) -> list[str]:  # a form sends every field: empty ones are not given
            raw = [v for v in request.query_params.getlist(name) if v.strip()]
            if params.get(name) is not None and params[name].kind == "list" and name != "team":
                raw = [part.strip() for v in raw for part in v.split(",") if part.strip()]
            return raw

        given = [n for n in dict.fromkeys(request.query_params) if n != "kind" and getlist(n)]
        try:
            values = _values(given, getlist, params)
            context["values"] = dict(values)
            if not given:
                return templates.TemplateResponse(request, "plan.html", context)
            result = _ANSWERS[kind](dict(values), common())
            record = _record(kind, result)
        except QueryError as exc:
            context["error"] = _error(exc)
            return templates.TemplateResponse(request, "plan.html", context, status_code=400)
        context.update(_view(kind, result, record))
        return templates.TemplateResponse(request, "plan.html", context)

    routes = [Route(f"/api/plan/{kind}", endpoint(kind)) for kind in PLAN_PARAMS]
    return routes + ([Route("/plan", page, name="plan")] if templates is not None else [])


def _view(kind: str, result: Any, record: dict[str, Any]) -> dict[str, Any]:
    """The page's table (columns, rows), summary lines and arithmetic for one answer."""
    from gpuhub.answer.planning import text

    if kind == "commitments":
        lines, explain = text.commit_text(result, record)
        rows = record["rows"]
        title = f"Cheapest mix: {text.money_text(record['total_per_month'])} USD a month"
    elif kind == "follow-the-sun":
        lines, explain = text.sun_text(result, record)
        rows = [{k: v for k, v in r.items() if k != "how"} for r in record["rows"]]
        title = f"Best shared region: {record['best_shared_region']}"
    else:
        lines, explain = text.arbitrage_text(result, record)
        rows = record["places"]
        title = f"{record['what']}: moving saves up to {text.money_text(record['best_saving_per_month'])} USD a month"
    return {"rows": rows, "columns": list(rows[0]) if rows else [], "lines": lines, "explain": explain,
            "title": title}


def openapi_paths(parameters: Callable[[Any], list[dict[str, Any]]],
                  get: Callable[[str, list[dict[str, Any]], dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    """The OpenAPI paths of the three routes (built with the document's own helpers)."""
    return {f"/api/plan/{kind}": get(f"gpuhub plan {kind} --format json", parameters(params.values()),
                                     {"type": "object"}) for kind, params in PLAN_PARAMS.items()}
