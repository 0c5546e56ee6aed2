"""Seller and source (who runs the machine, the API it came through) and listing statistics (issue 25, C35)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal

import pytest
from typer.testing import CliRunner

import gpuhub
from gpuhub import Engine, Instance, Offer, Price, Provider, ProviderContext
from gpuhub.answer.catalog import Catalog
from gpuhub.cli.commands import app
from gpuhub.fetch.plugins import reset_registry
from gpuhub.kit.testing import make_engine, registry_of
from gpuhub.sellers import known_sellers, seller_name
from gpuhub.service.searching import reset_default_engine
from gpuhub.store.columns import ColumnBuilder, OfferColumns

runner = CliRunner()


class Direct(Provider):
    """Lambda selling its own 8 x A100 80 GB (gpu_8x_a100_80gb_sxm4, 14.32 USD per hour) in us-midwest-1."""

    name = "lambda"
    kind = "specialist"

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        inst = Instance(provider="lambda", instance_type="gpu_8x_a100_80gb_sxm4", gpu=ctx.gpu("A100-80GB"),
                        gpu_count=8, vcpus=240, memory_gib=1800)
        yield Offer(instance=inst, region=ctx.region("us-midwest-1"), source=ctx.source,
                    price=Price(amount=Decimal("14.32"), currency="USD", purchase="on_demand"))


class Aggregator(Provider):
    """An aggregator reselling the same Lambda machine (as Prime Intellect's catalog does) and a marketplace
    median of 5 listings of one 1 x L40S (C35: 0.30, 0.35, 0.43, 0.50, 0.61 -> median 0.43)."""

    name = "agg"
    kind = "other"
    resells = True

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        resold = Instance(provider="agg", instance_type="lambdalabs__8xA100_80GB__240__1800", seller="lambdalabs",
                          seller_instance_type="gpu_8x_a100_80gb_sxm4", gpu=ctx.gpu("A100-80GB"), gpu_count=8,
                          vcpus=240, memory_gib=1800)
        yield Offer(instance=resold, region=ctx.region("us-midwest-1"), source=ctx.source,
                    price=Price(amount=Decimal("14.99"), currency="USD", purchase="on_demand"))
        own = Instance(provider="agg", instance_type="1x-L40S", gpu=ctx.gpu("L40S"), gpu_count=1)
        yield Offer(instance=own, region=ctx.region("eu"), source=ctx.source,
                    price=Price(amount=Decimal("0.43"), currency="USD", purchase="on_demand", listing_stat="median",
                                listing_count=5))


_registry = registry_of


@pytest.fixture
def both() -> Iterator[Engine]:
    engine = make_engine(_registry(Direct(), Aggregator()))
    reset_registry(engine.registry)
    reset_default_engine(engine)
    yield engine
    reset_default_engine(None)
    reset_registry(None)
    engine.shutdown()


def test_seller_names_are_one_per_seller() -> None:
    assert seller_name("lambdalabs") == seller_name("Lambda Labs") == "lambda"
    assert seller_name("datacrunch") == "verda" and seller_name("crusoecloud") == "crusoe"
    assert seller_name("Some New Cloud") == "some-new-cloud"  # kept visible, never guessed
    assert {"lambda", "verda", "massedcompute", "hyperstack"} <= set(known_sellers())
    with pytest.raises(ValueError, match="empty seller"):
        seller_name("  ")


def test_instance_says_seller_source_and_machine() -> None:
    resold = Instance(provider="primeintellect", instance_type="lambdalabs__8xA100_80GB__240__1800",
                      seller="LambdaLabs", seller_instance_type="gpu_8x_a100_80gb_sxm4")
    direct = Instance(provider="lambda", instance_type="gpu_8x_a100_80gb_sxm4")
    assert (resold.seller, resold.seller_name, resold.via) == ("lambda", "lambda", "primeintellect")
    assert resold.channel == "lambda via primeintellect" and direct.channel == "lambda"
    assert (direct.seller_name, direct.via) == ("lambda", None)
    assert resold.machine == direct.machine == "lambda:gpu_8x_a100_80gb_sxm4"


def test_listing_statistic_label() -> None:
    median = Price(amount=Decimal("0.43"), currency="USD", purchase="on_demand", listing_stat="median",
                   listing_count=5)
    assert median.listing_label() == "median of 5 listings"
    assert Price(amount=Decimal("1"), currency="USD", purchase="on_demand", listing_stat="min").listing_label() \
        == "min of listings"
    assert Price(amount=Decimal("1"), currency="USD", purchase="on_demand").listing_label() is None
    with pytest.raises(ValueError):
        Price(amount=Decimal("1"), currency="USD", purchase="on_demand", listing_stat="mode")


def test_seller_and_listing_statistic_survive_the_store(both: Engine) -> None:
    offers = list(gpuhub.search(fetch="live", engine=both))
    stored = OfferColumns.from_parts(ColumnBuilder().extend(offers).build().to_parts())
    back = {o.instance_type: o for o in stored.offers()}
    resold = back["lambdalabs__8xA100_80GB__240__1800"]
    assert (resold.seller, resold.via, resold.instance.seller_instance_type) == \
        ("lambda", "agg", "gpu_8x_a100_80gb_sxm4")
    assert (back["1x-L40S"].price.listing_stat, back["1x-L40S"].price.listing_count) == ("median", 5)
    catalog = Catalog.from_parts([stored])  # a warm search reads the stored columns
    assert sorted(catalog.seller.values) == ["agg", "lambda"]


def test_provider_matches_seller_or_source(both: Engine) -> None:
    lam = gpuhub.search(fetch="live", engine=both, provider="lambda")
    assert sorted((o.provider, o.seller, str(o.price_per_hour)) for o in lam) == [
        ("agg", "lambda", "14.99"), ("lambda", "lambda", "14.32")]
    agg = gpuhub.search(fetch="live", engine=both, provider="agg")
    assert sorted(o.instance_type for o in agg) == ["1x-L40S", "lambdalabs__8xA100_80GB__240__1800"]


def test_a_known_seller_without_its_own_plugin_is_found_through_the_aggregator() -> None:
    engine = make_engine(_registry(Aggregator()))
    try:
        [offer] = gpuhub.search(fetch="live", engine=engine, provider="lambda")
        assert (offer.provider, offer.seller, str(offer.price_per_hour)) == ("agg", "lambda", "14.99")
        with pytest.raises(gpuhub.QueryError, match="provider"):
            gpuhub.search(fetch="live", engine=engine, provider="nosuchcloud")
    finally:
        engine.shutdown()


def test_json_and_explain_say_seller_source_and_statistic(both: Engine) -> None:
    result = gpuhub.search(fetch="live", engine=both)
    records = {r["instance_type"]: r for r in result.to_dicts()}
    resold, direct = records["lambdalabs__8xA100_80GB__240__1800"], records["gpu_8x_a100_80gb_sxm4"]
    assert (resold["provider"], resold["seller"], resold["via"], resold["machine"]) == \
        ("agg", "lambda", "agg", "lambda:gpu_8x_a100_80gb_sxm4")
    assert (direct["seller"], direct["via"], direct["machine"]) == ("lambda", None, "lambda:gpu_8x_a100_80gb_sxm4")
    median = records["1x-L40S"]
    assert (median["listing_stat"], median["listing_count"], median["price_per_hour"]) == ("median", 5, 0.43)
    explained = {o.instance_type: result.details(i)["explanation"] for i, o in enumerate(result)}
    assert "lambda via agg: lambda's machine gpu_8x_a100_80gb_sxm4 offered through agg" in \
        explained["lambdalabs__8xA100_80GB__240__1800"]
    assert "the price is the median of 5 listings on the marketplace, not one listing's" in explained["1x-L40S"]


def test_table_shows_one_machine_through_two_channels(both: Engine) -> None:
    table = runner.invoke(app, ["search", "--fetch", "live", "--gpu", "A100-80GB"])
    assert table.exit_code == 0, table.output
    assert "lambda via agg" in table.stdout
    assert ("lambda gpu_8x_a100_80gb_sxm4 (on_demand) is one machine through 2 channels: lambda 14.32 USD/h, "
            "lambda via agg 14.99 USD/h") in table.stderr
    median = runner.invoke(app, ["search", "--fetch", "live", "--gpu", "L40S", "--format", "json"])
    assert json.loads(median.stdout)[0]["listing_stat"] == "median"
    shown = runner.invoke(app, ["search", "--fetch", "live", "--gpu", "L40S"])
    assert "median of 5" in shown.stdout


def test_grouping_by_provider_names_the_channel(both: Engine) -> None:
    result = gpuhub.search(fetch="live", engine=both, gpu="A100-80GB", group_by="provider")
    assert result.groups is not None
    assert [(g.keys["provider"], str(g.price_min)) for g in result.groups] == [
        ("lambda", "14.32"), ("lambda via agg", "14.99")]
