from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

import gpuhub
from gpuhub import Engine, QueryError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_offers_sorted_by_price_with_status(engine: Engine) -> None:
    result = gpuhub.search(engine=engine, currency="USD")
    # a100x1 (1.29) is known sold out: it ranks after every available or unknown offer, at any price
    assert [(o.instance_type, o.price.purchase, str(o.price_per_hour)) for o in result][:3] == [
        ("8x_A4000", "spot", "1.600"), ("a10-half", "on_demand", "1.60"), ("8x_A4000", "on_demand", "3.600")]
    assert (result[-1].instance_type, result[-1].available) == ("a100x1", False)
    status = result.status("fakecloud")
    assert status.state == "ok" and status.offers == 7 and status.skipped_records == 2
    assert status.unknown_gpus == {"RTX A2000": 1}
    assert status.source == "replay:fakecloud@2026-11-30"


def test_c08_per_gpu_api_prices_become_instance_prices(engine: Engine) -> None:
    result = gpuhub.search(engine=engine, min_gpus=8, max_gpus=8, currency="USD")
    a4000 = {o.price.purchase: o for o in result if o.instance_type == "8x_A4000"}
    assert a4000["on_demand"].price_per_hour == Decimal("3.60")
    assert a4000["spot"].price_per_hour == Decimal("1.60")
    assert a4000["on_demand"].price_per_gpu_hour == Decimal("0.45")
    assert a4000["spot"].price_per_gpu_hour == Decimal("0.20")


def test_c23_placeholder_zero_price_never_ranks_first(engine: Engine) -> None:
    result = gpuhub.search("H100", engine=engine)
    assert [o.instance_type for o in result] == ["h100x8", "h100x8"]
    assert all(o.price_per_hour == Decimal("23.92") for o in result)
    assert result.status("fakecloud").skipped_reasons["zero price (placeholder)"] == 1


def test_unknown_gpu_offers_stay_visible(engine: Engine) -> None:
    result = gpuhub.search(engine=engine, provider="fakecloud", purchase="spot")
    [offer] = result
    assert offer.gpu_name == "RTX A2000" and offer.instance.gpu is not None and not offer.instance.gpu.known


def test_c03_vram_filters_use_the_fraction(engine: Engine) -> None:
    result = gpuhub.search("A10", engine=engine)
    [half] = result
    assert half.instance.fractional and half.instance.gpu_memory_gib == 12
    assert len(gpuhub.search("A10", engine=engine, min_vram=24)) == 0
    assert len(gpuhub.search("A10", engine=engine, exclude_fractional=True)) == 0


def test_filters_say_what_removed_how_many(engine: Engine) -> None:
    result = gpuhub.search("H100", engine=engine, max_price=10, region="us-east-1")
    assert len(result) == 0 and result.considered == 7
    assert result.removed_by == {"gpu": 5, "region": 1, "max_price": 1}
    assert "--gpu removed 5" in result.explain() and "--max-price removed 1" in result.explain()


def test_form_factor_asked_for_is_honoured(engine: Engine) -> None:
    # The fake provider spells its H100 "NVIDIA H100 80GB HBM3": no form factor, so neither form claims it.
    result = gpuhub.search(["H100 PCIe"], engine=engine)
    assert len(result) == 0 and result.removed_by["gpu"] == 7
    assert len(gpuhub.search(["H100 SXM"], engine=engine)) == 0
    assert len(gpuhub.search(["H100", "H100 PCIe"], engine=engine)) == 2  # any form wins over one form


def test_provider_kind_mig_and_nvlink_filters(engine: Engine) -> None:
    def types(**kwargs: object) -> list[str]:
        return sorted({o.instance_type for o in gpuhub.search(engine=engine, **kwargs)})  # type: ignore[arg-type]

    assert len(types(provider_kind="specialist")) == 5  # fakecloud is a specialist (7 offers of 5 types)
    result = gpuhub.search(engine=engine, provider_kind="hyperscaler")
    assert len(result) == 0 and result.removed_by["provider_kind"] == 7
    # MIG: A100 and H100 support it (GPU table); the A10 and the unknown RTX A2000 do not.
    assert types(mig_capable=True) == ["a100x1", "a100x8-80", "h100x8"]
    # NVLink: multi-GPU boards whose form is SXM: only the 80 GB A100 SXM4 (the H100 is spelled without a form).
    assert types(nvlink=True) == ["a100x8-80"]
    with pytest.raises(QueryError, match=r"provider_kind.*allowed values: hyperscaler, specialist"):
        gpuhub.search(engine=engine, provider_kind="cheap")


def test_country_names_and_lat_lon_pairs(engine: Engine) -> None:
    assert gpuhub.search(engine=engine, country="Germany").query.countries == ("DE",)
    assert gpuhub.search(engine=engine, near=(50.11, 8.68), sort="latency").query.near == ("50.11,8.68", 50.11, 8.68)


def test_each_filter(engine: Engine) -> None:
    def types(**kwargs: object) -> list[str]:
        return sorted({o.instance_type for o in gpuhub.search(engine=engine, **kwargs)})  # type: ignore[arg-type]

    assert types(gpu="A100-80GB") == ["a100x8-80"]
    assert types(gpu=["nvidia-tesla-a100"]) == ["a100x1"]
    assert types(min_total_vram=640) == ["a100x8-80", "h100x8"]
    assert types(min_vcpus=200) == ["a100x8-80"]
    assert types(min_memory=2000) == ["h100x8"]
    assert types(region="eu-central-1") == ["a100x8-80", "h100x8"]
    assert types(currency="EUR") == ["a100x8-80"]
    assert types(available_only=True, max_gpus=1) == []  # a10-half: availability unknown; a100x1: sold out
    assert types(available_only=True, max_gpus=8, currency="USD") == ["8x_A4000", "h100x8"]
    assert types(purchase="spot") == ["8x_A4000"]
    assert types(min_gpus=0.25, max_gpus=0.5) == ["a10-half"]


def test_sorts_and_limit(engine: Engine) -> None:
    per_gpu = gpuhub.search(engine=engine, sort="price_per_gpu", currency="USD", limit=2)
    assert [str(o.price_per_gpu_hour) for o in per_gpu] == ["0.20", "0.45"]
    assert per_gpu.matched == 6 and "--limit kept 2 of 6" in per_gpu.explain()
    per_vram = gpuhub.search(engine=engine, sort="price_per_vram", currency="USD", limit=1)
    # 1.29 USD / 40 GiB = 0.03225 would beat 23.92 / 640 = 0.037375, but a100x1 is sold out: it ranks last
    assert per_vram[0].instance_type == "h100x8" and per_vram[0].price_per_vram_gib_hour == Decimal("0.037375")


def test_other_currencies_are_never_compared_with_usd(engine: Engine) -> None:
    result = gpuhub.search(engine=engine, purchase="on_demand")
    currencies = [o.price.currency for o in result]
    assert currencies == sorted(currencies, key=lambda c: c != "USD") and currencies[-1] == "EUR"


@pytest.mark.parametrize(("kwargs", "argument", "allowed"), [
    ({"purchase": "cheap"}, "purchase", "on_demand, spot, low_priority"),
    ({"provider": "nocloud"}, "provider", "fakecloud"),
    ({"continent": "Atlantis"}, "continent", "Europe"),
    ({"sort": "best"}, "sort", "price, price_per_gpu, price_per_vram"),
    ({"min_gpus": -1}, "min_gpus", "0 or more, got -1"),
    ({"min_gpus": 4, "max_gpus": 2}, "min_gpus", "larger than max_gpus"),
    ({"max_price": "ten"}, "max_price", "expected a number"),
    ({"limit": 0}, "limit", "from 1 to 1000000"),
    ({"currency": "EURO"}, "currency", "ISO 4217"),
    ({"country": "Atlantis"}, "country", "ISO 3166 code or name"),
    ({"country": "XX"}, "country", "ISO 3166 code or name"),
    ({"gpu": ""}, "gpu", "empty GPU name"),
    ({"instance_type": ""}, "instance_type", "is empty"),
    ({"region": [" "]}, "region", "is empty"),
    ({"gpu": 123}, "gpu", "expected text"),
    ({"gpu": "H100 maybe"}, "gpu", "Did you mean: H100"),
    ({"currency": 5}, "currency", "ISO 4217"),
    ({"near": (50.1,)}, "near", "(latitude, longitude)"),
    ({"fixtures_dir": 123}, "fixtures_dir", "directory path"),
    ({"timeout": -1}, "timeout", "positive number"),
    ({"region": "mars-1"}, "region", "unknown region or zone 'mars-1'"),
    ({"sort": "latency"}, "sort", "needs a place"),
    ({"limit": -3}, "limit", "whole number from 1 to 1000000"),
    ({"gpu": "H1000"}, "gpu", "Did you mean: H100"),
    ({"sort": "price", "workload": "training"}, "sort", "both choose the ranking"),
])
def test_bad_arguments_name_the_argument_and_allowed_values(engine: Engine, kwargs: dict[str, object],
                                                            argument: str, allowed: str) -> None:
    with pytest.raises(QueryError) as info:
        gpuhub.search(engine=engine, **kwargs)  # type: ignore[arg-type]
    assert info.value.argument == argument and allowed in str(info.value)


def test_json_export_has_the_documented_keys(engine: Engine) -> None:
    data = json.loads(gpuhub.search("H100", engine=engine).to_json())
    required = {"provider", "instance_type", "region", "zone", "gpu_name", "gpu_count", "gpu_memory_gib", "vcpus",
                "memory_gib", "purchase", "price_per_hour", "currency", "price_per_gpu_hour", "available", "source"}
    offer = data["offers"][0]
    assert required <= set(offer)
    assert (offer["gpu_name"], offer["gpu_count"], offer["price_per_hour"], offer["price_per_gpu_hour"]) == (
        "H100", 8, 23.92, 2.99)
    assert data["providers"][0]["state"] == "ok"


def test_user_fixtures_dir_replays(engine: Engine) -> None:
    result = gpuhub.search("H100", engine=engine, fixtures_dir=FIXTURES)
    assert len(result) == 2 and result.status("fakecloud").source == "replay:fakecloud@2026-11-30"


def test_public_surface_is_explicit() -> None:
    exported = set(gpuhub._EXPORTS) | {"__version__", "gpu_table"}
    assert set(gpuhub.__all__) == exported
    for name in gpuhub.__all__:
        assert getattr(gpuhub, name) is not None
    with pytest.raises(AttributeError):
        gpuhub.no_such_name  # noqa: B018
    assert callable(gpuhub.search) and gpuhub.__version__ == "0.1.0"
