"""Small, hand-checkable snapshots for the history tests: offers built with the public model, stored as columns."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from gpuhub import Gpu, Instance, Offer, Price, Region, Source

T0 = dt.datetime(2026, 11, 1, 0, 0, tzinfo=dt.timezone.utc)
SOURCE = Source(mode="live", kind="live-capture", recorded_at=T0.date())
GPUS = {"H100": Gpu(name="H100", vendor="NVIDIA", memory_gib=Decimal(80), form_factor="SXM"),
        "A100": Gpu(name="A100", vendor="NVIDIA", memory_gib=Decimal(40), form_factor="SXM"),
        "L4": Gpu(name="L4", vendor="NVIDIA", memory_gib=Decimal(24), form_factor="PCIe"),
        "B200": Gpu(name="B200", vendor="NVIDIA", memory_gib=Decimal(180), form_factor="SXM")}


def offer(provider: str, instance_type: str, region: str, price: str, *, gpu: str = "H100", count: int = 8,
          purchase: str = "on_demand") -> Offer:
    return Offer(instance=Instance(provider=provider, instance_type=instance_type, gpu=GPUS[gpu], gpu_count=count),
                 region=Region(provider=provider, code=region), source=SOURCE,
                 price=Price(amount=Decimal(price), currency="USD", purchase=purchase))


def columns(offers: list[Offer]):  # type: ignore[no-untyped-def]
    from gpuhub.store.columns import ColumnBuilder

    return ColumnBuilder().extend(offers).build()


def put(store, provider: str, offers: list[Offer] | None, at: dt.datetime, state: str = "ok"):  # type: ignore[no-untyped-def]
    """Store one fetch of ``provider`` at ``at`` (``offers`` None: a failed fetch)."""
    from gpuhub.store import SnapshotMeta

    cols = columns(offers) if offers else None
    meta = SnapshotMeta(provider=provider, fetched_at=at, data_date=at.date(), source_kind="live",
                        source=SOURCE.model_dump(mode="json"), key=f"live:{provider}", complete=cols is not None,
                        status={"provider": provider, "state": state, "reason": None if state == "ok" else "503"},
                        purchases=cols.purchases() if cols is not None else ())
    snapshot = store.put_snapshot(meta, cols)
    from gpuhub.history.log import record_snapshot

    record_snapshot(store, snapshot, cols)
    return snapshot


def schema2_store(url: str, cols) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    """A PostgreSQL team store as the code before issue 27 left it (schema 2: every part's bytes per content, in
    ``gpuhub_content_part``) holding one snapshot of lambda at T0 with ``cols``; returns its parts."""
    import psycopg

    from gpuhub.store.columns import _hash_parts
    from gpuhub.store.postgres import _MIGRATIONS

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE gpuhub_schema_version (version INTEGER NOT NULL)")
        for number, migration in enumerate(_MIGRATIONS[:2], 1):
            for statement in migration.split(";"):
                conn.execute(statement)
            conn.execute("INSERT INTO gpuhub_schema_version VALUES (%s)", (number,))
        parts = cols.to_parts()
        content = _hash_parts(parts)
        conn.execute("INSERT INTO gpuhub_content VALUES (%s, %s, %s, 0)",
                     (content, len(cols), sum(map(len, parts.values()))))
        for name, data in parts.items():
            conn.execute("INSERT INTO gpuhub_content_part VALUES (%s, %s, %s)", (content, name, data))
        conn.execute("INSERT INTO gpuhub_snapshot (provider, fetched_at, data_date, source_kind, source, key, "
                     "complete, status, purchases, content_hash, offers) VALUES ('lambda', %s, NULL, 'live', '{}', "
                     "'live:lambda', true, '{}', '[\"on_demand\"]', %s, %s)", (T0.timestamp(), content, len(cols)))
    return parts
