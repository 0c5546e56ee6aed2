"""The API's OpenAPI 3.1 description, built from the same parameter list the handlers read."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gpuhub.answer.params import COMPARE, ESTIMATE, HISTORY, KIND_SCHEMAS, MAX_QUERY_BYTES, Param, search_params
from gpuhub.web.plan import openapi_paths

__all__ = ["openapi"]

_ERROR = {"description": "a bad parameter: the message names it and the allowed values",
          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def _parameters(params: Iterable[Param]) -> list[dict[str, Any]]:
    out = []
    for p in params:
        schema = dict(KIND_SCHEMAS[p.kind])
        if p.default not in (None, False):
            schema["default"] = p.default
        out.append({"name": p.name, "in": "query", "required": False, "description": p.help, "schema": schema,
                    **({"explode": True, "style": "form"} if p.kind == "list" else {})})
    return out


def _get(summary: str, params: list[dict[str, Any]], schema: dict[str, Any]) -> dict[str, Any]:
    return {"get": {"summary": summary, "parameters": params,
                    "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": schema}}},
                                  "400": _ERROR, "414": _ERROR}}}


def openapi() -> dict[str, Any]:
    """The OpenAPI document (a JSON-ready dict)."""
    search = _parameters(search_params())
    records = {"type": "array", "items": {"type": "object"}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "gpuhub", "version": _version(),
                 "description": "Find and price cloud GPU instances. The same parameters and JSON as `gpuhub "
                                f"search --format json`. Query strings are limited to {MAX_QUERY_BYTES} bytes, "
                                "one request to 5000 offers."},
        "paths": {
            "/api/search": _get("offers, as `gpuhub search --format json` prints them", search, records),
            "/api/result": _get("offers, provider statuses, filter report and explanation lines", search,
                                {"type": "object"}),
            "/api/points": _get("the page's chart points (every matching offer with a per-GPU price)", search,
                                {"type": "object"}),
            "/api/estimate": _get("job cost per region, as `gpuhub estimate --format json` prints it",
                                  _parameters(ESTIMATE.values()), {"type": "object"}),
            "/api/compare": _get("every purchase model of one instance type for a job, as `gpuhub estimate --compare "
                                 "--format json` prints it", _parameters(COMPARE.values()), {"type": "object"}),
            "/api/history": _get("price history from the store, as `gpuhub history --format json` prints it",
                                 _parameters(HISTORY.values()), {"type": "object"}),
            "/api/gpus": _get("the GPU table, as `gpuhub gpus --format json`", [], records),
            "/api/providers": _get("installed providers, as `gpuhub providers --format json`", [], records),
            "/api/rankers": _get("rankers, as `gpuhub rankers --format json`", [], records),
            **openapi_paths(_parameters, _get),
        },
        "components": {"schemas": {"Error": {"type": "object", "properties": {"error": {
            "type": "object", "properties": {"parameter": {"type": "string"}, "message": {"type": "string"}},
            "required": ["parameter", "message"]}}}}},
    }


def _version() -> str:
    from gpuhub._version import __version__

    return __version__
