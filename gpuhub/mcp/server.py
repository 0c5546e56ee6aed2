"""The MCP tools and the stdio server (the official ``mcp`` SDK's low-level server).

Each tool is a name, a description written for an agent choosing among them, the parameters it takes (the search
parameter spec, :data:`gpuhub.answer.spec.SEARCH_PARAMS`, or the named parameters of
:mod:`gpuhub.answer.params`) and the answer of :mod:`gpuhub.service.answers` it returns: the JSON of the web API
route named in the description, as the text content of the result (and as structured content when it is an
object). A bad argument is a tool error (``isError``) whose text is the API's 400 body,
``{"error": {"parameter": ..., "message": ...}}``, naming the argument and the allowed values.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from gpuhub.answer.params import COMPARE, ESTIMATE, HISTORY, KIND_SCHEMAS, Param, parameter_name, query_kwargs
from gpuhub.answer.spec import SEARCH_PARAMS, Choices
from gpuhub.errors import QueryError
from gpuhub.service.engine import Engine, RequestedMode

__all__ = ["TOOLS", "Tool", "call", "input_schema", "make_server", "run_stdio"]

Answer = Callable[[Engine, dict[str, Any], Path | None, RequestedMode], Any]


@dataclass(frozen=True)
class Tool:
    """One MCP tool: its ``name``, ``description``, parameters (``params``: None for the search parameters of
    the spec), the ones it ``requires`` and the ``answer`` it returns."""

    name: str
    description: str
    params: Mapping[str, Param] | None
    answer: Answer
    requires: tuple[str, ...] = ()


def _search(engine: Engine, kwargs: dict[str, Any], fixtures: Path | None, fetch: RequestedMode) -> Any:
    from gpuhub.service.answers import search_answer

    return search_answer(engine, kwargs, fixtures_dir=fixtures, fetch=fetch)


def _explain(engine: Engine, kwargs: dict[str, Any], fixtures: Path | None, fetch: RequestedMode) -> Any:
    from gpuhub.service.answers import result_answer

    return result_answer(engine, kwargs, fixtures_dir=fixtures, fetch=fetch)


def _estimate(engine: Engine, kwargs: dict[str, Any], fixtures: Path | None, fetch: RequestedMode) -> Any:
    from gpuhub.service.answers import estimate_answer

    return estimate_answer(engine, kwargs, fixtures_dir=fixtures, fetch=fetch)


def _compare(engine: Engine, kwargs: dict[str, Any], fixtures: Path | None, fetch: RequestedMode) -> Any:
    from gpuhub.service.answers import compare_answer

    return compare_answer(engine, kwargs, fixtures_dir=fixtures, fetch=fetch)


def _history(engine: Engine, kwargs: dict[str, Any], fixtures: Path | None, fetch: RequestedMode) -> Any:
    from gpuhub.service.answers import history_answer

    return history_answer(engine, kwargs)


def _gpus(engine: Engine, kwargs: dict[str, Any], fixtures: Path | None, fetch: RequestedMode) -> Any:
    from gpuhub.service.reports import gpu_rows

    return gpu_rows(engine.registry.gpus)


def _providers(engine: Engine, kwargs: dict[str, Any], fixtures: Path | None, fetch: RequestedMode) -> Any:
    from gpuhub.service.reports import provider_rows

    return provider_rows(engine)


TOOLS: tuple[Tool, ...] = (
    Tool("search", "Find and rank cloud GPU offers (instance type, region, purchase model, price per hour) across "
         "every installed provider: AWS, GCP, Azure, Lambda, RunPod, Vast.ai and more, plus capacity the user "
         "already owns. Use it to answer 'which GPU instance should I rent, where, and what does it cost?'. "
         "Filter by GPU (H100, A100-80GB, L4, ...), GPU count, VRAM, price, purchase model (on_demand, spot, "
         "reserved_1y, ...), provider, region, country or continent; rank by price, price per GPU-hour, a workload "
         "(training, inference, ...), latency from a place (near) or carbon; fit a model (model=70b, "
         "precision, mode). Returns a JSON list of offers, best first, each with its price, score and a "
         "one-line explanation: the same JSON as the web API's /api/search and `gpuhub search --format json` "
         "(at most `limit` offers, 20 by default; one row per instance type and purchase model unless "
         "all_regions is true).", None, _search),
    Tool("explain", "The same search as the `search` tool, with the reasons: the offers (each with its score and "
         "explanation), every provider's status (ok, stale, failed and why), how many offers each filter "
         "removed, and explanation lines saying why the result is empty or short. Use it when a search returns "
         "nothing or fewer offers than expected, or to show why an offer ranks first. The same JSON as the web "
         "API's /api/result.", None, _explain),
    Tool("estimate", "The cost of one job on one instance type: for `hours` of run time, the billed hours and the "
         "cost in each region (cheapest first, billing increments and minimum charges included, spot with its "
         "interruption overhead) and the price spread between regions. Use it after `search` has named an "
         "instance type (e.g. p5.48xlarge, gpu_8x_h100_sxm5). The same JSON as the web API's /api/estimate and "
         "`gpuhub estimate --format json`.", ESTIMATE, _estimate, ("instance_type", "hours")),
    Tool("compare", "Every way to buy one instance type for a job, cheapest first: on-demand, spot (expected cost "
         "with interruptions and checkpoints), capacity blocks and calendar windows, reserved terms and savings "
         "plans, each with its job cost and the break-even hours against on-demand. Use it to decide between "
         "purchase models for a known instance type and job length. The same JSON as the web API's /api/compare "
         "and `gpuhub estimate --compare --format json`.", COMPARE, _compare, ("instance_type", "hours")),
    Tool("history", "Price history from the local offer store: each offer's (or group's) price at every change "
         "and its first, min, median, max and last price over a window (since=30d by default). Use it to see "
         "whether a price is rising or falling, or how long it has held. History starts with the first stored "
         "search of each provider. The same JSON as the web API's /api/history and `gpuhub history --format "
         "json`.", HISTORY, _history),
    Tool("gpus", "The GPU table: every known GPU with its vendor, memory (GiB), dense BF16 and FP64 TFLOPS, memory "
         "bandwidth (GB/s), CUDA compute capability, FP8 and Transformer Engine support, MIG, and the aliases "
         "providers use. Use it to pick a GPU name for `search` or to compare GPUs' specifications. The same "
         "JSON as the web API's /api/gpus.", {}, _gpus),
    Tool("providers", "The installed providers: kind (hyperscaler, specialist, ...), plugin, whether credentials "
         "are configured, and where a search's data would come from (live API, a bundled recording, a static "
         "price table) with how to configure it. Use it to know which providers `search` covers and how fresh "
         "their prices are. The same JSON as the web API's /api/providers.", {}, _providers),
)
"""The server's tools, in the order a client lists them."""


def _search_params(choices: Choices) -> dict[str, dict[str, Any]]:
    properties: dict[str, dict[str, Any]] = {}
    for spec in SEARCH_PARAMS:
        schema = dict(KIND_SCHEMAS[spec.kind])
        allowed = spec.allowed(choices) if spec.allowed is not None else None
        if allowed:
            if spec.kind == "list":
                schema["items"] = {"type": "string", "enum": allowed}
            else:
                schema["enum"] = allowed
        if spec.flag_default not in (None, False):
            schema["default"] = spec.flag_default
        properties[spec.url_name] = {**schema, "description": spec.help}
    return properties


def input_schema(tool: Tool, choices: Choices) -> dict[str, Any]:
    """The JSON schema of ``tool``'s arguments: one property per parameter (its kind's schema, its help text, its
    default, its allowed values where they are a closed set); no other property is accepted."""
    if tool.params is None:
        properties = _search_params(choices)
    else:
        properties = {}
        for param in tool.params.values():
            schema = dict(KIND_SCHEMAS[param.kind])
            if param.default not in (None, False):
                schema["default"] = param.default
            properties[param.name] = {**schema, "description": param.help}
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if tool.requires:
        schema["required"] = list(tool.requires)
    return schema


def _names(tool: Tool) -> list[str]:
    return [p.url_name for p in SEARCH_PARAMS] if tool.params is None else list(tool.params)


def _kinds(tool: Tool) -> dict[str, str]:
    return {p.url_name: p.kind for p in SEARCH_PARAMS} if tool.params is None else \
        {name: p.kind for name, p in tool.params.items()}


def _texts(name: str, kind: str, value: Any) -> list[str]:
    """An argument's JSON value as the text values a URL would carry.

    Raises:
        QueryError: a value of the wrong JSON type for the parameter's kind.
    """
    if value is None:
        return []
    if kind == "flag":
        if not isinstance(value, bool):
            raise QueryError(name, f"expected true or false, got {value!r}")
        return ["true" if value else "false"]
    scalar = (str, int, float)
    if kind == "list":
        items = value if isinstance(value, list) else [value]
        if any(isinstance(v, bool) or not isinstance(v, scalar) for v in items):
            raise QueryError(name, f"expected a list of text, got {value!r}")
        return [str(v) for v in items]
    if isinstance(value, bool) or not isinstance(value, scalar):
        expected = "a number" if kind in ("number", "integer") else "text"
        raise QueryError(name, f"expected {expected}, got {value!r}")
    return [str(value)]


def arguments_kwargs(tool: Tool, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of ``tool``'s answer from a tool call's ``arguments`` (JSON values by parameter
    name), read exactly as the web API reads its URL parameters (the CLI's defaults, e.g. ``limit`` 20).

    Raises:
        QueryError: an unknown argument (with the closest names), a value of the wrong type, or a missing
            required argument.
    """
    names = _names(tool)
    for name in arguments:
        if name not in names:
            close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(close)}?" if close else f"; allowed: {', '.join(names) or 'none'}"
            raise QueryError(name, f"unknown argument{hint}")
    for name in tool.requires:
        if arguments.get(name) is None:
            raise QueryError(name, "is required")
    kinds = _kinds(tool)
    texts = {name: _texts(name, kinds[name], value) for name, value in arguments.items()}

    def values(name: str) -> Sequence[str]:
        return texts.get(name, [])

    if tool.params is None:
        return query_kwargs(values, defaults=True)
    return query_kwargs(values, extra=tool.params, defaults=True, only=True)


def _error(argument: str, message: str) -> types.CallToolResult:
    body = {"error": {"parameter": argument, "message": message}}
    return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(body))], is_error=True)


def call(engine: Engine, name: str, arguments: Mapping[str, Any] | None, *, fixtures_dir: Path | None = None,
         fetch: RequestedMode = "auto") -> types.CallToolResult:
    """Run the tool ``name`` (blocking): its JSON answer as text (and structured content for an object), or a tool
    error naming the bad argument."""
    tool = next((t for t in TOOLS if t.name == name), None)
    if tool is None:
        return _error("name", f"unknown tool {name!r}; tools: {', '.join(t.name for t in TOOLS)}")
    try:
        answer = tool.answer(engine, arguments_kwargs(tool, arguments or {}), fixtures_dir, fetch)
    except QueryError as exc:
        argument = parameter_name(exc.argument) if tool.params is None else exc.argument
        return _error(argument, exc.detail)
    return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(answer))],
                                structured_content=answer if isinstance(answer, dict) else None)


def make_server(engine: Callable[[], Engine], *, fixtures_dir: Path | None = None,
                fetch: RequestedMode = "auto") -> Server[Any]:
    """The MCP server of :data:`TOOLS` over the engine ``engine()`` returns (built on the first call, so the
    handshake does not wait for the plugins to load). Searches run in a worker thread."""
    from gpuhub._version import __version__

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        registry = (await anyio.to_thread.run_sync(engine)).registry
        choices = Choices(providers=sorted(registry.providers), rankers=list(registry.rankers))
        return types.ListToolsResult(tools=[
            types.Tool(name=t.name, description=t.description, input_schema=input_schema(t, choices),
                       annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=True))
            for t in TOOLS])

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
                        ) -> types.CallToolResult:
        def run() -> types.CallToolResult:
            return call(engine(), params.name, params.arguments, fixtures_dir=fixtures_dir, fetch=fetch)

        return await anyio.to_thread.run_sync(run)

    return Server("gpuhub", version=__version__, instructions=(
        "gpuhub answers which cloud GPU instance to rent and what it costs. Start with `search` (filters and "
        "a ranking), use `explain` when the answer is empty or surprising, `estimate` or `compare` for a job's "
        "cost on one instance type, `history` for price trends, `gpus` and `providers` for what is known."),
        on_list_tools=list_tools, on_call_tool=call_tool)


async def run_stdio(fixtures_dir: Path | None, fetch: str) -> None:
    """Serve on stdin/stdout until the client closes the connection.

    Raises:
        QueryError: ``fetch`` is not auto, live or replay.
    """
    from gpuhub.service.searching import default_engine

    if fetch not in ("auto", "live", "replay"):
        raise QueryError("fetch", f"{fetch!r} is not allowed; allowed values: auto, live, replay")
    server = make_server(default_engine, fixtures_dir=fixtures_dir, fetch=fetch)  # type: ignore[arg-type]
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
