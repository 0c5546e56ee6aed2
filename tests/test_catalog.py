"""The catalog's two ranking paths (sort the selection; gather along a precomputed order) agree exactly."""

from __future__ import annotations

import random
from decimal import Decimal

import numpy as np
import pytest

from gpuhub import Gpu, Instance, Offer, Price, Region, Registry, Source
from gpuhub.answer.catalog import Catalog
from gpuhub.answer.query import build_query


def _offers(n: int, seed: int) -> list[Offer]:
    rng = random.Random(seed)
    source = Source(mode="replay", recording="synthetic")
    gpus = [Gpu(name="H100", memory_gib=Decimal(80), form_factor="SXM"), Gpu(name="A100", memory_gib=Decimal(40)),
            Gpu(name="L4", memory_gib=Decimal(24)), Gpu(name="Mystery", known=False)]
    out = []
    for _ in range(n):
        count = rng.choice([0.5, 1, 2, 4, 8])
        inst = Instance(provider=rng.choice(["p", "q"]), instance_type=f"t{rng.randrange(20)}",
                        gpu=rng.choice(gpus), gpu_count=count, fractional=count < 1, vcpus=rng.choice([None, 8, 96]))
        price = Decimal(rng.choice(["1.5", "2.25", "10", "0.99", str(rng.randrange(1, 5000) / 100)]))
        out.append(Offer(instance=inst, region=Region(provider=inst.provider, code=f"r{rng.randrange(5)}",
                                                      zone=rng.choice([None, "a", "b"])),
                         price=Price(amount=price, currency=rng.choice(["USD", "USD", "EUR"]),
                                     purchase=rng.choice(["on_demand", "spot"])), source=source))
    return out


def test_empty_catalog_selects_and_ranks_nothing(registry: Registry) -> None:
    catalog = Catalog([], registry.gpus)
    query = build_query(gpus=registry.gpus, providers=[], rankers=list(registry.rankers), gpu="H100", max_price=5)
    rows, removed = catalog.select(query)
    assert len(rows) == 0 and removed == {"gpu": 0, "max_price": 0}
    assert catalog.rank(rows, registry.rankers["training"], query, 5)[0].tolist() == []


@pytest.mark.parametrize("ranker_name", ["price", "price_per_gpu", "price_per_vram", "training", "rendering"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_gather_path_equals_sorting_the_selection(registry: Registry, ranker_name: str, seed: int) -> None:
    catalog = Catalog(_offers(600, seed), registry.gpus)
    query = build_query(gpus=registry.gpus, providers=["p", "q"], rankers=list(registry.rankers))
    ranker = registry.rankers[ranker_name]
    rng = np.random.default_rng(seed)
    for fraction in (1.0, 0.5, 0.05):
        rows = np.flatnonzero(rng.random(600) < fraction).astype(np.int32)
        gathered, gathered_scores = catalog.rank(rows, ranker, query, limit=None)
        order = catalog._lexsort(rows, catalog.scores(rows, ranker, query))
        assert gathered.tolist() == rows[order].tolist()
        limited, _ = catalog.rank(rows, ranker, query, limit=7)
        assert limited.tolist() == rows[order][:7].tolist()
        # Unknown scores come last, and USD before any other currency.
        currencies = [catalog.offers[i].price.currency for i in gathered]
        assert currencies == sorted(currencies, key=lambda c: c != "USD")
        usd = [s for s, c in zip(gathered_scores.tolist(), currencies, strict=True) if c == "USD"]
        known = [s for s in usd if s == s]
        assert usd[: len(known)] == known and known == sorted(known)
