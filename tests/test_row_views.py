"""Stored rows read as views (:mod:`gpuhub.store.rows`) show exactly what their validated models show, and a search
on the command line served from the store answers through them without importing pydantic."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from engines import console_script, stored_bundled_columns

import gpuhub
from gpuhub.model import Gpu, Instance, Offer, Price, Region, Source
from gpuhub.obtain.model import Obtainability, Reservation, SpotRisk
from gpuhub.store.columns import OfferColumns
from gpuhub.store.rows import FIELDS, OfferView


def test_the_views_read_every_field_of_the_models() -> None:
    core = {"instance", "region", "price", "available", "source"}
    assert FIELDS["gpu"] == set(Gpu.model_fields)
    assert FIELDS["region"] == set(Region.model_fields)
    assert FIELDS["instance"] == set(Instance.model_fields)
    assert FIELDS["terms"] == set(Price.model_fields) - {"amount"}
    assert FIELDS["source"] == set(Source.model_fields)
    assert FIELDS["extras"] == set(Offer.model_fields) - core
    assert FIELDS["obtain"] == set(Obtainability.model_fields)
    assert FIELDS["risk"] == set(SpotRisk.model_fields)
    assert FIELDS["reservation"] == set(Reservation.model_fields)


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, OfferColumns]:
    """Every installed provider's bundled data, stored by a search and read back, per provider."""
    return stored_bundled_columns(tmp_path_factory.mktemp("home"))


def _shown(offer: Any) -> tuple[Any, ...]:
    """What the answer layer reads of an offer beyond its record."""
    obtain = offer.obtain
    risk = obtain.risk if obtain is not None else None
    return (offer.provider, offer.instance_type, offer.seller, offer.via, offer.gpu_name, offer.gpu_count,
            offer.data_date, offer.price_per_hour, offer.price_per_gpu_hour, offer.price_per_vram_gib_hour,
            offer.capacity_label, offer.instance.channel, offer.instance.machine, offer.instance.gpu_memory_gib,
            offer.instance.gpu_memory_total_gib, offer.price.amount, offer.price.upfront, offer.price.data_date,
            offer.price.listing_label(), offer.source.label(), offer.source.source_kind, offer.source.date_of_data,
            offer.region.latitude, offer.region.carbon_gco2e_per_kwh,
            offer.instance.gpu.memory_gib if offer.instance.gpu else None,
            None if obtain is None else (obtain.record(), obtain.checks, obtain.placement_as_of),
            None if risk is None else (risk.known, risk.as_of))


def test_every_stored_row_of_every_provider_reads_as_its_model(stored: dict[str, OfferColumns]) -> None:
    assert len(stored) >= 20
    rows = views = 0
    for provider, columns in stored.items():
        for row in range(len(columns)):
            model, view = columns.offer(row), columns.view(row)
            assert type(view) is OfferView, (provider, row)
            assert view.to_record() == model.to_record(), (provider, row)
            assert _shown(view) == _shown(model), (provider, row)
            rows += 1
            views += view.obtain is not None
    assert rows > 4000 and views > 100  # AWS spot rows carry their Spot Instance Advisor bucket


def test_every_stored_instance_row_reads_as_its_model_for_the_filters_on_its_facts(
        stored: dict[str, OfferColumns]) -> None:
    fields = [f for f in Instance.model_fields if f != "gpu"]
    rows = 0
    for provider, columns in stored.items():
        for view, model in zip(columns.instance_views(), columns.instances(), strict=True):
            assert type(view) is not Instance, provider
            assert [getattr(view, f) for f in fields] == [getattr(model, f) for f in fields], provider
            assert (view.gpu is None) == (model.gpu is None)
            if model.gpu is not None:
                assert [getattr(view.gpu, f) for f in Gpu.model_fields] == [getattr(model.gpu, f)
                                                                            for f in Gpu.model_fields]
            rows += 1
    assert rows > 1000


def test_a_row_stored_by_another_version_is_built_as_its_validated_model(stored: dict[str, OfferColumns]) -> None:
    columns = stored["lambda"]
    tables = {name: list(rows) for name, rows in columns.tables.items()}
    tables["instances"] = [{k: v for k, v in row.items() if k != "seller_instance_type"}
                           for row in tables["instances"]]  # an older Instance without the field
    older = OfferColumns(columns.columns, tables)
    offer = older.view(0)
    assert type(offer) is Offer and offer.to_record() == columns.view(0).to_record()


def _console_script(*args: str, store: Path) -> subprocess.CompletedProcess[str]:
    """``gpuhub ARGS`` as the console script runs it, reporting on stderr's last line whether pydantic was
    imported."""
    return console_script(*args, env={"GPUHUB_STORE": str(store), "GPUHUB_FETCH": "replay"}, reports="pydantic")


def test_a_search_served_from_the_store_imports_no_pydantic_and_answers_as_the_python_api(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    args = ("search", "--gpu", "H100", "--limit", "12", "--format", "json")
    first = _console_script(*args, store=tmp_path / "store")  # fetches (plugins validate offers) and stores
    assert first.returncode == 0, first.stderr
    assert first.stderr.splitlines()[-1] == "pydantic imported: True"
    warm = _console_script(*args, store=tmp_path / "store")
    assert warm.returncode == 0, warm.stderr
    assert warm.stderr.splitlines()[-1] == "pydantic imported: False"
    assert warm.stdout == first.stdout
    monkeypatch.setenv("GPUHUB_STORE", str(tmp_path / "store"))
    from gpuhub.service.searching import reset_default_engine

    reset_default_engine(None)
    try:
        result = gpuhub.search(gpu="H100", limit=12, fetch="replay", distinct=True)  # the CLI's default
    finally:
        reset_default_engine(None)
    assert all(type(o) is Offer for o in result.offers)  # Python callers get validated models
    assert json.loads(warm.stdout) == json.loads(json.dumps(result.to_dicts()))
    network = ("search", "--nodes", "2", "--fabric", "any", "--min-network-gbps", "100", "--currency", "USD",
               "--format", "json")
    assert _console_script(*network, store=tmp_path / "store").returncode == 0
    networked = _console_script(*network, store=tmp_path / "store")  # filters on stored instance facts
    assert networked.stderr.splitlines()[-1] == "pydantic imported: False"
    assert json.loads(networked.stdout)[0]["fabric"] in ("EFA", "InfiniBand", "RoCE", "GPUDirect-TCPX",
                                                         "GPUDirect-TCPXO")
    cheapest = json.loads(warm.stdout)[0]
    assert (cheapest["provider"], cheapest["seller"], cheapest["instance_type"], cheapest["price_per_hour"],
            cheapest["purchase"]) == ("spheron", "verda", "1H100.80S.32V_FIN-03_1000", 0.8015, "spot")


def test_a_search_command_run_in_process_leaves_the_hosts_engine_building_models(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from gpuhub.cli import commands
    from gpuhub.service.searching import default_engine, reset_default_engine

    monkeypatch.setenv("GPUHUB_STORE", str(tmp_path / "store"))
    reset_default_engine(None)
    try:
        for _ in range(2):  # the second is served from the store
            done = CliRunner().invoke(commands.app, ["search", "--gpu", "H100", "-p", "lambda", "--fetch", "replay"])
            assert done.exit_code == 0, done.output
        assert not default_engine().row_views
        offers = gpuhub.search(gpu="H100", provider="lambda", fetch="replay", limit=3).offers
    finally:
        reset_default_engine(None)
    assert [type(o) for o in offers] == [Offer] * 3
    assert (offers[0].instance_type, str(offers[0].price.amount)) == ("gpu_1x_h100_pcie", "2.49")


def test_a_record_a_model_refuses_is_skipped_with_the_field_and_pydantic_s_reason() -> None:
    from decimal import Decimal

    from gpuhub.fetch.provider import RecordGuard

    class Context:
        def __init__(self) -> None:
            self.skipped: list[str] = []

        def skip(self, reason: str) -> None:
            self.skipped.append(reason)

    ctx = Context()
    with RecordGuard(ctx, "price"):  # type: ignore[arg-type]
        Price(amount=Decimal("-1"), currency="USD", purchase="on_demand")
    with RecordGuard(ctx, "row"):  # type: ignore[arg-type]
        {}["instance_type"]
    assert ctx.skipped == ["price: invalid amount: Input should be greater than or equal to 0",
                           "row: missing field 'instance_type'"]
