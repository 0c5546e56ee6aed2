"""Micro-benchmarks of the per-offer model costs that dominate loading (parse and disk-cache load).

    python bench/micro_model.py --core /tmp/gpuhub-core-a73d30c

- ``Price(...)``: as is, and with ``gpuhub.model._check_purchase`` checking a set instead of rebuilding
  ``known_purchase_models()`` (a list comprehension over the ``PurchaseModel`` enum, plus a sort) on every call;
- ``Offer(...)`` from already built parts, and ``Offer.model_construct`` (the disk cache's path);
- one ``Offer`` + ``Price`` pair's memory (tracemalloc), against a row of numpy columns.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from decimal import Decimal
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def per_call_us(fn: Any, n: int) -> float:
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--core")
    parser.add_argument("-n", type=int, default=20_000)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from core import use_core

    use_core(args.core)
    import gpuhub.model as model
    from gpuhub.facts.regions import make_region
    from gpuhub.model import Instance, Offer, Price, Region, Source

    amount = Decimal("12.3456")
    inst = Instance(provider="aws", instance_type="p5.48xlarge", gpu_count=8, vcpus=192, memory_gib=2048)
    region: Region = make_region("aws", "us-east-1", "us-east-1a")
    source = Source(mode="replay", recording="aws")
    price = Price(amount=amount, currency="USD", purchase="spot")

    now_price = per_call_us(lambda: Price(amount=amount, currency="USD", purchase="spot"), args.n)
    original = model._check_purchase
    known = frozenset(model.known_purchase_models())

    def check_set(value: object) -> str:
        text = value.value if isinstance(value, model.PurchaseModel) else str(value)
        if text not in known:
            return original(value)
        return text

    model._check_purchase = check_set
    try:
        set_price = per_call_us(lambda: Price(amount=amount, currency="USD", purchase="spot"), args.n)
    finally:
        model._check_purchase = original
    offer = per_call_us(lambda: Offer(instance=inst, region=region, price=price, source=source), args.n)
    construct = per_call_us(lambda: Offer.model_construct(instance=inst, region=region, price=price,
                                                          available=None, source=source), args.n)
    known_us = per_call_us(model.known_purchase_models, args.n)

    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [Offer(instance=inst, region=region, price=Price(amount=Decimal(f"{i}.1234"), currency="USD",
                                                             purchase="spot"), source=source)
            for i in range(args.n)]
    per_offer = (tracemalloc.get_traced_memory()[0] - before) / len(kept)
    tracemalloc.stop()
    print(f"Price(...)                          {now_price:6.2f} µs per call (known_purchase_models() alone "
          f"{known_us:.2f} µs)")
    print(f"Price(...) with a set check         {set_price:6.2f} µs per call ({now_price / set_price:.1f}x faster)")
    print(f"Offer(...) from built parts         {offer:6.2f} µs per call")
    print(f"Offer.model_construct(...)          {construct:6.2f} µs per call")
    print(f"one Offer + its own Price + Decimal {per_offer:6.0f} bytes held (shared Instance/Region/Source not "
          "counted); the Catalog's numpy columns add ~200 bytes per offer")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
