"""Named request parameters: the search parameter spec (:data:`gpuhub.answer.spec.SEARCH_PARAMS`) by URL name,
and the parameters of the estimate, compare and history answers.

Every search parameter is a URL parameter of the page and of ``/api/search`` and an argument of the MCP server's
``search`` tool, named like its CLI option without dashes (``--min-gpus`` → ``min_gpus``, ``--all-regions`` →
``all_regions``), with its help text and kind: a filter added to the spec shows up in the form, the API, the
OpenAPI description and the MCP tools' input schemas without surface code. Options about where data comes from
(``--fixtures``, ``--fetch``, ``--refresh``, ``--timeout``) and output (``--format``, ``--explain``) are not search
parameters: they are the server's business, not a request's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpuhub.answer.spec import SEARCH_PARAMS
from gpuhub.errors import QueryError

__all__ = ["COMPARE", "ESTIMATE", "HISTORY", "KIND_SCHEMAS", "MAX_LIST_VALUES", "MAX_QUERY_BYTES", "PAGE_EXCLUDED",
           "Param", "parameter_name", "query_kwargs", "search_params"]

PAGE_EXCLUDED = frozenset(p.url_name for p in SEARCH_PARAMS if not p.page)
"""Parameters the API takes but the page does not (the page's table shows offers, not groups)."""
MAX_QUERY_BYTES = 4096
"""The longest query string a request may send."""
MAX_LIST_VALUES = 64
"""The most values one repeatable parameter may carry."""
_TRUE = ("1", "true", "on", "yes")
_FALSE = ("0", "false", "off", "no")


@dataclass(frozen=True)
class Param:
    """One URL parameter: its ``name``, kind (``list``, ``number``, ``integer``, ``text``, ``flag``), help text,
    default (the CLI's), and the search argument (``build_query``) it feeds."""

    name: str
    kind: str
    help: str
    default: Any
    argument: str
    inverted: bool = False

    @property
    def label(self) -> str:
        """The form's label: the name with spaces."""
        return self.name.replace("_", " ")


KIND_SCHEMAS: dict[str, dict[str, Any]] = {
    "list": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_LIST_VALUES},
    "number": {"type": "number", "minimum": 0}, "integer": {"type": "integer", "minimum": 1},
    "flag": {"type": "boolean"}, "text": {"type": "string"}}
"""The JSON schema of each kind of parameter (OpenAPI's query parameters, the MCP tools' arguments)."""


def _params(*rows: tuple[str, str, str, Any]) -> dict[str, Param]:
    return {name: Param(name, kind, help, default, name) for name, kind, help, default in rows}


ESTIMATE = _params(
    ("instance_type", "text", "instance type, e.g. p5.48xlarge", None),
    ("hours", "number", "run time the job needs, hours", None), ("provider", "text", "provider name", None),
    ("region", "list", "region or zone code(s); default: every region", None),
    ("purchase", "text", "on_demand, spot, reserved_1y, ...", "on_demand"),
    ("interruption_overhead", "number", "spot: extra run time fraction", 0.10),
    ("checkpoint_every", "number", "hours between checkpoints: spot expected cost", 1.0),
    ("egress_gb", "number", "GB the job moves out to the internet: its cost is added where the provider publishes "
                            "an egress price", None),
    ("disk_gib", "number", "GiB of attached block storage the job keeps while it runs: its cost is added where the "
                           "provider publishes a price per GB-month", None))
"""The parameters of the estimate answer (``/api/estimate``, ``gpuhub estimate``); instance_type and hours are
required."""
COMPARE = {**{k: v for k, v in ESTIMATE.items() if k not in ("purchase", "egress_gb", "disk_gib")}, **_params(
    ("start", "text", "when the job may start, ISO date or time (UTC unless it says): capacity blocks starting "
                      "earlier are left out; default now", None))}
"""The parameters of the compare answer (``/api/compare``, ``gpuhub estimate --compare``): every purchase model of
one instance type for a job."""
HISTORY = _params(
    ("instance_type", "list", "instance type(s), exact", None), ("gpu", "list", "GPU name(s) or aliases", None),
    ("provider", "list", "provider name(s)", None), ("region", "list", "region or zone code(s)", None),
    ("purchase", "list", "purchase model(s): on_demand, spot, ...", None),
    ("since", "text", "window: 30d, 12h, 2w, an ISO date, or 'all'", "30d"),
    ("group", "text", "offer, instance_type, gpu, provider or region (a group's price is its cheapest offer's)",
     "offer"),
    ("limit", "integer", "at most this many series (cheapest last price first)", 50))
"""The parameters of the history answer (``/api/history``, ``gpuhub history``)."""

_PARAMS = [Param(p.url_name, p.kind, p.help, p.flag_default, p.name, p.inverted) for p in SEARCH_PARAMS]


def search_params() -> list[Param]:
    """The parameters of the page and of ``/api/search``, in the spec's (and ``gpuhub search --help``'s) order."""
    return _PARAMS


def parameter_name(argument: str) -> str:
    """The URL parameter behind a ``build_query`` argument named in a :class:`QueryError`."""
    for param in search_params():
        if param.argument == argument:
            return param.name
    return argument


def query_kwargs(values: Callable[[str], Sequence[str]], *, extra: Mapping[str, Param] | None = None,
                 defaults: bool = True, only: bool = False) -> dict[str, Any]:
    """``build_query`` keyword arguments from request values (``values(name)`` → every value given for ``name``).

    Empty values count as not given. ``defaults=False`` leaves out the CLI's default of a parameter not given
    (the page shows every matching offer; the API, like the CLI, the first 20). ``only``: the ``extra`` parameters
    alone, not the search parameters (an estimate, a history).

    Raises:
        QueryError: a flag that is not true/false, a repeated single-valued parameter, or too many values
            (the error names the URL parameter).
    """
    kwargs: dict[str, Any] = {}
    for param in [*([] if only else search_params()), *(extra or {}).values()]:
        given = [v.strip() for v in values(param.name) if v.strip()]
        if not given:
            if param.inverted:
                kwargs[param.argument] = not param.default
            elif defaults and param.default not in (None, False):
                kwargs[param.argument] = param.default
            continue
        count = sum(len(v.split(",")) for v in given)
        if count > MAX_LIST_VALUES:
            raise QueryError(param.name, f"at most {MAX_LIST_VALUES} values per request, got {count}")
        if param.kind == "list":
            kwargs[param.argument] = given
            continue
        if len(given) > 1:
            raise QueryError(param.name, f"takes one value, got {len(given)}: {', '.join(given)}")
        value = given[0]
        if param.kind == "flag":
            if value.lower() not in _TRUE + _FALSE:
                raise QueryError(param.name, f"expected true or false, got {value!r}")
            kwargs[param.argument] = (value.lower() in _TRUE) != param.inverted
        else:
            kwargs[param.argument] = value
    return kwargs
