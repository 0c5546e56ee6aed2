"""The web application: a results page (filters, sortable paged table, chart, compare) and a JSON API under
``/api/``, both over the same engine as the CLI (:func:`gpuhub.answer.query.build_query` → :func:`run_query`).

Routes (all GET): ``/`` the page; ``/api/search`` (the list ``gpuhub search --format json`` prints, same
parameters, same default limit of 20), ``/api/result`` (offers plus provider statuses and the filter report),
``/api/points`` (the chart's points), ``/api/estimate``, ``/api/compare``, ``/api/history``, ``/api/gpus``,
``/api/providers``, ``/api/rankers``,
``/api/openapi.json``. A bad parameter answers 400 with ``{"error": {"parameter": ..., "message": ...}}``,
the same message the CLI prints.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Receive, Scope, Send

from gpuhub.answer.columns import TableColumn, choose_columns, select_fields
from gpuhub.answer.params import (
    COMPARE,
    ESTIMATE,
    HISTORY,
    MAX_QUERY_BYTES,
    PAGE_EXCLUDED,
    Param,
    parameter_name,
    query_kwargs,
    search_params,
)
from gpuhub.answer.spec import OUTPUT_PARAMS
from gpuhub.display import money, plain
from gpuhub.errors import QueryError
from gpuhub.model import Offer
from gpuhub.service.answers import MAX_NUMBER, MAX_OFFERS, number, run_search
from gpuhub.service.engine import Engine, RequestedMode
from gpuhub.service.searching import SearchResult, default_engine
from gpuhub.web.plan import plan_routes

__all__ = ["MAX_OFFERS", "create_app"]

HERE = Path(__file__).parent
PAGE_SIZE = 100
MAX_PICKS = 4
PAGE_ONLY = {name: Param(name, kind, help, default, name) for name, kind, help, default in (
    ("order", "text", "table column to sort by", None), ("desc", "flag", "sort the column descending", False),
    ("page", "integer", "page of the table (100 rows a page)", None),
    ("pick", "list", "offers to compare (row keys, at most 4)", None),
    ("hours", "number", "job length for the compare view's job cost, hours", None))}


def offer_key(offer: Offer) -> str:
    """A row's identity in links (compare picks): provider|instance type|region|zone|purchase|payment option."""
    return "|".join((offer.provider, offer.instance_type, offer.region.code, offer.region.zone or "",
                     offer.price.purchase, offer.price.payment_option or ""))


def _num(value: Decimal | float | None) -> float | None:
    return None if value is None else float(value)


COLUMNS: dict[str, tuple[str, Callable[[Offer], Any]]] = {
    "provider": ("provider", lambda o: o.provider),
    "instance_type": ("instance type", lambda o: o.instance_type),
    "region": ("region", lambda o: (o.region.code, o.region.zone or "")),
    "gpu_name": ("GPU", lambda o: o.instance.gpu.name if o.instance.gpu else None),
    "gpu_count": ("GPUs", lambda o: float(o.instance.gpu_count)),
    "gpu_memory_gib": ("VRAM/GPU GiB", lambda o: o.instance.gpu_memory_gib),
    "vcpus": ("vCPUs", lambda o: o.instance.vcpus),
    "memory_gib": ("RAM GiB", lambda o: o.instance.memory_gib),
    "purchase": ("purchase", lambda o: o.price.purchase),
    "price_per_hour": ("per hour", lambda o: o.price.amount),
    "price_per_gpu_hour": ("per GPU-hour", lambda o: o.price_per_gpu_hour),
    "available": ("avail", lambda o: o.available),
}
"""Sortable table columns: key (also the JSON field) → (heading, sort key of an offer)."""


class _Limits:
    """Refuses query strings longer than :data:`MAX_QUERY_BYTES` (414) and request bodies (413): every route is
    a GET."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            problem = None
            if len(scope.get("query_string", b"")) > MAX_QUERY_BYTES:
                problem = (414, "query string", f"at most {MAX_QUERY_BYTES} bytes per request")
            elif any(k == b"content-length" and v.strip() not in (b"", b"0") for k, v in scope["headers"]):
                problem = (413, "body", "requests carry no body; every parameter goes in the query string")
            if problem:
                await _error(problem[1], problem[2], problem[0])(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _error(parameter: str, message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": {"parameter": parameter, "message": message}}, status_code=status)


def _query_error(exc: QueryError) -> JSONResponse:
    return _error(parameter_name(exc.argument), exc.detail)


def _check_known(request: Request, allowed: Sequence[str]) -> None:
    for name in request.query_params:
        if name not in allowed:
            close = difflib.get_close_matches(name, allowed, n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(close)}?" if close else f"; allowed: {', '.join(allowed)}"
            raise QueryError(name, f"unknown parameter{hint}")


@dataclass
class Page:
    """What the page shows: the search, the table's rows after column sort and paging, the compare picks."""

    result: SearchResult
    order: list[int]
    page: int
    pages: int
    picks: list[int]
    hours: float
    column: str | None
    desc: bool
    params: list[tuple[str, str]]
    columns: frozenset[str] | None = None
    """The page columns (:data:`COLUMNS` keys) the request chose (``columns``), or None for all."""

    def show(self, column: str) -> bool:
        """Whether the table shows the page column ``column``."""
        return self.columns is None or column in self.columns

    @property
    def query_string(self) -> str:
        """The request's parameters as a URL query string."""
        return urlencode(self.params)

    def _link(self, **changes: Any) -> str:
        kept = [(k, v) for k, v in self.params if k not in changes]
        kept += [(k, str(v)) for k, v in changes.items() if v not in (None, "", False)]
        return "?" + urlencode(kept) if kept else "/"

    def sort_link(self, column: str | None) -> str:
        """The link of a column heading: ascending first, then descending; ``None``: the ranker's order."""
        desc = column is not None and column == self.column and not self.desc
        return self._link(order=column, desc="1" if desc else None, page=None)

    def page_link(self, page: int) -> str:
        """The query string of page ``page`` (1-based) of the same search."""
        return self._link(page=page if page > 1 else None)

    @property
    def shown(self) -> list[int]:
        """Row numbers of the result shown on this page, in table order."""
        return self.order[(self.page - 1) * PAGE_SIZE:self.page * PAGE_SIZE]

    @property
    def first(self) -> int:
        """The 1-based position of the page's first row in the table."""
        return (self.page - 1) * PAGE_SIZE + 1

    @property
    def last(self) -> int:
        """The 1-based position of the page's last row in the table."""
        return self.first + len(self.shown) - 1

    @property
    def rows(self) -> list[tuple[int, Offer, dict[str, Any], dict[str, Any]]]:
        """(row number, offer, its record, its ranking details) of each row shown."""
        return [(i, self.result.offers[i], self.result.offers[i].to_record(), self.result.details(i))
                for i in self.shown]

    @property
    def scored(self) -> bool:
        """True when the table is ranked by a score (not by a price column): the score column shows."""
        return self.result.query.sort not in ("price", "price_per_gpu", "price_per_vram")

    @property
    def score_unit(self) -> str:
        """The unit of the ranker's score (empty without rows)."""
        return self.result.score_unit if len(self.result) else ""

    @property
    def notes(self) -> list[str]:
        """Warnings: a capped table, and for an empty result what each filter removed."""
        result = self.result
        out = []
        rows = result.choices if result.choices is not None else result.matched
        if rows > len(result):
            out.append(f"the table holds the first {len(result)} of {rows} matching rows: narrow the filters")
        if not result.offers:
            out.extend(self.report)
        return out

    @property
    def report(self) -> list[str]:
        """What each filter removed (the CLI's ``--explain`` lines, without the status lines shown above)."""
        said = tuple(f"{s.provider} {s.state}:" for s in self.result.statuses)
        return [line for line in self.result.explain() if not line.startswith(said)]

    @property
    def compare(self) -> list[tuple[str, list[str]]]:
        """(figure, one value per picked offer) rows of the compare view."""
        from gpuhub.answer.estimate import estimate

        offers = [self.result.offers[i] for i in self.picks]
        records = [o.to_record() for o in offers]
        details = [self.result.details(i) for i in self.picks]
        jobs = [estimate(o, self.hours) for o in offers]
        rows: list[tuple[str, list[str]]] = []
        for label, key in (("provider", "provider"), ("instance type", "instance_type"), ("region", "region"),
                           ("zone", "zone"), ("country", "country"), ("GPU", "gpu_name"), ("GPUs", "gpu_count"),
                           ("VRAM per GPU, GiB", "gpu_memory_gib"), ("VRAM total, GiB", "gpu_memory_total_gib"),
                           ("vCPUs", "vcpus"), ("RAM, GiB", "memory_gib"), ("purchase", "purchase"),
                           ("available", "available"), ("source", "source")):
            rows.append((label, [_fmt(r[key]) for r in records]))
        rows.append(("per hour", [f"{_fmt(o.price.amount)} {o.price.currency}" for o in offers]))
        for label, key in (("per GPU-hour", "price_per_gpu_hour"), ("per VRAM GiB-hour", "price_per_vram_gib_hour")):
            rows.append((label, [_fmt(getattr(o, key)) for o in offers]))  # Decimals: the printing rule
        for label, key in (("USD per BF16 TFLOP-hour", "usd_per_bf16_tflop_hour"),
                           ("USD per FP8 TFLOP-hour", "usd_per_fp8_tflop_hour"),
                           ("USD per FP64 TFLOP-hour", "usd_per_fp64_tflop_hour"),
                           ("USD per TB/s-hour", "usd_per_tb_s_hour"), ("RTT, ms", "rtt_ms"),
                           ("carbon, gCO2e/h", "carbon_g_per_hour"), ("why", "explanation")):
            rows.append((label, [_fmt(d.get(key)) for d in details]))
        rows.append((f"job cost, {_fmt(self.hours)} h", [f"{j.cost_rounded()} {j.currency}" for j in jobs]))
        rows.append(("billed hours", [_fmt(float(j.billed_hours)) for j in jobs]))
        rows.append(("job notes", ["; ".join(j.notes) or "-" for j in jobs]))
        return rows


class Web:
    """The application state: the engine, where its data comes from, the templates."""

    def __init__(self, engine: Engine | None, fixtures_dir: Path | None, fetch: RequestedMode) -> None:
        self._engine = engine
        self.fixtures_dir = fixtures_dir
        self.fetch: RequestedMode = fetch
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        self.templates.env.globals.update(columns=COLUMNS, offer_key=offer_key, fmt=_fmt, money=money)
        self.templates.env.finalize = _as_text  # every {{ value }}: control characters escaped, then HTML-escaped

    @property
    def engine(self) -> Engine:
        """The engine searches use (the one given, else the process-wide default)."""
        return self._engine or default_engine()

    def run(self, kwargs: dict[str, Any]) -> SearchResult:
        """Run a search with ``kwargs`` (``gpuhub.search`` arguments) on this app's data source.

        Raises:
            QueryError: an argument is invalid.
        """
        return run_search(self.engine, kwargs, fixtures_dir=self.fixtures_dir, fetch=self.fetch)

    def search(self, request: Request, *, defaults: bool, extra: dict[str, Param] | None = None) -> SearchResult:
        """The search the request asks for.

        Args:
            request: its query parameters are the search's (spec names; unknown names are refused).
            defaults: apply the API's defaults to parameters not given.
            extra: parameters beyond the search's that this endpoint accepts.

        Raises:
            QueryError: an unknown parameter or an invalid value (named in the error).
        """
        page = extra is PAGE_ONLY
        allowed = [p.name for p in search_params() if not (page and p.name in PAGE_EXCLUDED)] + list(extra or {})
        _check_known(request, allowed)
        kwargs = query_kwargs(request.query_params.getlist, extra=extra, defaults=defaults)
        for name in [*(extra or {}), *(p.name for p in OUTPUT_PARAMS)]:
            kwargs.pop(name, None)
        shown_columns(request)  # a bad column name is the request's error, before any search
        if kwargs.get("limit") is None and not defaults:
            kwargs["limit"] = MAX_OFFERS
        return self.run(kwargs)

    # --- API -------------------------------------------------------------------------------------------------

    def api_search(self, request: Request) -> Response:
        """``GET /api/search``: the ranked offers as JSON; 400 with the argument's name on a bad one;
        ``columns=a,b`` keeps only the record fields of those table columns."""
        try:
            records = self.search(request, defaults=True).to_dicts()
            columns = shown_columns(request)
        except QueryError as exc:
            return _query_error(exc)
        return JSONResponse(select_fields(records, columns))

    def api_result(self, request: Request) -> Response:
        """``GET /api/result``: the whole result (offers, statuses, filter counts) and its explanation as JSON; 400 on a
        bad argument.
        """
        try:
            result = self.search(request, defaults=True)
        except QueryError as exc:
            return _query_error(exc)
        return JSONResponse({**result.to_dict(), "explain": result.explain()})

    def api_points(self, request: Request) -> Response:
        """The chart: one point per offer of the page's search with a per-GPU price and a VRAM figure."""
        try:
            result = self.search(request, defaults=False, extra=PAGE_ONLY)
        except QueryError as exc:
            return _query_error(exc)
        return JSONResponse({"points": points(result), "matched": result.matched, "shown": len(result)})

    def _answer(self, request: Request, params: dict[str, Param],
                build: Callable[[Engine, dict[str, Any]], Any]) -> Response:
        """A non-search answer of :mod:`gpuhub.service.answers` for the request's parameters (``params``)."""
        try:
            _check_known(request, list(params))
            return JSONResponse(build(self.engine, query_kwargs(request.query_params.getlist, extra=params,
                                                                only=True)))
        except QueryError as exc:
            return _error(exc.argument, exc.detail)

    def api_estimate(self, request: Request) -> Response:
        """``GET /api/estimate``: a job's cost on the offers found, as JSON; 400 on a bad argument."""
        from gpuhub.service.answers import estimate_answer

        return self._answer(request, ESTIMATE, lambda engine, kwargs: estimate_answer(
            engine, kwargs, fixtures_dir=self.fixtures_dir, fetch=self.fetch))

    def api_compare(self, request: Request) -> Response:
        """``GET /api/compare``: the purchase options of one job compared, as JSON; 400 on a bad argument."""
        from gpuhub.service.answers import compare_answer

        return self._answer(request, COMPARE, lambda engine, kwargs: compare_answer(
            engine, kwargs, fixtures_dir=self.fixtures_dir, fetch=self.fetch))

    def api_history(self, request: Request) -> Response:
        """``GET /api/history``: stored price history as JSON; 400 on a bad argument."""
        from gpuhub.service.answers import history_answer

        return self._answer(request, HISTORY, history_answer)

    def api_gpus(self, request: Request) -> Response:
        """``GET /api/gpus``: the GPU table (the registry's, plugins' aliases included) as JSON."""
        from gpuhub.service.reports import gpu_rows

        return JSONResponse(gpu_rows(self.engine.registry.gpus))

    def api_providers(self, request: Request) -> Response:
        """``GET /api/providers``: each provider, its mode and credentials state, as JSON."""
        from gpuhub.service.reports import provider_rows

        return JSONResponse(provider_rows(self.engine))

    def api_rankers(self, request: Request) -> Response:
        """``GET /api/rankers``: each ranker's name, score unit and formula, as JSON."""
        return JSONResponse([{"name": r.name, "unit": r.unit, "formula": r.description}
                             for r in self.engine.registry.rankers.values()])

    def api_openapi(self, request: Request) -> Response:
        """``GET /api/openapi.json``: the API's OpenAPI schema (from the parameter spec)."""
        from gpuhub.web.openapi import openapi

        return JSONResponse(openapi())

    # --- page ------------------------------------------------------------------------------------------------

    def page(self, request: Request) -> Response:
        """``GET /``: the search form and, when it was submitted, the result table (paged, column-sorted) and compare
        view; a bad argument is shown on the page.
        """
        from gpuhub.web.form import form_fields

        context: dict[str, Any] = {"fields": form_fields(self.engine.registry, request.query_params.getlist),
                                   "error": None, "view": None, "params": request.query_params}
        try:
            result = self.search(request, defaults=False, extra=PAGE_ONLY)
            kwargs = query_kwargs(request.query_params.getlist, extra=PAGE_ONLY, defaults=False)
            context["view"] = _view(result, {**kwargs, "_params": request.query_params.multi_items()})
            chosen = shown_columns(request)
            if chosen is not None:
                context["view"].columns = frozenset(k for c in chosen for k in PAGE_COLUMNS.get(c.name, (c.name,)))
        except QueryError as exc:
            context["error"] = {"parameter": parameter_name(exc.argument), "message": exc.detail}
        except ArithmeticError as exc:  # the compare view's job cost of numbers that passed their bounds
            context["error"] = {"parameter": "hours", "message": f"the job cost cannot be computed "
                                f"({type(exc).__name__}); at most {MAX_NUMBER:,.0f} hours"}
        return self.templates.TemplateResponse(request, "index.html", context,
                                               status_code=400 if context["error"] else 200)


def shown_columns(request: Request) -> list[TableColumn] | None:
    """The table columns a request names (``columns``), or None for all of them (none named, or ``wide``).

    Raises:
        QueryError: an unknown column (naming the allowed values).
    """
    named = choose_columns(request.query_params.getlist("columns"))
    wide = request.query_params.get("wide", "").strip().lower() in ("1", "true", "on", "yes")
    return None if wide else named


PAGE_COLUMNS = {"price": ("price_per_hour",), "per_gpu": ("price_per_gpu_hour",), "gpu": ("gpu_name", "gpu_count"),
                "vram": ("gpu_memory_gib",), "ram": ("memory_gib",), "avail": ("available",)}
"""The page's columns (:data:`COLUMNS`) of each table column whose name differs from them."""


def _view(result: SearchResult, kwargs: dict[str, Any]) -> Page:
    """Column sort (None last either way), paging, and compare picks of a page's search."""
    order = list(range(len(result)))
    column = kwargs.get("order")
    if column is not None:
        if column not in COLUMNS:
            raise QueryError("order", f"{column!r} is not a column; allowed values: {', '.join(COLUMNS)}")
        key = COLUMNS[column][1]
        keyed = [(key(o), i) for i, o in enumerate(result.offers)]
        known = sorted((k for k in keyed if k[0] is not None), key=lambda k: k[0],
                       reverse=bool(kwargs.get("desc")))
        order = [i for _, i in known] + [i for k, i in keyed if k is None]
    pages = max(1, math.ceil(len(order) / PAGE_SIZE))
    page = int(number("page", kwargs.get("page", 1)))
    if not 1 <= page <= pages:
        raise QueryError("page", f"must be a page from 1 to {pages}, got {kwargs.get('page')!r}")
    wanted = kwargs.get("pick") or []
    if len(wanted) > MAX_PICKS:
        raise QueryError("pick", f"compare at most {MAX_PICKS} offers, got {len(wanted)}")
    index = {offer_key(o): i for i, o in enumerate(result.offers)} if wanted else {}
    hours = number("hours", kwargs.get("hours", 100))
    if hours <= 0:
        raise QueryError("hours", f"must be a positive number of hours, got {kwargs.get('hours')!r}")
    params = [(k, v) for k, v in kwargs.pop("_params") if v.strip()]
    return Page(result, order, page, pages, [index[k] for k in wanted if k in index], hours, column,
                bool(kwargs.get("desc")), params)


def points(result: SearchResult) -> list[dict[str, Any]]:
    """Chart points: key, provider, instance type, region, GPU, GPUs, VRAM per GPU (GiB), price per hour and per
    GPU-hour, currency, rank (0-based) — for each offer that has a GPU with known memory."""
    out = []
    for rank, offer in enumerate(result.offers):
        vram, per_gpu = offer.instance.gpu_memory_gib, offer.price_per_gpu_hour
        if not vram or per_gpu is None or per_gpu <= 0:
            continue
        gpu = offer.instance.gpu
        out.append({"key": offer_key(offer), "rank": rank, "provider": offer.provider,
                    "instance_type": offer.instance_type, "region": offer.region.code,
                    "gpu_name": gpu.name if gpu else None, "gpu_count": float(offer.instance.gpu_count),
                    "gpu_memory_gib": vram, "price_per_hour": float(offer.price.amount),
                    "price_per_gpu_hour": float(per_gpu), "currency": offer.price.currency})
    return out


def _as_text(value: Any) -> Any:
    """The template's finalizer: text printed as text (:func:`gpuhub.display.plain`; autoescape then makes it HTML);
    markup the application built itself (``Markup``) and non-text values pass unchanged."""
    if isinstance(value, str) and not hasattr(value, "__html__"):
        return plain(value)
    return value


def _fmt(value: Any, digits: int = 4) -> str:
    """A figure for a table cell: '-' for missing, a price (a ``Decimal``) by the printing rule
    (:func:`gpuhub.display.money`), other floats to ``digits`` significant digits."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Decimal):
        return money(value)
    if isinstance(value, float):
        return f"{value:g}" if value.is_integer() or abs(value) >= 100 else f"{value:.{digits}g}"
    return str(value)


def create_app(engine: Engine | None = None, *, fixtures_dir: Path | None = None,
               fetch: RequestedMode = "auto") -> Starlette:
    """The ASGI application. ``engine`` defaults to the process-wide one; ``fixtures_dir``/``fetch`` as in
    :func:`gpuhub.search` (the server decides where data comes from, not a request)."""
    web = Web(engine, fixtures_dir, fetch)
    routes = [
        Route("/", web.page, name="page"),
        Route("/api/search", web.api_search), Route("/api/result", web.api_result),
        Route("/api/points", web.api_points), Route("/api/estimate", web.api_estimate),
        Route("/api/compare", web.api_compare), Route("/api/history", web.api_history),
        Route("/api/gpus", web.api_gpus), Route("/api/providers", web.api_providers),
        Route("/api/rankers", web.api_rankers), Route("/api/openapi.json", web.api_openapi),
        *plan_routes(lambda: web.engine, fixtures_dir, fetch, web.templates),  # /api/plan/*, /plan
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(_Limits)])
    app.state.web = web
    return app
