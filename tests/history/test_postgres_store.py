"""The PostgreSQL backend's own guarantees, on a real server: migrations, content once per hash, retention, the
cross-machine refresh lock, a damaged blob detected, and no password in messages."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from synth import T0, columns, offer, put, schema2_store

from gpuhub.history.log import close_history
from gpuhub.store import StoreError
from gpuhub.store.postgres import PostgresStore, redact_url

H = dt.timedelta(hours=1)


@pytest.fixture
def pg(pg_url: str):  # type: ignore[no-untyped-def]
    store = PostgresStore(pg_url)
    yield store
    close_history(store)
    store.close()


def test_schema_is_migrated_once_and_reopening_keeps_the_data(pg: PostgresStore, pg_url: str) -> None:
    assert pg.schema_version == 3
    put(pg, "lambda", [offer("lambda", "gpu_8x_h100", "us-east-1", "23.92")], T0)
    again = PostgresStore(pg_url)
    try:
        assert again.schema_version == 3
        [snap] = again.snapshots()
        assert (snap.provider, snap.offers, snap.complete) == ("lambda", 1, True)
        [o] = again.read_columns(snap).offers()
        assert (o.instance_type, str(o.price.amount), o.region.code) == ("gpu_8x_h100", "23.92", "us-east-1")
    finally:
        again.close()
    import psycopg

    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM gpuhub_schema_version").fetchone() == (3,)


def test_same_content_is_stored_once_and_retention_prunes(pg: PostgresStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUHUB_STORE_KEEP", "2")
    same = [offer("aws", "p5.48xlarge", "us-east-1", "55.04")]
    for hour in range(4):
        put(pg, "aws", same, T0 + hour * H)
    put(pg, "aws", None, T0 + 4 * H, state="failed")
    kept = pg.snapshots("aws")
    assert [s.complete for s in kept] == [False, True]  # the newest complete one is never pruned
    import psycopg

    with psycopg.connect(pg.url) as conn:
        assert conn.execute("SELECT count(*) FROM gpuhub_content").fetchone() == (1,)
    good = pg.latest_good("aws")
    assert good is not None and good.fetched_at == T0 + 3 * H
    assert pg.latest_good("aws", max_age_s=60, now=T0 + 3 * H + dt.timedelta(seconds=30)) == good
    assert pg.latest_good("aws", max_age_s=60, now=T0 + 5 * H) is None


def test_claim_lets_one_machine_refresh_at_a_time(pg: PostgresStore, pg_url: str) -> None:
    other = PostgresStore(pg_url)
    try:
        with pg.claim("lambda", 5) as held:
            assert held
            with other.claim("lambda", 0.3) as second:
                assert not second  # held elsewhere: the caller waits, then reads the stored snapshot
            with other.claim("aws", 0.3) as third:
                assert third  # another provider is independent
        got: list[bool] = []

        def take() -> None:
            with other.claim("lambda", 10) as held_now:
                got.append(held_now)

        thread = threading.Thread(target=take)
        thread.start()
        thread.join(30)
        assert got == [True]  # released on exit
    finally:
        other.close()


def test_a_damaged_blob_is_detected_and_the_password_never_shown(pg: PostgresStore) -> None:
    snap = put(pg, "lambda", [offer("lambda", "gpu_8x_h100", "us-east-1", "23.92")], T0)
    import psycopg

    with psycopg.connect(pg.url, autocommit=True) as conn:
        conn.execute("UPDATE gpuhub_blob SET data = substring(data from 1 for 20) WHERE hash IN (SELECT blob FROM "
                     "gpuhub_part WHERE name = 'price.npy')")
    with pytest.raises(StoreError, match="does not match its hash"):
        pg.read_columns(snap)
    pg.discard(snap)  # what the engine does with a damaged snapshot: it is gone, the next fetch stores a new one
    assert pg.snapshots() == [] and pg.latest_good("lambda") is None
    assert redact_url("postgresql://team:s3cret@db.internal:5432/gpuhub") == \
        "postgresql://team:***@db.internal:5432/gpuhub"
    with pytest.raises(StoreError) as caught:
        PostgresStore("postgresql://team:s3cret@127.0.0.1:1/gpuhub", connect_timeout_s=2)
    assert "s3cret" not in str(caught.value) and "team:***@127.0.0.1:1" in str(caught.value)


def test_an_undecodable_row_is_quarantined_for_the_whole_team(pg: PostgresStore, pg_url: str) -> None:
    """Issue 24, defect 2 on PostgreSQL: one bad row neither fails reads nor hides the good snapshot before it."""
    import json

    import psycopg

    from gpuhub.kit.testing import run_cli

    put(pg, "lambda", [offer("lambda", "gpu_8x_h100", "us-east-1", "23.92")], T0)
    newest = put(pg, "lambda", [offer("lambda", "gpu_8x_h100", "us-east-1", "24.00")], T0 + H)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE gpuhub_snapshot SET status = '[\"not\", \"a\", \"status\"]' WHERE id = %s",
                     (newest.id,))
    shown = run_cli(["store", "show", "--format", "json"], env={"GPUHUB_STORE": pg_url})
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    [bad] = data["quarantined"]
    assert (bad["snapshot_id"], bad["provider"]) == (newest.id, "lambda") and "column status" in bad["reason"]
    [good] = data["snapshots"]
    assert good["id"] == newest.id - 1 and good["complete"]
    served = pg.latest_good("lambda")
    assert served is not None and served.fetched_at == T0
    [o] = pg.read_columns(served).offers()
    assert str(o.price.amount) == "23.92"


def test_columns_are_shared_between_snapshots_and_an_older_schema_is_migrated(pg_url: str) -> None:
    """Issue 27 on PostgreSQL: a database of schema 2 (every part's bytes per content) opens as schema 3 with its
    snapshots read back as written; a new snapshot shares the unchanged columns; retention deletes unused blobs."""
    import psycopg

    first = columns([offer("lambda", "gpu_8x_h100", "us-east-1", "23.92"), offer("lambda", "gpu_1x_h100",
                                                                              "us-east-1", "2.99")])
    parts = schema2_store(pg_url, first)
    store = PostgresStore(pg_url)
    try:
        assert store.schema_version == 3
        [old] = store.snapshots("lambda")
        assert store.read_columns(old).to_parts() == parts
        changed = [offer("lambda", "gpu_8x_h100", "us-east-1", "21.50"), offer("lambda", "gpu_1x_h100",
                                                                               "us-east-1", "2.99")]
        new = put(store, "lambda", changed, T0 + H)
        assert [str(o.price.amount) for o in store.read_columns(new).offers()] == ["21.50", "2.99"]
        assert store.read_columns(old).to_parts() == parts
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT to_regclass('gpuhub_content_part')").fetchone() == (None,)
            # 9 parts each, 6 distinct in the first (2 rows: the region, terms and source codes are all 0); only
            # the price column and the tables changed
            assert conn.execute("SELECT count(*), count(DISTINCT blob) FROM gpuhub_part").fetchone() == (18, 8)
            assert conn.execute("SELECT count(DISTINCT blob) FROM gpuhub_part WHERE name = 'instance.npy'"
                                ).fetchone() == (1,)
        report = store.prune(keep_per_provider=1)
        assert (report.snapshots, report.contents) == (1, 1)
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT count(*) FROM gpuhub_blob").fetchone() == (6,)
        assert [str(o.price.amount) for o in store.read_columns(new).offers()] == ["21.50", "2.99"]
    finally:
        store.close()
