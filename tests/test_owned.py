"""Capacity the user owns (``gpuhub.fetch.owned``): reservations, commitments and idle instances from the settings
file are offers of the provider ``owned``, priced at their marginal cost, ranked first when they match, explained,
and gone once their end has passed (on a fixed clock), searched together with every installed plugin's offers."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import gpuhub
from gpuhub import Registry
from gpuhub.cli.commands import app
from gpuhub.fetch.hookspecs import hookimpl
from gpuhub.fetch.owned import OwnedCapacity
from gpuhub.fetch.plugins import reset_registry
from gpuhub.fetch.provider import Provider
from gpuhub.kit.testing import make_engine
from gpuhub.service.engine import Engine
from gpuhub.service.searching import reset_default_engine

SETTINGS = """\
capacity:
  - id: cr-0a1b2c3d4e5f67890
    kind: reservation
    provider: aws
    instance_type: p5.48xlarge
    region: us-east-1
    gpu: H100
    gpus: 8
    count: 2
    vcpus: 192
    memory_gib: 2048
    price_per_hour: 0
    ends: {reservation_ends}
  - id: projects/acme/commitments/cud-a3
    kind: commitment
    provider: gcp
    instance_type: a3-highgpu-8g
    region: us-central1
    gpu: H100
    gpus: 8
    price_per_hour: 52.40
    ends: 2027-09-30T00:00:00Z
  - id: i-0123456789abcdef0
    kind: idle
    provider: lambda
    instance_type: gpu_1x_a100
    region: us-east-1
    gpu: A100
    gpus: 1
    price_per_hour: 0
  - id: cr-expired
    kind: reservation
    provider: aws
    instance_type: p5.48xlarge
    region: us-west-2
    gpu: H100
    gpus: 8
    price_per_hour: 0
    ends: 2026-11-30
  - id: broken
    kind: lease
    provider: aws
    instance_type: p4d.24xlarge
    region: us-east-1
    gpu: A100
    gpus: 8
    price_per_hour: 0
"""
CLOCK = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)
RESERVATION = ("your reservation cr-0a1b2c3d4e5f67890 covers this until 2027-03-31 (2 instances; prepaid: marginal "
               "cost 0)")


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "owned.yaml"
    path.write_text(SETTINGS.format(reservation_ends="2027-03-31"))
    monkeypatch.setenv("GPUHUB_OWNED", str(tmp_path / "not-this-one.yaml"))  # the built-in registers none here
    return path


def engine_at(path: Path, clock: Callable[[], dt.datetime]) -> Engine:
    """Every installed plugin plus the owned capacity of ``path`` read on ``clock``."""
    class Plugin:
        @hookimpl
        def register_providers(self, register: Callable[[Provider], None]) -> None:
            register(OwnedCapacity(path, clock=clock))

    return make_engine(Registry(extra_plugins=[("owned-test", Plugin())]))


@pytest.fixture
def engine(settings: Path) -> Iterator[Engine]:
    engine = engine_at(settings, lambda: CLOCK)
    yield engine
    engine.shutdown()


def test_an_owned_reservation_ranks_first_with_its_explanation(engine: Engine) -> None:
    result = gpuhub.search("H100", min_gpus=8, engine=engine, limit=3)
    first = result.to_dicts()[0]
    assert (first["provider"], first["seller"], first["instance_type"], first["region"], first["country"],
            first["purchase"], first["price_per_hour"], first["available_count"]) == (
        "owned", "aws", "p5.48xlarge", "us-east-1", "US", "owned", 0.0, 2)
    assert first["explanation"].startswith(RESERVATION + "; 8 × H100 at 0.00 USD/h")
    second = result.to_dicts()[1]  # the commitment: owned too, at its rate, before every rented offer
    assert (second["provider"], second["seller"], second["price_per_hour"]) == ("owned", "gcp", 52.4)
    assert second["explanation"].startswith("your commitment projects/acme/commitments/cud-a3 covers this until "
                                            "2027-09-30 (marginal cost: its rate of 52.4 USD/h)")
    assert result.to_dicts()[2]["provider"] != "owned"
    status = next(s for s in result.statuses if s.provider == "owned")
    assert status.state == "ok" and status.skipped_reasons == {"ended": 1, "entry kind: Input should be "
                                                                            "'reservation', 'commitment' or 'idle'": 1}


def test_owned_capacity_is_found_by_its_seller_and_left_out_by_another_purchase(engine: Engine) -> None:
    aws = gpuhub.search("H100", min_gpus=8, provider="aws", engine=engine, limit=2)
    assert [(o.provider, o.seller) for o in aws.offers] == [("owned", "aws"), ("aws", "aws")]
    rented = gpuhub.search("H100", min_gpus=8, purchase="on_demand", engine=engine, limit=5)
    assert all(o.provider != "owned" for o in rented.offers)
    idle = gpuhub.search("A100", engine=engine, limit=1).offers[0]
    assert (idle.instance_type, idle.instance.note) == (
        "gpu_1x_a100", "your idle instance i-0123456789abcdef0 is running, idle (prepaid: marginal cost 0)")


def test_a_reservation_is_gone_after_its_end_date(settings: Path) -> None:
    later = engine_at(settings, lambda: dt.datetime(2027, 4, 1, 0, 0, 1, tzinfo=dt.timezone.utc))
    try:
        offers = gpuhub.search("H100", min_gpus=8, engine=later, limit=3).offers
        assert [(o.provider, o.seller) for o in offers][:1] == [("owned", "gcp")]  # the commitment still holds
        assert all(o.instance.note is None or "cr-0a1b2c3d4e5f67890" not in o.instance.note for o in offers)
    finally:
        later.shutdown()
    last_day = engine_at(settings, lambda: dt.datetime(2027, 3, 31, 23, 59, tzinfo=dt.timezone.utc))
    try:  # a date as the end means the whole of that day (UTC)
        assert gpuhub.search("H100", min_gpus=8, engine=last_day, limit=1).offers[0].seller == "aws"
    finally:
        last_day.shutdown()


def test_the_cli_reads_the_settings_file_named_by_the_environment(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "owned.yaml"
    path.write_text(SETTINGS.format(reservation_ends="2099-12-31"))
    monkeypatch.setenv("GPUHUB_OWNED", str(path))
    reset_registry(None)
    reset_default_engine(None)
    try:
        result = CliRunner().invoke(app, ["search", "--gpu", "H100", "--min-gpus", "8", "--format", "json",
                                          "--limit", "2", "--fetch", "replay"])
    finally:
        reset_default_engine(None)
        reset_registry(None)
    assert result.exit_code == 0, result.output
    first = json.loads(result.stdout)[0]
    assert (first["provider"], first["purchase"], first["price_per_hour"]) == ("owned", "owned", 0.0)
    assert first["explanation"].startswith("your reservation cr-0a1b2c3d4e5f67890 covers this until 2099-12-31")


def test_a_bad_settings_file_fails_the_provider_not_the_search(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "owned.yaml"
    path.write_text("capacity: {not: a list}\n")
    monkeypatch.setenv("GPUHUB_OWNED", str(tmp_path / "none.yaml"))
    engine = engine_at(path, lambda: CLOCK)
    try:
        result = gpuhub.search("H100", min_gpus=8, engine=engine, limit=1)
    finally:
        engine.shutdown()
    status = next(s for s in result.statuses if s.provider == "owned")
    assert status.state == "failed" and "need a list under 'capacity:'" in (status.reason or "")
    assert result.offers and result.offers[0].provider != "owned"
