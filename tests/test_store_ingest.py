"""Ingest: the engine's one-pass checked column builder (ColumnBuilder.add_checked) stores exactly what the
per-offer check (gpuhub.store.validate.offer_problem) lets through, and skips what it refuses, also when a bad offer is
made of parts that good offers already brought (so the per-part check cache cannot let it in)."""

from __future__ import annotations

from decimal import Decimal

import pytest

import gpuhub
from gpuhub.kit.testing import make_engine, run_provider
from gpuhub.model import Instance, Offer, Price, Region, known_purchase_models
from gpuhub.store.columns import ColumnBuilder
from gpuhub.store.validate import offer_problem

PURCHASES = frozenset(known_purchase_models())


@pytest.fixture(scope="module")
def lambda_offers() -> list[Offer]:
    offers, status = run_provider(make_engine(gpuhub.Registry(), store=None), "lambda")
    assert status.state == "ok"
    return list(offers)


def test_checked_builder_stores_the_same_content_as_check_then_add(lambda_offers: list[Offer]) -> None:
    checked = ColumnBuilder()
    assert [checked.add_checked(o, "lambda", PURCHASES) for o in lambda_offers] == [None] * len(lambda_offers)
    plain = ColumnBuilder().extend(lambda_offers).build()
    built = checked.build()
    assert len(built) == len(lambda_offers) == 340
    assert built.content_hash() == plain.content_hash()
    cheapest = int(built.columns["price"].argmin())
    offer = built[cheapest]
    assert (offer.instance_type, offer.region.code, offer.price.amount, offer.price.purchase) == (
        "gpu_1x_rtx6000", "europe-central-1", Decimal("0.5"), "on_demand")
    assert built.columns["price"][cheapest] == 0.5


def _bad(good: Offer, **price: object) -> Offer:
    """``good`` with its price replaced, built without validation (as a careless plugin might), sharing the very
    same Instance, Region and Source objects."""
    terms = {"amount": good.price.amount, "currency": good.price.currency, "purchase": good.price.purchase, **price}
    return Offer.model_construct(instance=good.instance, region=good.region, price=Price.model_construct(**terms),
                                 source=good.source, available=good.available)


@pytest.mark.parametrize(("price", "reason"), [
    ({"amount": Decimal("-1.25")}, "invalid price '-1.25'"),
    ({"amount": Decimal("NaN")}, "invalid price 'NaN'"),
    ({"amount": 0.5}, "invalid price '0.5'"),  # a float, not a Decimal, even though 0.5 is a known amount
    ({"currency": "XXY"}, "invalid currency 'XXY'"),
    ({"purchase": "whenever"}, "unknown purchase model 'whenever'"),
    ({"upfront": 1}, "invalid upfront price '1'"),  # 1 == Decimal(1): must not hit the good terms' cache
])
def test_bad_offer_of_known_parts_is_skipped(lambda_offers: list[Offer], price: dict[str, object],
                                             reason: str) -> None:
    builder = ColumnBuilder()
    [template, *_] = [o for o in lambda_offers if o.price.amount == Decimal("0.5")]
    same_terms = _bad(template, upfront=Decimal(1))
    for offer in [*lambda_offers, same_terms]:
        assert builder.add_checked(offer, "lambda", PURCHASES) is None
    bad = _bad(template, **price)
    problem = builder.add_checked(bad, "lambda", PURCHASES)
    assert problem == offer_problem(bad, "lambda", PURCHASES) and problem is not None
    assert problem.startswith(reason)
    assert len(builder.build()) == len(lambda_offers) + 1  # the bad one was not added


def test_bad_parts_and_foreign_offers_are_skipped_with_the_per_offer_reasons(lambda_offers: list[Offer]) -> None:
    builder = ColumnBuilder()
    for offer in lambda_offers:
        builder.add_checked(offer, "lambda", PURCHASES)
    template = lambda_offers[0]
    foreign = Offer.model_construct(instance=Instance.model_construct(**{**dict(template.instance),
                                                                         "provider": "aws"}),
                                    region=template.region, price=template.price, source=template.source)
    no_region = Offer.model_construct(instance=template.instance, region=Region.model_construct(
        provider="lambda", code=""), price=template.price, source=template.source)
    unknown_availability = Offer.model_construct(instance=template.instance, region=template.region,
                                                 price=template.price, source=template.source, available="maybe")
    reasons = [builder.add_checked(o, "lambda", PURCHASES) for o in (foreign, no_region, unknown_availability,
                                                                    "not an offer")]
    assert reasons == ["offer names provider 'aws', not 'lambda'", "offer without a region code",
                       "invalid availability", "fetch yielded a str, not an Offer"]
    assert len(builder.build()) == 340


@pytest.mark.parametrize("enabled_before", [True, False])
def test_bulk_ingest_pauses_automatic_gc_and_restores_it(registry: gpuhub.Registry, monkeypatch: pytest.MonkeyPatch,
                                                        enabled_before: bool) -> None:
    import gc

    from gpuhub.service import engine as engine_module

    monkeypatch.setattr(engine_module, "BULK_OFFERS", 0)  # every ingest is a bulk one here
    provider = registry.providers["fakecloud"]
    original = provider.fetch
    seen: list[bool] = []

    def fetch(ctx):  # type: ignore[no-untyped-def]
        for offer in original(ctx):
            yield offer
            seen.append(gc.isenabled())

    monkeypatch.setattr(provider, "fetch", fetch)
    (gc.enable if enabled_before else gc.disable)()
    try:
        offers, status = run_provider(make_engine(registry, store=None), "fakecloud")
        assert gc.isenabled() is enabled_before
    finally:
        gc.enable()
    assert (status.state, len(offers)) == ("ok", 7)
    assert seen == [False] * 7  # paused while the offers came in
    assert {o.price_per_hour for o in offers if o.instance_type == "h100x8"} == {Decimal("23.92")}
