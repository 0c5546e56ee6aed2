"""History, diff and watch on both store backends (local SQLite and a real PostgreSQL server), same tests."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from synth import T0, offer, put

import gpuhub.history as h
from gpuhub.history.log import close_history, open_history

H = dt.timedelta(hours=1)
HERE = Path(__file__).resolve().parent


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a store lives: a directory (SQLite) or a PostgreSQL URL (a fresh database on the throwaway server)."""
    if request.param == "sqlite":
        return str(tmp_path / "store")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def store(location: str) -> Iterator[object]:
    from gpuhub.store import open_store

    opened = open_store(location)
    yield opened
    assert opened is not None
    close_history(opened)
    opened.close()


def _three_refreshes(store: object) -> None:
    """lambda: H100 23.92 -> 21.50 (-10.12 %), A100 1.29 goes, B200 appears in a new region, then a failed fetch;
    aws: unchanged content twice."""
    put(store, "lambda", [offer("lambda", "gpu_8x_h100", "us-east-1", "23.92"),
                          offer("lambda", "gpu_1x_a100", "us-east-1", "1.29", gpu="A100", count=1)], T0)
    aws = [offer("aws", "p5.48xlarge", "us-east-1", "55.04"),
           offer("aws", "g6.xlarge", "us-east-1", "0.8048", gpu="L4", count=1, purchase="spot")]
    put(store, "aws", aws, T0)
    put(store, "lambda", [offer("lambda", "gpu_8x_h100", "us-east-1", "21.50"),
                          offer("lambda", "gpu_1x_b200", "us-west-1", "4.99", gpu="B200", count=1)], T0 + H)
    put(store, "aws", aws, T0 + H)
    put(store, "lambda", None, T0 + 2 * H, state="failed")


def test_history_has_the_price_at_each_change_with_min_median_max(store: object) -> None:
    put(store, "lambda", [offer("lambda", "gpu_8x_h100", "us-east-1", "23.92")], T0)
    put(store, "lambda", [offer("lambda", "gpu_8x_h100", "us-east-1", "23.92")], T0 + H)  # unchanged
    put(store, "lambda", [offer("lambda", "gpu_8x_h100", "us-east-1", "21.50")], T0 + 2 * H)
    put(store, "lambda", [offer("lambda", "gpu_8x_h100", "us-east-1", "22.10")], T0 + 3 * H)
    result = h.history(store=store, since=None, instance_type="gpu_8x_h100")  # type: ignore[arg-type]
    [series] = result.series
    assert [(p.at, p.price) for p in series.points] == [
        (T0, Decimal("23.92")), (T0 + 2 * H, Decimal("21.50")), (T0 + 3 * H, Decimal("22.10"))]
    assert series.stats() == {"min": Decimal("21.50"), "median": Decimal("22.10"), "max": Decimal("23.92"),
                              "first": Decimal("23.92"), "last": Decimal("22.10")}
    assert result.snapshots == 4
    # A window starting after the first change is led by the price in effect then.
    window = series.window(T0 + H)
    assert [(p.at, p.price) for p in window] == [(T0 + H, Decimal("23.92")), (T0 + 2 * H, Decimal("21.50")),
                                                 (T0 + 3 * H, Decimal("22.10"))]
    summary = h.history(store=store, since=T0 + 2 * H + dt.timedelta(minutes=1)).summary()  # type: ignore[arg-type]
    assert [(s["min_price_per_hour"], s["max_price_per_hour"], s["changes"]) for s in summary] == [(21.5, 22.1, 1)]


def test_points_of_recent_folds_are_merged_in_key_order_and_read_the_same(store: object,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 27: a fold writes its points to the small ``hist_recent`` (not all over ``hist_point``); past
    MERGE_POINTS they move into ``hist_point`` at once. History reads the same points before and after."""
    import gpuhub.history.log as history_log

    monkeypatch.setattr(history_log, "MERGE_POINTS", 4)
    prices = ["23.92", "21.50", "22.10", "20.00", "19.75"]
    counts = []
    for hour, price in enumerate(prices):
        put(store, "lambda", [offer("lambda", "gpu_8x_h100", "us-east-1", price),
                              offer("lambda", "gpu_1x_h100", "us-east-1", f"2.{90 + hour}", count=1)], T0 + hour * H)
        log = open_history(store)  # type: ignore[arg-type]
        counts.append(tuple(int(log._execute(f"SELECT count(*) FROM {t}").fetchone()[0])
                            for t in ("hist_point", "hist_recent")))
        result = h.history(store=store, since=None, instance_type="gpu_8x_h100")  # type: ignore[arg-type]
        [series] = result.series
        assert [(p.at, p.price) for p in series.points] == [(T0 + n * H, Decimal(v)) for n, v in
                                                            enumerate(prices[:hour + 1])]
    # (hist_point, hist_recent) after each fold: the first points of new series go straight to hist_point; 2
    # changes a fold wait in hist_recent until there are 4, then all move
    assert counts == [(2, 0), (2, 2), (6, 0), (6, 2), (10, 0)]
    other = h.history(store=store, since=None, instance_type="gpu_1x_h100")  # type: ignore[arg-type]
    assert [str(p.price) for p in other.series[0].points] == ["2.90", "2.91", "2.92", "2.93", "2.94"]


def test_history_filters_and_groups_like_search(store: object) -> None:
    _three_refreshes(store)
    gpus = h.history(store=store, since=None, gpu="nvidia-h100-80gb", group="gpu")  # type: ignore[arg-type]
    by_gpu = {s.offer["gpu_name"]: [(p.at, p.price) for p in s.points] for s in gpus}
    # the H100 group: lambda 23.92 then 21.50; aws 55.04 stays above it
    assert by_gpu == {"H100": [(T0, Decimal("23.92")), (T0 + H, Decimal("21.50"))]}
    spot = h.history(store=store, since=None, purchase="spot", region="US-EAST-1")  # type: ignore[arg-type]
    assert [(s.offer["instance_type"], s.points[0].price) for s in spot] == [("g6.xlarge", Decimal("0.8048"))]
    gone = h.history(store=store, since=None, instance_type="gpu_1x_a100")  # type: ignore[arg-type]
    assert [(p.at, p.price) for p in gone.series[0].points] == [(T0, Decimal("1.29")), (T0 + H, None)]
    with pytest.raises(h.QueryError, match="gpu"):
        h.history(store=store, gpu="H1000")  # type: ignore[arg-type]
    with pytest.raises(h.QueryError, match="purchase"):
        h.history(store=store, purchase="sometimes")  # type: ignore[arg-type]


def test_diff_of_the_two_newest_snapshots(store: object) -> None:
    _three_refreshes(store)
    report = h.diff(store=store)  # type: ignore[arg-type]
    changes = [(c.kind, c.offer["provider"], c.offer["instance_type"], c.old_price, c.new_price,
                None if c.change_pct is None else round(c.change_pct, 2)) for c in report.changes]
    assert changes == [
        ("down", "lambda", "gpu_8x_h100", Decimal("23.92"), Decimal("21.50"), -10.12),
        ("gone", "lambda", "gpu_1x_a100", Decimal("1.29"), None, None),
        ("new", "lambda", "gpu_1x_b200", None, Decimal("4.99"), None)]
    assert report.counts() == {"up": 0, "down": 1, "new": 1, "gone": 1, "unchanged": 2}
    assert report.regions_appeared == {"lambda": ["us-west-1"]}
    assert report.gpus_appeared == {"lambda": ["B200"]} and report.gpus_gone == {"lambda": ["A100"]}
    assert [(s.provider, s.old_state, s.new_state, s.new_reason) for s in report.status_changes] == [
        ("lambda", "ok", "failed", "503")]
    data = json.loads(json.dumps(report.to_dict()))
    assert data["changes"][0]["change_pct"] == -10.1171


def test_diff_between_ids_and_times(store: object) -> None:
    _three_refreshes(store)
    ids = {(s.provider, s.fetched_at): s.id for s in store.snapshots()}  # type: ignore[attr-defined]
    first, second = ids[("lambda", T0)], ids[("lambda", T0 + H)]
    by_id = h.diff(str(second), str(first), store=store)  # type: ignore[arg-type]  # backwards: prices went up
    assert [(c.kind, c.offer["instance_type"]) for c in by_id.changes] == [
        ("gone", "gpu_1x_b200"), ("new", "gpu_1x_a100"), ("up", "gpu_8x_h100")]
    by_time = h.diff((T0 + dt.timedelta(minutes=30)).isoformat(), (T0 + 2 * H).isoformat(),
                     store=store)  # type: ignore[arg-type]
    assert by_time.counts() == {"up": 0, "down": 1, "new": 1, "gone": 1, "unchanged": 2}
    with pytest.raises(h.QueryError, match="no snapshot 999999"):
        h.diff("999999", store=store)  # type: ignore[arg-type]


def test_watch_thresholds(store: object) -> None:
    _three_refreshes(store)
    rules = h.WatchRules(drop_pct=10.0)
    assert [m["instance_type"] for m in h.watch(rules, store=store).matches] == ["gpu_8x_h100"]  # type: ignore[arg-type]
    assert not h.watch(h.WatchRules(drop_pct=10.2), store=store).matched  # type: ignore[arg-type]
    assert not h.watch(rules, instance_type="gpu_1x_a100", store=store).matched  # type: ignore[arg-type]
    below = h.watch(h.WatchRules(below=Decimal("22.00")), store=store)  # type: ignore[arg-type]
    assert [(m["rule"], m["instance_type"]) for m in below.matches] == [("below", "gpu_8x_h100"),
                                                                        ("below", "gpu_1x_b200")]
    new_gpu = h.watch(h.WatchRules(new_gpu=("B200",)), store=store)  # type: ignore[arg-type]
    assert new_gpu.matches == [{"rule": "new_gpu", "provider": "lambda", "gpu_name": "B200"}]
    assert not h.watch(h.WatchRules(new_gpu=("B300",)), store=store).matched  # type: ignore[arg-type]
    failed = h.watch(h.WatchRules(provider_failed=True), provider="aws", store=store)  # type: ignore[arg-type]
    assert not failed.matched


_WRITER = """
import datetime as dt, sys
sys.path.insert(0, {here!r})
import synth
from gpuhub.store import open_store
store = open_store({location!r})
which = int(sys.argv[1])
for hour in range(6):
    at = synth.T0 + dt.timedelta(hours=hour, minutes=which)
    price = f"{{20 + hour}}.{{which}}0"   # each writer refreshes its own provider, with its own prices
    own = f"team{{which}}"
    synth.put(store, own, [synth.offer(own, f"writer{{which}}", "us-east-1", price),
                           synth.offer(own, "gpu_1x_h100", "us-east-1", "2.49", count=1)], at)
    # ... and both store the same content for a shared provider at the same times
    synth.put(store, "coreweave", [synth.offer("coreweave", "gd-8xh100ib-i128", "us-east-04a", "49.24")], at)
from gpuhub.history.log import close_history
close_history(store)
store.close()
"""


def test_two_writers_at_once_lose_and_duplicate_nothing(location: str) -> None:
    script = _WRITER.format(here=str(HERE), location=location)
    procs = [subprocess.Popen([sys.executable, "-c", script, str(i)], stderr=subprocess.PIPE, text=True)
             for i in (1, 2)]
    for proc in procs:
        _, stderr = proc.communicate(timeout=240)
        assert proc.returncode == 0, stderr
    from gpuhub.store import open_store

    store = open_store(location)
    assert store is not None
    try:
        snapshots = store.snapshots()
        assert len([s for s in snapshots if s.provider == "team1"]) == 6
        assert len([s for s in snapshots if s.provider == "team2"]) == 6
        coreweave = [s for s in snapshots if s.provider == "coreweave"]
        assert len(coreweave) == 12 and len({s.content_hash for s in coreweave}) == 1
        # each writer's offer has its 6 prices in the log, unchanged offers one point each
        result = h.history(store=store, since=None)  # type: ignore[arg-type]
        by_type = {s.offer["instance_type"]: [p.price for p in s.points if p.price is not None] for s in result}
        for which in (1, 2):
            assert by_type[f"writer{which}"] == [Decimal(f"{20 + hour}.{which}0") for hour in range(6)]
        assert [p.price for s in result if s.offer["instance_type"] == "gpu_1x_h100" for p in s.points] == [
            Decimal("2.49"), Decimal("2.49")]  # one point per provider: it never changed
        assert by_type["gd-8xh100ib-i128"] == [Decimal("49.24")]
        assert sorted(s for s, *_ in {(f[1],) for f in open_history(store).folds()}) == sorted(
            s.id for s in snapshots)
    finally:
        close_history(store)
        store.close()
