"""A snapshot served under the key of this very code is not validated again (its rows become models only when they
are shown), and the catalog reads its figures from the stored rows exactly as it read them from models."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from engines import stored_bundled_columns

import gpuhub
from gpuhub.answer.catalog_tables import _FAST_LINKS, _NO_OBTAIN, _instance_part, _obtain_part, _region_part
from gpuhub.model import Instance, Region
from gpuhub.store import open_store
from gpuhub.store.columns import OfferColumns


def _model_part(inst: Instance) -> tuple[Any, ...]:
    """The figures as the catalog read them from validated models (before it read the stored rows)."""
    gpu = inst.gpu
    link = (inst.interconnect or "").lower()
    fast = inst.gpu_count <= 1 or any(w in link for w in _FAST_LINKS) or (
        gpu is not None and gpu.form_factor in ("SXM", "Superchip", "OAM"))
    nan = math.nan
    return (inst.provider, inst.instance_type, gpu.name if gpu else None, gpu.form_factor if gpu else None,
            inst.gpu_count, float(gpu.memory_gib) if gpu and gpu.memory_gib is not None else nan,
            nan if inst.vcpus is None else float(inst.vcpus), nan if inst.memory_gib is None else inst.memory_gib,
            float(inst.fractional), float(fast), inst.seller_name)


def _region_model_part(region: Region) -> tuple[Any, ...]:
    nan = math.nan
    return (region.code.lower(), region.zone.lower() if region.zone else None, region.country, region.continent,
            nan if region.latitude is None else region.latitude, nan if region.longitude is None else region.longitude,
            nan if region.carbon_gco2e_per_kwh is None else region.carbon_gco2e_per_kwh)


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return all((isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y)) or x == y
               for x, y in zip(a, b, strict=True))


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, OfferColumns]:
    """Every installed provider's bundled data, stored by a search, read back (validated) per provider."""
    out = stored_bundled_columns(tmp_path_factory.mktemp("home"))
    for provider, columns in out.items():
        columns.validate(provider)
    return out


def test_the_catalog_reads_the_same_figures_from_stored_rows_as_from_models(stored: dict[str, OfferColumns]) -> None:
    assert len(stored) >= 20  # every bundled provider but the examples' owners
    instances = regions = 0
    for columns in stored.values():
        for i, row in enumerate(columns.tables["instances"]):
            assert _same(_instance_part(row), _model_part(columns.instance(i))), row
            instances += 1
        for i, row in enumerate(columns.tables["regions"]):
            assert _same(_region_part(row), _region_model_part(columns.region(i))), row
            regions += 1
    assert instances > 1000 and regions > 300
    obtains = [e["obtain"] for c in stored.values() for e in c.tables["extras"] if e.get("obtain")]
    # AWS's spot offers carry their Spot Instance Advisor bucket, read from the stored rows as its upper bound
    highs = {h for h in (_obtain_part(o)[0] for o in obtains) if not math.isnan(h)}
    assert len(obtains) > 100 and highs == {5.0, 11.0, 16.0, 22.0, 100.0}
    assert _obtain_part({"risk": {"max_pct": "x"}}) is _NO_OBTAIN  # not a dump of the model: nothing known


def test_a_stored_obtainability_is_read_as_its_model_says(stored: dict[str, OfferColumns]) -> None:
    from gpuhub.obtain.model import Obtainability

    for columns in stored.values():
        for extra in columns.tables["extras"]:
            if not extra.get("obtain"):
                continue
            model = Obtainability.model_validate(extra["obtain"])
            high, score, ok = _obtain_part(extra["obtain"])
            risk = model.risk.max_pct if model.risk is not None else None
            assert (math.isnan(high) and risk is None) or high == risk
            assert (math.isnan(score) and model.placement_score is None) or score == model.placement_score
            quota, capacity = model.quota_instances, model.capacity
            assert ok == (-1 if quota is None and capacity is None
                          else int((quota is None or quota > 0) and capacity is not False))


def test_a_warm_search_validates_no_stored_row_and_a_foreign_one_is_still_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpuhub.service.searching import reset_default_engine

    monkeypatch.setenv("GPUHUB_STORE", str(tmp_path / "store"))
    monkeypatch.setenv("GPUHUB_CACHE_DIR", str(tmp_path / "cache"))
    reset_default_engine(None)
    first = gpuhub.search(gpu="H100", provider="lambda", fetch="replay")
    reset_default_engine(None)  # a new process: served from the store
    checked: list[str] = []
    original = OfferColumns.validate

    def counting(self: OfferColumns, provider: str) -> None:
        checked.append(provider)
        original(self, provider)

    monkeypatch.setattr(OfferColumns, "validate", counting)
    warm = gpuhub.search(gpu="H100", provider="lambda", fetch="replay")
    assert checked == []  # served under its key: checked when stored
    assert [(o.instance_type, str(o.price.amount)) for o in warm] == [
        (o.instance_type, str(o.price.amount)) for o in first]
    assert warm.offers[0].instance.provider == "lambda" and warm.offers[0].price.amount > 0
    store = open_store()
    assert store is not None
    from gpuhub.service.snapshots import _checked

    snap = store.latest_good("lambda")
    assert snap is not None
    _checked(store, snap)  # the stale fallback (any key, any code): validated
    assert checked == ["lambda"]
    store.close()
    reset_default_engine(None)
