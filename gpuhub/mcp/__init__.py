"""``gpuhub mcp``: a Model Context Protocol server over stdio, for coding agents and other MCP hosts (install with
``pip install 'gpuhub-core[mcp]'``).

Its tools (``search``, ``explain``, ``estimate``, ``compare``, ``history``, ``gpus``, ``providers``) take the
parameters of the web API (their input schemas are generated from :mod:`gpuhub.answer.params`, the one parameter
spec) and answer with the same JSON as ``/api/*`` (:mod:`gpuhub.service.answers`). See :mod:`gpuhub.mcp.server`.

Importing this package is cheap; the MCP SDK loads in :func:`serve`.

May import: :mod:`gpuhub.service` and every library layer below it; never another surface (:mod:`gpuhub.cli`,
:mod:`gpuhub.web`).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["serve"]


def serve(*, fixtures_dir: Path | None = None, fetch: str = "auto") -> None:
    """Serve the MCP tools on stdin/stdout until the client closes the connection; ``fixtures_dir``/``fetch`` as
    in :func:`gpuhub.search` (the server decides where data comes from, not a tool call).

    Raises:
        ModuleNotFoundError: the ``mcp`` extra is not installed (the message says how to install it).
    """
    try:
        import anyio

        from gpuhub.mcp.server import run_stdio
    except ModuleNotFoundError as exc:
        from gpuhub.errors import missing_extra

        raise missing_extra("gpuhub mcp", "mcp", exc) from exc
    anyio.run(run_stdio, fixtures_dir, fetch)
