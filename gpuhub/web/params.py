"""The web's search parameters, read off the ``gpuhub search`` command itself.

Every option of ``gpuhub search`` that becomes a :func:`gpuhub.answer.query.build_query` argument is a URL parameter of
the page and of ``/api/search``, with the CLI option's name (``--min-gpus`` → ``min_gpus``), help text and type:
a filter added to the CLI and to ``build_query`` shows up in the form, the API and the OpenAPI description without
web code. Options about where data comes from (``--fixtures``, ``--fetch``, ``--refresh``, ``--timeout``) and output
(``--format``, ``--explain``) are the server's business, not a request's.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpuhub.answer.query import build_query
from gpuhub.errors import QueryError

__all__ = ["MAX_LIST_VALUES", "MAX_QUERY_BYTES", "Param", "query_kwargs", "search_params"]

SERVER_SIDE = frozenset({"explain", "fixtures", "fetch", "refresh", "timeout", "output"})
"""CLI options that a web request may not set."""
TO_BUILD_QUERY = {"available": "available_only", "mig": "mig_capable", "model_mode": "mode", "all_regions": "distinct"}
"""CLI parameter → ``build_query`` argument, where the two names differ."""
INVERTED = frozenset({"all_regions"})
"""Flags whose ``build_query`` argument is their negation (``--all-regions`` is ``distinct=False``)."""
PAGE_EXCLUDED = frozenset({"group_by"})
"""Parameters the API takes but the page does not (the page's table shows offers, not groups)."""
MAX_QUERY_BYTES = 4096
"""The longest query string a request may send."""
MAX_LIST_VALUES = 64
"""The most values one repeatable parameter may carry."""
_TRUE = ("1", "true", "on", "yes")
_FALSE = ("0", "false", "off", "no")


@dataclass(frozen=True)
class Param:
    """One search parameter: URL ``name``, kind (``list``, ``number``, ``integer``, ``text``, ``flag``), the CLI's
    help text, its default, and the ``build_query`` argument it feeds."""

    name: str
    kind: str
    help: str
    default: Any
    argument: str
    inverted: bool = False

    @property
    def label(self) -> str:
        return self.name.replace("_", " ")


def _kind(annotation: Any) -> str:
    types = set(typing.get_args(annotation)) - {type(None)} or {annotation}
    if any(typing.get_origin(t) in (list, tuple) for t in types):
        return "list"
    if bool in types:
        return "flag"
    if int in types:
        return "integer"
    if float in types:
        return "number"
    return "text"


_cache: list[Param] | None = None


def search_params() -> list[Param]:
    """The parameters of ``gpuhub search`` that the web accepts, in the CLI's order."""
    global _cache
    if _cache is None:
        from gpuhub.cli import commands as cli

        hints = typing.get_type_hints(cli.search, include_extras=True)
        accepted = set(inspect.signature(build_query).parameters) - {"gpus", "providers", "rankers"}
        params = []
        for name, parameter in inspect.signature(cli.search).parameters.items():
            if name in SERVER_SIDE:
                continue
            base, info = typing.get_args(hints[name])[:2]
            argument = TO_BUILD_QUERY.get(name, name)
            if argument not in accepted:
                continue
            flag = info.default if isinstance(info.default, str) and info.default.startswith("--") else None
            url_name = (flag or "--" + name).removeprefix("--").replace("-", "_")
            params.append(Param(url_name, _kind(base), info.help or "", parameter.default, argument,
                                name in INVERTED))
        _cache = params
    return _cache


def parameter_name(argument: str) -> str:
    """The URL parameter behind a ``build_query`` argument named in a :class:`QueryError`."""
    for param in search_params():
        if param.argument == argument:
            return param.name
    return argument


def query_kwargs(values: Callable[[str], Sequence[str]], *, extra: Mapping[str, Param] | None = None,
                 defaults: bool = True) -> dict[str, Any]:
    """``build_query`` keyword arguments from request values (``values(name)`` → every value given for ``name``).

    Empty values count as not given. ``defaults=False`` leaves out the CLI's default of a parameter not given
    (the page shows every matching offer; the API, like the CLI, the first 20).

    Raises:
        QueryError: a flag that is not true/false, a repeated single-valued parameter, or too many values
            (the error names the URL parameter).
    """
    kwargs: dict[str, Any] = {}
    for param in [*search_params(), *(extra or {}).values()]:
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
