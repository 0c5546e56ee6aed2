"""``/api/plan/commitments``, ``/api/plan/follow-the-sun``, ``/api/plan/arbitrage``: ``gpuhub plan``'s answers
as JSON, the same records as ``gpuhub plan ... --format json`` (:mod:`gpuhub.answer.planning.records`).

Parameters are named like the CLI's options without dashes (``--hours-per-day`` → ``hours_per_day``, ``--from``
→ ``from``); a profile file is a CLI-only input (a request sends no files). A bad parameter answers 400 with
``{"error": {"parameter", "message"}}``, the message naming the allowed values.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from gpuhub.errors import QueryError
from gpuhub.web.params import MAX_LIST_VALUES, Param

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


def _values(request: Request, params: Mapping[str, Param]) -> dict[str, Any]:
    """The request's parameters converted to their kinds.

    Raises:
        QueryError: an unknown parameter, or a value that is not of its kind (named, with the allowed values).
    """
    out: dict[str, Any] = {}
    for name in request.query_params:
        if name not in params:
            raise QueryError(name, f"unknown parameter; allowed: {', '.join(params)}")
    for name, param in params.items():
        values = request.query_params.getlist(name)
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


def _commitments(v: dict[str, Any], common: dict[str, Any]) -> dict[str, Any]:
    from gpuhub.answer.planning.records import commit_record
    from gpuhub.service.planning import plan

    if "gpu" not in v:
        raise QueryError("gpu", "is required, e.g. H100")
    return commit_record(plan.commitments(v.pop("gpu"), **v, **common))


def _follow_the_sun(v: dict[str, Any], common: dict[str, Any]) -> dict[str, Any]:
    from gpuhub.answer.planning.records import sun_record
    from gpuhub.service.planning import plan

    for name in ("gpu", "team"):
        if name not in v:
            raise QueryError(name, "is required")
    if "week" in v:
        try:
            v["week"] = dt.date.fromisoformat(v["week"])
        except ValueError:
            raise QueryError("week", f"{v['week']!r} is not an ISO date; give a Monday such as 2027-01-04") from None
    return sun_record(plan.follow_the_sun(v.pop("gpu"), v.pop("team"), **v, **common))


def _arbitrage(v: dict[str, Any], common: dict[str, Any]) -> dict[str, Any]:
    from gpuhub.answer.planning.records import arbitrage_record
    from gpuhub.service.planning import plan

    if "from" in v:
        v["move_from"] = v.pop("from")
    return arbitrage_record(plan.arbitrage(**v, **common))


_ANSWERS: dict[str, Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]] = {
    "commitments": _commitments, "follow-the-sun": _follow_the_sun, "arbitrage": _arbitrage}


def plan_routes(engine: Callable[[], Engine], fixtures_dir: Any, fetch: RequestedMode) -> list[Route]:
    """The three routes, answering with the server's engine and data source."""
    def endpoint(kind: str) -> Callable[[Request], Response]:
        def answer(request: Request) -> Response:
            try:
                values = _values(request, PLAN_PARAMS[kind])
                record = _ANSWERS[kind](values, {"fixtures_dir": fixtures_dir, "fetch": fetch,
                                                 "engine": engine()})
            except QueryError as exc:
                return JSONResponse({"error": {"parameter": "from" if exc.argument == "move_from" else exc.argument,
                                               "message": exc.detail}}, status_code=400)
            return JSONResponse(record)
        return answer

    return [Route(f"/api/plan/{kind}", endpoint(kind)) for kind in PLAN_PARAMS]


def openapi_paths(parameters: Callable[[Any], list[dict[str, Any]]],
                  get: Callable[[str, list[dict[str, Any]], dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    """The OpenAPI paths of the three routes (built with the document's own helpers)."""
    return {f"/api/plan/{kind}": get(f"gpuhub plan {kind} --format json", parameters(params.values()),
                                     {"type": "object"}) for kind, params in PLAN_PARAMS.items()}
