from __future__ import annotations

from decimal import Decimal

import pydantic
import pytest

from gpuhub import Gpu, Instance, Offer, Price, Region, Source, known_purchase_models, register_purchase_model

SOURCE = Source(mode="replay", recording="test")


def _offer(count: float, price: str, memory: str = "24", fractional: bool = False) -> Offer:
    gpu = Gpu(name="A10", memory_gib=Decimal(memory))
    inst = Instance(provider="p", instance_type="t", gpu=gpu, gpu_count=count, fractional=fractional)
    return Offer(instance=inst, region=Region(provider="p", code="r"), source=SOURCE,
                 price=Price(amount=Decimal(price), currency="USD", purchase="on_demand"))


def test_c23_zero_price_is_not_a_price() -> None:
    with pytest.raises(pydantic.ValidationError, match="greater than 0"):
        Price(amount=Decimal("0"), currency="USD", purchase="on_demand")
    with pytest.raises(pydantic.ValidationError):
        Price(amount=Decimal("NaN"), currency="USD", purchase="on_demand")
    with pytest.raises(pydantic.ValidationError):
        Price(amount=Decimal("-1.5"), currency="USD", purchase="on_demand")


def test_c25_unknown_currency_rejected_and_case_normalized() -> None:
    with pytest.raises(pydantic.ValidationError, match="ISO 4217"):
        Price(amount=Decimal("1"), currency="EURO", purchase="on_demand")
    assert Price(amount=Decimal("1"), currency="eur", purchase="spot").currency == "EUR"
    assert Price(amount=Decimal("1"), currency="CNY", purchase="spot").currency == "CNY"


def test_purchase_models_are_checked_and_extensible() -> None:
    with pytest.raises(pydantic.ValidationError, match="allowed: on_demand, spot"):
        Price(amount=Decimal("1"), currency="USD", purchase="cheap")
    register_purchase_model("flex_start")
    assert "flex_start" in known_purchase_models()
    assert Price(amount=Decimal("1"), currency="USD", purchase="flex_start").purchase == "flex_start"
    with pytest.raises(ValueError, match="snake case"):
        register_purchase_model("Flex Start")


def test_money_is_exact_and_derived_figures_follow() -> None:
    offer = _offer(8, "23.92", "80")
    assert offer.price_per_hour == Decimal("23.92")
    assert offer.price_per_gpu_hour == Decimal("2.99")
    assert offer.instance.gpu_memory_total_gib == 640
    assert offer.price_per_vram_gib_hour == Decimal("23.92") / Decimal("640")
    record = offer.to_record()
    assert record["price_per_hour"] == 23.92 and record["price_per_gpu_hour"] == 2.99
    assert record["gpu_count"] == 8 and record["price_per_vram_gib_hour"] == 0.037375


def test_c03_fractional_gpu_keeps_the_fraction() -> None:
    half = _offer(0.5, "1.60", fractional=True)
    whole = _offer(1, "3.20")
    assert half.instance.gpu_memory_gib == 12 and half.instance.gpu_memory_total_gib == 12
    assert whole.instance.gpu_memory_gib == 24
    assert half.price_per_gpu_hour == Decimal("3.2")
    assert half.to_record()["gpu_count"] == 0.5 and half.to_record()["fractional"] is True


def test_models_are_immutable() -> None:
    offer = _offer(1, "1.00")
    with pytest.raises(pydantic.ValidationError):
        offer.available = True  # type: ignore[misc]


@pytest.mark.parametrize("amount", ["NaN", "sNaN", "Infinity", "-Infinity", float("nan"), float("inf")])
def test_a_price_is_a_finite_number(amount: object) -> None:
    with pytest.raises(pydantic.ValidationError, match="finite number"):
        Price(amount=amount, currency="USD", purchase="on_demand")  # type: ignore[arg-type]
