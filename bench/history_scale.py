"""Price history at scale (issue 15 targets; a benchmark, not a test).

A synthetic catalog of N offers (default 100,000: 2,000 instance types x 50 regions) is refreshed every hour for H
hours (default 8,760: one year); each hour 1 % of the offers change price (a random ±1-10 % step, 4 decimals). Every
hourly snapshot is folded into the price-change log through the real code (``HistoryLog.record``); the store keeps
only the newest snapshots (as with ``GPUHUB_STORE_KEEP=2``), so the year is the log plus two snapshots, in one
SQLite file.

Reports: fold time per hour, the log's size against one snapshot's, ``gpuhub.history()`` filtered to one instance
type (median of 5), and ``gpuhub.diff()`` of the two newest 100k-offer snapshots (median of 5).

With ``--keep N`` (issue 27) every hourly snapshot is also written to a second store of its own (no log) that keeps
the newest N per provider, as ``GPUHUB_STORE_KEEP`` does (50 by default): its size on disk against one snapshot's,
what the same snapshots would take stored whole (the layout before content-addressed parts), and the write time.

    python bench/history_scale.py --offers 100000 --hours 8760 --json /tmp/history-scale.json
    python bench/history_scale.py --offers 100000 --hours 8760 --keep 50 --json /tmp/history-year.json
    python bench/history_scale.py --hours 150 --prefill 87      # folds against a year-sized log, in minutes
    python bench/history_scale.py --hours 40 --changes 10       # 10x the changes of the default
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from gpuhub.store import Snapshot, SnapshotMeta
from gpuhub.store.columns import OfferColumns

T0 = dt.datetime(2025, 12, 1, tzinfo=dt.timezone.utc)
GPUS = [("H100", 80, 8), ("A100-80GB", 80, 8), ("L4", 24, 1), ("A10G", 24, 4), ("B200", 180, 8)]


def tables(types: int, regions: int) -> dict[str, list[object]]:
    instances = []
    for i in range(types):
        name, memory, count = GPUS[i % len(GPUS)]
        instances.append({"provider": "synth", "instance_type": f"synth-{i:04d}.{count}x", "gpu": {
            "name": name, "vendor": "NVIDIA", "memory_gib": str(memory), "form_factor": None, "architecture": None,
            "raw_name": None, "known": True}, "gpu_count": float(count), "fractional": False, "vcpus": 8.0 * count,
            "memory_gib": 64.0 * count, "storage_gib": None, "network_gbps": None, "interconnect": None,
            "cpu_arch": "x86_64", "bare_metal": None, "note": None})
    return {"instances": instances,
            "regions": [{"provider": "synth", "code": f"region-{r:02d}", "zone": None, "city": None, "country": None,
                         "continent": None, "latitude": None, "longitude": None, "carbon_gco2e_per_kwh": None}
                        for r in range(regions)],
            "terms": [{"currency": "USD", "purchase": "on_demand", "upfront": None, "term_hours": None,
                       "payment_option": None, "billing_increment_s": None, "minimum_charge_s": None}],
            "sources": [{"mode": "live", "recording": None, "recorded_at": None, "kind": "live-capture"}],
            "extras": []}


class Catalog:
    """The synthetic provider's state: prices as integer ten-thousandths, amount strings kept per distinct price."""

    def __init__(self, offers: int, seed: int = 7, percent: float = 1.0) -> None:
        self.percent = percent
        self.types, self.regions = 2000, max(1, offers // 2000)
        self.n = self.types * self.regions
        self.rng = np.random.default_rng(seed)
        self.tables = tables(self.types, self.regions)
        row = np.arange(self.n)
        self.instance = (row % self.types).astype("<i4")
        self.region = (row // self.types).astype("<i4")
        self.zeros = np.zeros(self.n, dtype="<i4")
        self.extra = np.full(self.n, -1, dtype="<i4")
        self.available = np.full(self.n, -1, dtype="|i1")
        base = np.array([[2.99, 2.49, 0.80, 1.21, 5.99][i % 5] * [8, 8, 1, 4, 8][i % 5] for i in range(self.types)])
        self.units = np.round(base[self.instance] * (1 + 0.2 * self.rng.random(self.n)) * 10000).astype(np.int64)
        self._compact()

    def _compact(self) -> None:
        distinct, codes = np.unique(self.units, return_inverse=True)
        self.amounts = [f"{u / 10000:.4f}" for u in distinct.tolist()]
        self.codes = codes.astype("<i4")
        self.price = (self.units / 10000).astype("<f8")

    def step(self) -> None:
        changed = self.rng.choice(self.n, size=max(1, int(self.n * self.percent / 100)), replace=False)
        factor = 1 + self.rng.choice([-1, 1], size=len(changed)) * self.rng.uniform(0.01, 0.10, size=len(changed))
        self.units[changed] = np.maximum(1, np.round(self.units[changed] * factor)).astype(np.int64)
        if len(self.amounts) > 3 * self.n:
            self._compact()
            return
        start = len(self.amounts)
        self.amounts.extend(f"{u / 10000:.4f}" for u in self.units[changed].tolist())
        self.codes = self.codes.copy()
        self.codes[changed] = np.arange(start, start + len(changed), dtype="<i4")
        self.price = self.price.copy()
        self.price[changed] = self.units[changed] / 10000

    def columns(self) -> OfferColumns:
        return OfferColumns({"instance": self.instance, "region": self.region, "terms": self.zeros,
                             "amount": self.codes, "source": self.zeros, "extra": self.extra,
                             "price": self.price, "available": self.available},
                            {**self.tables, "amounts": self.amounts})


def snapshot(ident: int, at: dt.datetime, columns: OfferColumns) -> Snapshot:
    return Snapshot("synth", at, at.date(), "live", {"mode": "live"}, "live:synth", True, {"state": "ok"},
                    ("on_demand",), id=ident, content_hash=f"synthetic-{ident}", offers=len(columns))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offers", type=int, default=100_000)
    parser.add_argument("--hours", type=int, default=8760)
    parser.add_argument("--changes", type=float, default=1.0, help="percent of the offers changed each hour")
    parser.add_argument("--keep", type=int, default=0, help="also store every snapshot, keeping the newest N")
    parser.add_argument("--prefill", type=int, default=0,
                        help="after the first hour, add N earlier points to every series in one statement (87: a "
                             "year's 1 %% changes), so the folds that follow run against a log of that size")
    parser.add_argument("--dir", type=Path, default=None, help="where the store goes (default: a temp dir)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    import gpuhub.history as h
    from gpuhub.history.log import close_history, open_history
    from gpuhub.store.sqlite import SqliteStore

    directory = args.dir or Path(tempfile.mkdtemp(prefix="gpuhub-history-bench-"))
    store = SqliteStore(directory)
    log = open_history(store)
    kept = SqliteStore(directory / "snapshots") if args.keep else None
    put_times: list[float] = []
    if args.keep:
        import os

        os.environ["GPUHUB_STORE_KEEP"] = str(args.keep)
    catalog = Catalog(args.offers, percent=args.changes)
    started = time.perf_counter()
    fold_times = []
    previous = None
    for hour in range(args.hours):
        if hour:
            catalog.step()
        if hour >= args.hours - 2:
            catalog._compact()  # the two kept snapshots as a provider would send them (no stale amount strings)
        columns = catalog.columns()
        t = time.perf_counter()
        log.record(snapshot(hour + 1, T0 + dt.timedelta(hours=hour), columns), columns)
        fold_times.append(time.perf_counter() - t)
        if hour == 0 and args.prefill:
            base = T0.timestamp() - 3600.0 * (args.prefill + 1)
            log.db.execute("BEGIN")
            log.db.execute("WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n < ?) INSERT INTO "
                           "hist_point SELECT s.id, ? + k.n * 3600.0 + (s.id % 97) * 37, 0, '1.0000' FROM "
                           "hist_series s, k", (args.prefill - 1, base))
            log.db.execute("COMMIT")
            log.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if kept is not None:
            when = T0 + dt.timedelta(hours=hour)
            t = time.perf_counter()
            kept.put_snapshot(SnapshotMeta("synth", when, when.date(), "live", {"mode": "live"}, "live:synth", True,
                                           {"state": "ok"}, ("on_demand",)), columns)
            put_times.append(time.perf_counter() - t)
        previous, last = (last if hour else None), columns  # noqa: F821 - assigned on the first pass
        if hour % 500 == 0:
            print(f"hour {hour}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    build_s = time.perf_counter() - started
    # The store keeps the two newest snapshots (already folded: their ids are the log's last two).
    at = T0 + dt.timedelta(hours=args.hours - 1)
    assert previous is not None
    for cols, when in ((previous, at - dt.timedelta(hours=1)), (last, at)):
        store.put_snapshot(SnapshotMeta("synth", when, when.date(), "live", {"mode": "live"}, "live:synth", True,
                                        {"state": "ok"}, ("on_demand",)), cols)
    one_snapshot = sum(len(p) for p in last.to_parts().values())
    store.prune(keep_per_provider=2)  # checkpoints the WAL, so the file size is the data's
    store_bytes = store.size_bytes()  # the log's tables live in the same database
    # Stored snapshot ids 1 and 2 are already in the log's fold list (ids 1..H), so history() folds nothing more.
    history_s, diff_s = [], []
    result = None
    for _ in range(5):
        t = time.perf_counter()
        result = h.history(instance_type=str(catalog.tables["instances"][7]["instance_type"]),  # type: ignore
                           since=None, store=store)  # type: ignore[arg-type]
        history_s.append(time.perf_counter() - t)
    for _ in range(5):
        t = time.perf_counter()
        report = h.diff(store=store)  # type: ignore[arg-type]
        diff_s.append(time.perf_counter() - t)
    assert result is not None
    figures = {
        "offers": catalog.n, "hours": args.hours, "changes_per_hour": int(catalog.n * args.changes / 100),
        "build_s": round(build_s, 1), "fold_median_ms": round(statistics.median(fold_times) * 1000, 2),
        "fold_first_tenth_median_ms": round(statistics.median(fold_times[1:max(2, args.hours // 10)]) * 1000, 2),
        "fold_last_tenth_median_ms": round(statistics.median(fold_times[-max(1, args.hours // 10):]) * 1000, 2),
        "fold_mean_ms": round(statistics.mean(fold_times[1:]) * 1000, 2), "prefill": args.prefill,
        "load_average": Path("/proc/loadavg").read_text().split()[:3],
        "one_snapshot_bytes": one_snapshot, "store_bytes": store_bytes,
        "store_over_one_snapshot": round(store_bytes / one_snapshot, 2),
        "history_one_type_median_s": round(statistics.median(history_s), 4),
        "history_series": len(result.series), "history_points": sum(len(s.points) for s in result.series),
        "diff_median_s": round(statistics.median(diff_s), 4), "diff_counts": report.counts(),
    }
    if kept is not None:
        kept.prune(keep_per_provider=args.keep)  # checkpoints the WAL, so the file size is the data's
        snaps = kept.snapshots("synth")
        figures.update({
            "keep": args.keep, "kept_snapshots": len(snaps), "kept_store_bytes": kept.size_bytes(),
            "kept_store_over_one_snapshot": round(kept.size_bytes() / one_snapshot, 2),
            "kept_whole_bytes": sum(s.size_bytes for s in snaps),  # what the earlier layout stored
            "put_median_ms": round(statistics.median(put_times) * 1000, 2),
            "read_newest_equal": kept.read_columns(snaps[0]).to_parts() == last.to_parts()})
        kept.close()
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    close_history(store)
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
