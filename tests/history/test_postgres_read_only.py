"""A team store this machine may only read is still read (issue 24, defect 9, on PostgreSQL): with a role granted
SELECT only (a reader's account, like a read-only standby), ``store show`` lists the team's snapshots, and
``gpuhub.search()`` whose live refresh fails serves the stored offers, ``stale``, with one warning that the store is
read-only; before, opening the store tried to create its schema and the store was ignored. A real PostgreSQL on
loopback."""

from __future__ import annotations

import json
import logging

import pytest
from synth import T0, columns, offer, put, schema2_store

import gpuhub
from gpuhub.kit.testing import run_cli
from gpuhub.store import StoreReadOnly


@pytest.fixture
def reader_url(pg_url: str) -> str:
    """A URL of the team store holding one good live snapshot of lambda (gpu_1x_h100 at 2.49), for a role that may
    only read it."""
    import psycopg

    from gpuhub.store.postgres import PostgresStore

    owner = PostgresStore(pg_url)
    put(owner, "lambda", [offer("lambda", "gpu_1x_h100", "us-east-1", "2.49", count=1)], T0)
    owner.close()
    role = "reader_" + pg_url.rsplit("/", 1)[1]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')
        conn.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{role}"')
    return pg_url.replace("://gpuhub@", f"://{role}@", 1)


def test_a_store_the_role_may_only_read_is_read(reader_url: str, caplog: pytest.LogCaptureFixture) -> None:
    from gpuhub.store.postgres import PostgresStore

    shown = run_cli(["store", "show", "--format", "json"], env={"GPUHUB_STORE": reader_url})
    assert shown.exit_code == 0, shown.output
    assert [(s["provider"], s["offers"]) for s in json.loads(shown.stdout)["snapshots"]] == [("lambda", 1)]

    env = {"GPUHUB_STORE": reader_url, "LAMBDA_API_KEY": "fake-key", "GPUHUB_LAMBDA_BASE_URL": "http://127.0.0.1:9"}
    engine = gpuhub.Engine(gpuhub.Registry(), environ=env)
    try:
        with caplog.at_level(logging.WARNING, logger="gpuhub.store"):
            found = gpuhub.search(provider="lambda", fetch="live", refresh=True, engine=engine)
    finally:
        if engine.store is not None:
            engine.store.close()
        engine.shutdown()
    assert [(o.instance_type, str(o.price.amount)) for o in found.offers if o.instance.provider == "lambda"] == \
        [("gpu_1x_h100", "2.49")]
    [status] = [s for s in found.statuses if s.provider == "lambda"]
    line = status.line()
    assert status.state == "stale" and "ConnectError" in line and "showing the last good data" in line, line
    warned = [r.getMessage() for r in caplog.records if "read-only" in r.getMessage()]
    assert len(warned) == 1 and "permission denied" in warned[0], warned

    store = PostgresStore(reader_url)  # the API says so too, and never half-writes
    try:
        with pytest.raises(StoreReadOnly):
            put(store, "lambda", [offer("lambda", "gpu_1x_h100", "us-east-1", "2.59", count=1)], T0.replace(hour=1))
        assert [s.offers for s in store.snapshots("lambda") if s.complete] == [1]
    finally:
        store.close()


def test_a_store_of_the_earlier_layout_the_role_may_only_read_is_read(pg_url: str,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    """Issue 27: a schema-2 team store (before content-addressed parts) that this role cannot migrate is read as it
    is, read-only, and left as it was."""
    import psycopg

    from gpuhub.store.postgres import PostgresStore

    parts = schema2_store(pg_url, columns([offer("lambda", "gpu_1x_h100", "us-east-1", "2.49", count=1)]))
    role = "old_reader_" + pg_url.rsplit("/", 1)[1]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')
        conn.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{role}"')
    with caplog.at_level(logging.WARNING, logger="gpuhub.store"):
        store = PostgresStore(pg_url.replace("://gpuhub@", f"://{role}@", 1))
    try:
        assert store.read_only is not None and "permission denied" in store.read_only
        [snap] = store.snapshots("lambda")
        assert store.read_columns(snap).to_parts() == parts
        [o] = store.read_columns(snap).offers()
        assert (o.instance_type, str(o.price.amount)) == ("gpu_1x_h100", "2.49")
        with pytest.raises(StoreReadOnly):
            put(store, "lambda", [offer("lambda", "gpu_1x_h100", "us-east-1", "2.39", count=1)], T0)
    finally:
        store.close()
    assert any("earlier layout" in r.getMessage() for r in caplog.records)
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT max(version) FROM gpuhub_schema_version").fetchone() == (2,)
