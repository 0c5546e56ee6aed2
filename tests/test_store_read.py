"""The store's read path: a recording's digest remembered in the store (and forgotten when a file changes, even
at the same size), and the catalog gathering only the columns a query uses."""

from __future__ import annotations

import os
import shutil
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

import gpuhub
from gpuhub import Registry
from gpuhub.answer.catalog import Catalog
from gpuhub.answer.query import build_query
from gpuhub.fetch import keys
from gpuhub.kit.testing import make_engine, run_provider
from gpuhub.store import open_store
from gpuhub.store.columns import ColumnBuilder

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_recording_digest_is_remembered_until_a_file_changes(registry: Registry, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keys, "SETTLE_S", 0.0)  # the copied files are brand new; trust them at once here
    recording = tmp_path / "rec"
    shutil.copytree(FIXTURES, recording)
    store = open_store(str(tmp_path / "s"))
    first, _ = run_provider(make_engine(registry, store=store), "fakecloud", fixtures_dir=recording)
    assert len(first) == 7
    read: list[str] = []
    real = keys.recording_digest

    def counting(manifest, store=None):  # type: ignore[no-untyped-def]
        original = gpuhub.fetch.safeio.read_bytes

        def read_bytes(path, **kw):  # type: ignore[no-untyped-def]
            read.append(str(path))
            return original(path, **kw)

        monkeypatch.setattr(gpuhub.fetch.safeio, "read_bytes", read_bytes)
        try:
            return real(manifest, store)
        finally:
            monkeypatch.setattr(gpuhub.fetch.safeio, "read_bytes", original)

    monkeypatch.setattr(keys, "recording_digest", counting)
    engine2 = make_engine(registry, store=open_store(str(tmp_path / "s")))
    second, _ = run_provider(engine2, "fakecloud", fixtures_dir=recording)
    assert engine2.fetch_count == {} and read == []  # the key came from the remembered digest, no body read
    assert sorted(o.price_per_hour for o in second) == sorted(o.price_per_hour for o in first)
    # Same size, same modification time: only the change time (and the content) differ.
    page = recording / "fakecloud" / "page1.json"
    before = page.stat()
    page.write_text(page.read_text().replace('"2.99"', '"3.49"'))
    os.utime(page, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert page.stat().st_size == before.st_size and page.stat().st_mtime_ns == before.st_mtime_ns
    engine3 = make_engine(registry, store=open_store(str(tmp_path / "s")))
    third, _ = run_provider(engine3, "fakecloud", fixtures_dir=recording)
    assert engine3.fetch_count == {"fakecloud": 1} and "page1.json" in read
    assert {o.price_per_hour for o in third if o.instance_type == "h100x8"} == {Decimal("27.92")}


def test_fresh_files_are_digested_again(registry: Registry, tmp_path: Path) -> None:
    recording = tmp_path / "rec"
    shutil.copytree(FIXTURES, recording)  # changed just now: within keys.SETTLE_S
    store = open_store(str(tmp_path / "s"))
    run_provider(make_engine(registry, store=store), "fakecloud", fixtures_dir=recording)
    with store._lock:  # type: ignore[attr-defined]
        rows = store._db.execute(  # type: ignore[attr-defined]
            "SELECT name FROM meta WHERE name LIKE 'recording-digest:%'").fetchall()
    assert rows == []


def test_catalog_gathers_only_the_columns_a_query_reads() -> None:
    registry = gpuhub.Registry()
    offers, _ = run_provider(make_engine(registry, store=None), "lambda")
    columns = ColumnBuilder().extend(offers).build()
    catalog = Catalog.from_parts([columns], registry.gpus)
    assert {"vram", "tflops", "latitude", "gpu", "_obtain"}.isdisjoint(vars(catalog))
    rows, _ = catalog.select(build_query(gpus=registry.gpus, providers=["lambda"], rankers=list(
        registry.rankers), gpu="H100", purchase="on_demand"))
    assert "gpu" in vars(catalog) and "tflops" not in vars(catalog) and "latitude" not in vars(catalog)
    picked = [catalog.offers[int(r)] for r in rows]
    assert len(picked) == sum(1 for o in offers if o.gpu_name == "H100" and o.price.purchase == "on_demand") > 0
    cheapest = min(picked, key=lambda o: o.price.amount)
    assert (cheapest.instance_type, cheapest.price.amount) == ("gpu_1x_h100_pcie", Decimal("2.49"))
    # The lazily gathered columns hold the same figures as a catalog over the Offer objects.
    eager = Catalog(list(offers), registry.gpus)
    for name in ("vram", "total_vram", "gpu_count", "vcpus", "latitude", "carbon_intensity", "power_kw"):
        assert (getattr(catalog, name) == getattr(eager, name)).sum() == (getattr(eager, name) == getattr(
            eager, name)).sum()


def test_ranking_view_of_some_rows_equals_the_whole_columns_at_those_rows() -> None:
    registry = gpuhub.Registry()
    engine = make_engine(registry, store=None)
    parts = [ColumnBuilder().extend(run_provider(engine, name)[0]).build() for name in ("lambda", "azure", "gcp")]
    lazy = Catalog.from_parts(parts, registry.gpus)
    eager = Catalog.from_parts(parts, registry.gpus)
    query = build_query(gpus=registry.gpus, providers=["lambda", "azure", "gcp"], rankers=list(registry.rankers),
                        gpu="H100")
    rows, _ = lazy.select(query)
    assert len(rows) > 50 and {lazy.offers[int(r)].provider for r in rows} == {"lambda", "azure", "gcp"}
    view = lazy.view(rows, query)
    assert "tflops" not in vars(lazy) and "_per_gpu_table" not in vars(lazy)  # gathered for these rows only
    names = {"price_per_gpu": "price_per_gpu", "price_per_vram": "price_per_vram", "gpu_count": "gpu_count",
             "vram_per_gpu": "vram", "vram_total": "total_vram", "vcpus": "vcpus", "memory": "memory",
             "bandwidth_tb_s": "bandwidth_tb_s", "carbon_g_per_h": "carbon_g_per_h",
             "fast_interconnect": "fast_interconnect", "interruption_max_pct": "interruption_max_pct"}
    for field, column in names.items():
        np.testing.assert_array_equal(getattr(view, field), getattr(eager, column)[rows], err_msg=field)
    for precision, values in view.tflops.items():
        np.testing.assert_array_equal(values, eager.tflops[precision][rows], err_msg=precision)
    best = min((lazy.offers[int(r)] for r in rows), key=lambda o: o.price_per_gpu_hour or Decimal("1e9"))
    ranked, _ = lazy.rank(rows, registry.rankers["price_per_gpu"], query, limit=1)
    top = lazy.offers[int(ranked[0])]
    # GCP a3-highgpu-1g europe-north1 spot: host 0.21016 + H100 1.4854 in the SkyPilot catalog (newer than the
    # 2024-09-16 SKUs, so it wins: gpuhub-gcp README); the core/RAM split rounds to nanos
    assert top.price_per_gpu_hour == best.price_per_gpu_hour == Decimal("1.69555748")
    assert (top.provider, top.instance_type, top.region.code, top.price.purchase) == (
        "gcp", "a3-highgpu-1g", "europe-north1", "spot")
