"""``gpuhub serve``: the web page and the JSON API (install with ``pip install 'gpuhub-core[web]'``).

Importing this package is cheap; the web stack (Starlette, Jinja2, uvicorn) loads in :func:`serve` and
:func:`gpuhub.web.app.create_app`.

May import: :mod:`gpuhub.service` and every library layer below it; never :mod:`gpuhub.cli`.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["serve"]

LOOPBACK = ("127.0.0.1", "::1", "localhost")


def serve(host: str = "127.0.0.1", port: int = 8000, *, fixtures_dir: Path | None = None,
          fetch: str = "auto", workers: int | None = None) -> None:
    """Run the server until interrupted. There is no login: bind to loopback (the default) unless the network
    in front of it decides who may connect. ``workers`` processes answer requests at once (default
    :func:`gpuhub.web.server.worker_count`: ``GPUHUB_WEB_WORKERS``, else the CPU count up to 8).

    Raises:
        ModuleNotFoundError: the ``web`` extra is not installed (the message says how to install it).
    """
    try:
        import uvicorn

        from gpuhub.web.app import create_app
    except ModuleNotFoundError as exc:
        from gpuhub.errors import missing_extra

        raise missing_extra("gpuhub serve", "web", exc) from exc
    from gpuhub.web.server import guarded_app, run, worker_count

    def make_app() -> object:
        return guarded_app(create_app(fixtures_dir=fixtures_dir, fetch=fetch), host, port)  # type: ignore[arg-type]

    del uvicorn  # imported above only to say early that the extra is missing
    run(make_app, host, port, worker_count() if workers is None else workers)
