"""The offer store: snapshots reused by a later engine (process), keyed by everything that changes offers,
content stored once, damaged stores never trusted, and freshness, pruning and claims."""

from __future__ import annotations

import datetime as dt
import json
import logging
import shutil
import sqlite3
import stat
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest

import gpuhub
from gpuhub import GpuSpec, Registry
from gpuhub.kit.testing import make_engine, run_cli, run_provider
from gpuhub.store import SnapshotMeta, open_store
from gpuhub.store.columns import ColumnBuilder
from gpuhub.store.sqlite import SqliteStore

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _key(offers):  # type: ignore[no-untyped-def]
    return sorted((o.instance_type, o.region.code, o.price.purchase, o.price.amount, o.price.currency,
                   o.instance.gpu_count, o.instance.gpu.name if o.instance.gpu else None, o.available)
                  for o in offers)


def _store(path: Path) -> SqliteStore:
    store = open_store(str(path))
    assert isinstance(store, SqliteStore)
    return store


def test_second_engine_reads_the_snapshot_instead_of_parsing(registry: Registry, tmp_path: Path) -> None:
    first, status1 = run_provider(make_engine(registry, store=_store(tmp_path)), "fakecloud")
    db = tmp_path / "store.sqlite"
    assert stat.S_IMODE(db.stat().st_mode) == 0o600 and stat.S_IMODE(tmp_path.stat().st_mode) & 0o077 == 0
    engine2 = make_engine(registry, store=_store(tmp_path))
    second, status2 = run_provider(engine2, "fakecloud")
    assert engine2.fetch_count == {}  # nothing parsed again
    assert _key(first) == _key(second) and len(second) == 7
    assert (status2.skipped_records, status2.unknown_gpus, status2.source) == (
        status1.skipped_records, status1.unknown_gpus, status1.source)
    [snap] = _store(tmp_path).snapshots("fakecloud")
    assert (snap.source_kind, snap.data_date, snap.offers, snap.complete) == (
        "reconstructed", dt.date(2026, 11, 30), 7, True)
    assert snap.purchases == ("on_demand", "spot")


def test_changed_recording_is_parsed_again(registry: Registry, tmp_path: Path) -> None:
    recording = tmp_path / "rec"
    shutil.copytree(FIXTURES, recording)
    run_provider(make_engine(registry, store=_store(tmp_path / "s")), "fakecloud", fixtures_dir=recording)
    page = recording / "fakecloud" / "page1.json"
    page.write_text(page.read_text().replace('"2.99"', '"3.49"'))
    engine2 = make_engine(registry, store=_store(tmp_path / "s"))
    offers, _ = run_provider(engine2, "fakecloud", fixtures_dir=recording)
    assert engine2.fetch_count == {"fakecloud": 1}
    assert {o.price_per_hour for o in offers if o.instance_type == "h100x8"} == {Decimal("27.92")}


class _A2000Plugin:
    """Registers the RTX A2000 that the built-in table lacks (fakecloud's recording has one)."""

    @gpuhub.hookimpl
    def register_gpu_specs(self, register: Callable[[GpuSpec], None], alias: Callable[[str, str], None]) -> None:
        register(GpuSpec(name="RTX-A2000", vendor="NVIDIA", memory_gib=12, architecture="Ampere",
                         form_factor="PCIe"))


def test_enabling_or_disabling_a_plugin_changes_the_answer_at_once(tmp_path: Path) -> None:
    import fakecloud

    def a4000(registry: Registry) -> tuple[str | None, bool | None, int]:
        engine = make_engine(registry, store=_store(tmp_path))
        offers, _ = run_provider(engine, "fakecloud")
        [gpu] = {o.instance.gpu for o in offers if o.instance_type == "8x_A4000"}
        assert gpu is not None
        return gpu.name, gpu.known, engine.fetch_count.get("fakecloud", 0)

    without = Registry(entry_points=[], extra_plugins=[fakecloud.PLUGIN])
    with_it = Registry(entry_points=[], extra_plugins=[fakecloud.PLUGIN, ("a2000", _A2000Plugin())])
    assert a4000(without) == ("RTX A2000", False, 1)
    assert a4000(with_it) == ("RTX-A2000", True, 1)  # enabled: parsed again with the new alias
    assert a4000(without) == ("RTX A2000", False, 0)  # disabled again: the first snapshot, unknown again
    assert a4000(with_it) == ("RTX-A2000", True, 0)


def test_unchanged_content_is_stored_once(registry: Registry, tmp_path: Path) -> None:
    store = _store(tmp_path)
    offers, status = run_provider(make_engine(registry), "fakecloud")
    columns = ColumnBuilder().extend(offers).build()
    meta = SnapshotMeta("fakecloud", dt.datetime.now(dt.timezone.utc), None, "live", {}, "k", True,
                        status.to_dict(), columns.purchases())
    a, b = store.put_snapshot(meta, columns), store.put_snapshot(meta, columns)
    assert a.content_hash == b.content_hash and a.id < b.id
    with sqlite3.connect(tmp_path / "store.sqlite") as db:
        assert db.execute("SELECT count(*) FROM content").fetchone() == (1,)
    assert store.read_columns(b).offers() == list(offers)  # validated Offers, equal to the parsed ones


def test_latest_good_skips_incomplete_and_old(registry: Registry, tmp_path: Path) -> None:
    store = _store(tmp_path)
    offers, _status = run_provider(make_engine(registry), "fakecloud")
    columns = ColumnBuilder().extend(offers).build()
    old = dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=2)
    good = store.put_snapshot(SnapshotMeta("fakecloud", old, None, "live", {}, "k", True, {}, ()), columns)
    store.put_snapshot(SnapshotMeta("fakecloud", dt.datetime.now(dt.timezone.utc), None, "live", {}, "k", False,
                                    {"reason": "HTTP 503"}, ()), None)
    assert store.latest_good("fakecloud", key="k") == good
    assert store.latest_good("fakecloud", key="k", max_age_s=3600) is None
    assert store.latest_good("fakecloud", key="other") is None
    assert [s.complete for s in store.snapshots("fakecloud")] == [False, True]


def test_prune_keeps_the_newest_complete_snapshot(registry: Registry, tmp_path: Path) -> None:
    store = _store(tmp_path)
    offers, _ = run_provider(make_engine(registry), "fakecloud")
    full = ColumnBuilder().extend(offers).build()
    part = ColumnBuilder().extend(offers[:2]).build()
    now = dt.datetime.now(dt.timezone.utc)
    good = store.put_snapshot(SnapshotMeta("fakecloud", now, None, "live", {}, "k", True, {}, ()), full)
    store.put_snapshot(SnapshotMeta("fakecloud", now, None, "live", {}, "k", False, {}, ()), part)
    failed = [store.put_snapshot(SnapshotMeta("fakecloud", now, None, "live", {}, "k", False, {}, ()), None)
              for _ in range(3)]
    report = store.prune(keep_per_provider=1)
    assert report.snapshots == 3 and report.contents == 1  # the partial's content went with it
    assert [s.id for s in store.snapshots("fakecloud")] == [failed[-1].id, good.id]


def test_damaged_store_file_is_moved_aside_with_a_warning(registry: Registry, tmp_path: Path,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    run_provider(make_engine(registry, store=_store(tmp_path)), "fakecloud")
    (tmp_path / "store.sqlite").write_bytes(b"\x00\xff not a database at all" * 100)
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"store.sqlite{suffix}").unlink(missing_ok=True)
    with caplog.at_level(logging.WARNING, logger="gpuhub.store"):
        engine = make_engine(registry, store=_store(tmp_path))
        offers, status = run_provider(engine, "fakecloud")
    assert status.state == "ok" and len(offers) == 7 and engine.fetch_count == {"fakecloud": 1}
    assert any("is damaged" in r.getMessage() for r in caplog.records)
    assert (tmp_path / "store.sqlite.damaged").is_file()


@pytest.mark.parametrize("damage", ["bytes", "negative_price", "other_provider"])
def test_damaged_snapshot_is_discarded_and_parsed_again(damage: str, registry: Registry, tmp_path: Path,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    first, _ = run_provider(make_engine(registry, store=_store(tmp_path)), "fakecloud")
    store = _store(tmp_path)
    [snap] = store.snapshots("fakecloud")
    columns = store.read_columns(snap)
    with sqlite3.connect(tmp_path / "store.sqlite") as db:
        if damage == "bytes":
            db.execute("UPDATE blob SET data = zeroblob(length(data)) WHERE hash IN (SELECT blob FROM part WHERE "
                       "name = 'price.npy')")
        else:
            if damage == "negative_price":
                columns.columns["price"] = -columns.columns["price"]
            else:
                columns.tables["instances"][0]["provider"] = "evilcloud"
            from gpuhub.store.blobs import blob_hash
            from gpuhub.store.columns import _hash_parts

            parts = columns.to_parts()  # a consistent hash: only validation can tell
            content = _hash_parts(parts)
            db.execute("DELETE FROM part")
            db.executemany("INSERT OR IGNORE INTO blob VALUES (?, NULL, ?, ?)",
                           [(blob_hash(d), len(d), d) for d in parts.values()])
            db.executemany("INSERT INTO part VALUES (?, ?, ?)", [(content, n, blob_hash(d)) for n, d in parts.items()])
            db.execute("UPDATE content SET hash = ?", (content,))
            db.execute("UPDATE snapshot SET content_hash = ?", (content,))
    with caplog.at_level(logging.WARNING, logger="gpuhub.service.engine"):
        engine = make_engine(registry, store=_store(tmp_path))
        again, status = run_provider(engine, "fakecloud")
    assert status.state == "ok" and engine.fetch_count == {"fakecloud": 1}
    assert _key(again) == _key(first) and all(o.price.amount > 0 for o in again)
    assert any("discarding unusable snapshot" in r.getMessage() for r in caplog.records)


def test_claim_is_exclusive_and_times_out(tmp_path: Path) -> None:
    a, b = _store(tmp_path), _store(tmp_path)
    with a.claim("fakecloud", 1.0) as held:
        assert held
        with b.claim("fakecloud", 0.1) as other:
            assert other is False
        with b.claim("lambda", 0.1) as unrelated:
            assert unrelated
    with b.claim("fakecloud", 0.1) as after:
        assert after


def test_store_location_settings(tmp_path: Path) -> None:
    from gpuhub.store import default_location

    assert default_location({"GPUHUB_STORE": str(tmp_path)}) == str(tmp_path)
    assert default_location({"GPUHUB_STORE": "off"}) is None
    assert default_location({"GPUHUB_NO_DISK_CACHE": "1"}) is None
    assert default_location({"GPUHUB_CACHE_DIR": "/x"}) == str(Path("/x/store"))
    assert default_location({}).endswith(str(Path("gpuhub") / "store"))  # type: ignore[union-attr]


def test_a_relative_store_directory_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpuhub.store import default_location

    monkeypatch.chdir(tmp_path)
    assert default_location({"GPUHUB_STORE": "rel"}) == str(tmp_path / "rel")
    assert default_location({"GPUHUB_STORE": "postgresql://u@127.0.0.1/db"}) == "postgresql://u@127.0.0.1/db"


@pytest.mark.parametrize(("column", "value"), [
    ("source", "{not json"), ("status", "[1, 2]"), ("fetched_at", "yesterday"), ("data_date", "31/12/2026"),
    ("purchases", "7"), ("offers", "many")])
def test_an_undecodable_snapshot_row_is_quarantined_and_never_fatal(column: str, value: str, registry: Registry,
                                                                    tmp_path: Path) -> None:
    """Issue 24, defect 2: one row that does not decode is set aside (counted, shown by ``store show``); the
    search parses again and every later read goes on."""
    first, _ = run_provider(make_engine(registry, store=_store(tmp_path)), "fakecloud")
    with sqlite3.connect(tmp_path / "store.sqlite") as db:
        db.execute(f"UPDATE snapshot SET {column} = ?", (value,))
    engine = make_engine(registry, store=_store(tmp_path))
    offers, status = run_provider(engine, "fakecloud")
    assert status.state == "ok" and engine.fetch_count == {"fakecloud": 1}, status.line()
    assert sorted(o.price_per_hour for o in offers) == sorted(o.price_per_hour for o in first)
    env = {"GPUHUB_STORE": str(tmp_path)}
    shown = run_cli(["store", "show", "--format", "json"], env=env)
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    [bad] = data["quarantined"]
    assert bad["provider"] == "fakecloud" and bad["snapshot_id"] == 1 and f"column {column}" in bad["reason"]
    assert [s["id"] for s in data["snapshots"]] == [2]  # the new, good one; the bad row is no longer read
    table = run_cli(["store", "show"], env=env)
    assert table.exit_code == 0 and "1 snapshot row could not be decoded and is set aside" in table.output
    assert "quarantine" in table.output and f"column {column}" in table.output


SECRET = "s3cret-Pa55word"


@pytest.mark.parametrize("url", [f"postgresql://gpuhub:{SECRET}@127.0.0.1:1/team",
                                 f"postgresql://gpuhub@127.0.0.1:1/team?password={SECRET}&connect_timeout=1",
                                 f"postgres://gpuhub@127.0.0.1:1/team?sslpassword={SECRET}&PASSWORD={SECRET}"])
def test_the_store_password_is_never_printed_or_logged(url: str, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 24, defect 7: ``store path``, ``store show`` (a server that refuses: port 1 on loopback) and a
    search's log say where the team store is, never its password."""
    pytest.importorskip("psycopg")
    env = {"GPUHUB_STORE": url}
    where = run_cli(["store", "path"], env=env)
    assert where.exit_code == 0 and "127.0.0.1:1/team" in where.output and "***" in where.output, where.output
    shown = run_cli(["store", "show"], env=env)
    assert shown.exit_code == 1 and "cannot connect to the team store" in shown.output, shown.output
    with caplog.at_level(logging.DEBUG):
        engine = gpuhub.Engine(gpuhub.Registry(entry_points=[]), environ=env)
        assert engine.store is None
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "127.0.0.1:1/team" in logged
    for text in (where.output, shown.output, logged):
        assert SECRET not in text and SECRET.lower() not in text.lower(), text
