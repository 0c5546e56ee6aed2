"""Fixtures for history, diff, watch, the PostgreSQL store and published catalogs."""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import servers


@pytest.fixture(scope="session")
def pg_server() -> Iterator[servers.PgServer]:
    """One throwaway PostgreSQL cluster for the whole session (or ``GPUHUB_TEST_POSTGRES_URL``'s server)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        servers.unavailable("psycopg is not installed (pip install 'psycopg[binary]')")
    try:
        server = servers.start_postgres()
    except (RuntimeError, OSError) as exc:
        servers.unavailable(f"PostgreSQL could not start: {exc}")
        raise
    yield server
    server.stop()


_databases = itertools.count(1)


@pytest.fixture
def pg_url(pg_server: servers.PgServer) -> str:
    """A URL to a new, empty database on the throwaway server (one per test)."""
    import psycopg

    name = f"t{os.getpid()}_{next(_databases)}"
    with psycopg.connect(pg_server.url(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return pg_server.url(name)


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """moto's S3 server on loopback (session-wide); fake credentials are set for boto3."""
    try:
        import boto3  # noqa: F401
        import moto  # noqa: F401
    except ImportError:
        servers.unavailable("boto3 and moto[server] are not installed")
    saved = {k: os.environ.get(k) for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION")}
    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_DEFAULT_REGION="us-east-1")
    with servers.moto_s3() as endpoint:
        yield endpoint
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
