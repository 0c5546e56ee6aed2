"""Synthetic GPU catalogs for the benchmarks: the same offers written for gpuhub and for gpuhunt.

Facts come from the project itself, never invented from nothing:

- instance shapes (instance type, GPU, GPU count, vCPUs, RAM) and a reference price per shape are harvested from
  the installed provider plugins by replaying their bundled recordings (aws, azure, gcp, lambda);
- GPU names and per-GPU memory come from ``gpuhub/data/gpus.csv`` through those offers;
- regions come from ``gpuhub/data/regions.csv`` (so every synthetic offer carries a real country and continent).

The harvest is kept in ``bench/shapes.json`` (committed); ``--harvest`` redoes it from the installed plugins.

Prices: the shape's real median on-demand price per instance-hour (or per-GPU median × GPU count when the shape has
no on-demand price in the recording) × a per-(provider, region) factor (lognormal, sigma 0.08) × a purchase-model
discount drawn per offer (spot 0.25-0.70, low priority 0.20-0.50, reserved 1y 0.60-0.72, reserved 3y 0.38-0.50,
savings plan 1y 0.65-0.78, savings plan 3y 0.45-0.58), rounded to 4 decimals (USD).

Scale: each provider sells each shape in a seeded ~60% of its regions under its purchase models (aws 6, azure 7,
gcp 4, lambda 2). When the wanted size exceeds those combinations, a zone index multiplies them (aws ``us-east-1a``
style, others ``<region>-<k>``): a 1M catalog has ~20 zones or price snapshots per region, as a catalog with price
history or many internal clusters would. ``N`` offers are drawn from the combinations without replacement
(seeded), so the same seed and size always give the same offers.

Outputs under ``OUT/<size>/``::

    gpuhub/<provider>/manifest.json, page-0001.json ...   a recording of the synthetic "bench" API (see below),
                                                          replayed by bench/synthcloud.py through gpuhub's engine
    gpuhunt/<provider>.csv                                gpuhunt's offline catalog format (v2 columns), one file
                                                          per provider, loadable with GPUHUNT_CATALOG_DIR
    meta.json                                            size, seed, counts per provider and purchase model

The gpuhunt rows carry the purchase model the only way gpuhunt can: ``spot`` true for spot and low priority, and a
flag (``low-priority``, ``reserved-1y``, ``reserved-3y``, ``savings-plan-1y``, ``savings-plan-3y``) for everything
that is not plain on-demand or spot, so ``query(spot=False, allowed_flags=set())`` selects exactly gpuhub's
``purchase=on_demand``. Fractional GPUs, non-integer GPU counts, non-NVIDIA/AMD accelerators and shapes without
vCPU/RAM figures are left out (gpuhunt cannot represent them), so both tools hold exactly the same offers.

Usage::

    python bench/generate.py --sizes 10k,100k,1m --out /tmp/gpuhub-bench-data
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

PROVIDERS = ("aws", "azure", "gcp", "lambda")
GPUHUNT_NAME = {"aws": "aws", "azure": "azure", "gcp": "gcp", "lambda": "lambdalabs"}
PURCHASES = {
    "aws": ("on_demand", "spot", "reserved_1y", "reserved_3y", "savings_plan_1y", "savings_plan_3y"),
    "azure": ("on_demand", "spot", "low_priority", "reserved_1y", "reserved_3y", "savings_plan_1y",
              "savings_plan_3y"),
    "gcp": ("on_demand", "spot", "reserved_1y", "reserved_3y"),
    "lambda": ("on_demand", "reserved_1y"),
}
DISCOUNT = {  # (low, high) multiplier of the on-demand price
    "on_demand": (1.0, 1.0), "spot": (0.25, 0.70), "low_priority": (0.20, 0.50), "reserved_1y": (0.60, 0.72),
    "reserved_3y": (0.38, 0.50), "savings_plan_1y": (0.65, 0.78), "savings_plan_3y": (0.45, 0.58),
}
GPUHUNT_FLAG = {"low_priority": "low-priority", "reserved_1y": "reserved-1y", "reserved_3y": "reserved-3y",
                "savings_plan_1y": "savings-plan-1y", "savings_plan_3y": "savings-plan-3y"}
GPUHUNT_VENDOR = {"NVIDIA": "nvidia", "AMD": "amd"}
REGION_SHARE = 0.6
PAGE_SIZE = 20_000
BASE_URL = "https://api.bench.invalid"
SEED = 20261130
SNAPSHOT = Path(__file__).resolve().parent / "shapes.json"
"""Shapes and region codes harvested from the plugins (``--harvest`` refreshes it), so sizes generated on different
days from a changing plugin tree stay the same offers."""


@dataclass(frozen=True)
class Shape:
    """One instance type as a real provider plugin sells it (per-GPU memory in GiB, RAM in GiB)."""

    provider: str
    instance_type: str
    gpu: str
    vendor: str
    gpu_count: int
    gpu_memory_gib: float
    vcpus: int
    memory_gib: float
    cpu_arch: str
    ref_price: float  # USD per instance-hour, on-demand


def harvest() -> tuple[list[Shape], dict[str, list[str]]]:
    """Shapes and region codes from the installed plugins' bundled recordings (replayed, no network)."""
    from gpuhub.facts.regions import known_regions
    from gpuhub.fetch.plugins import Registry
    from gpuhub.kit.testing import make_engine

    registry = Registry()
    missing = [p for p in PROVIDERS if p not in registry.providers]
    if missing:
        raise SystemExit(f"provider plugins not installed: {', '.join(missing)} (pip install -e plugins/gpuhub-X)")
    engine = make_engine(registry)
    collected = engine.collect(list(PROVIDERS), mode="replay")
    per_gpu: dict[str, list[float]] = defaultdict(list)
    od_prices: dict[tuple[str, str], list[float]] = defaultdict(list)
    any_prices: dict[tuple[str, str], list[float]] = defaultdict(list)
    instances: dict[tuple[str, str], Any] = {}
    for offers, status in collected:
        if status.state != "ok":
            raise SystemExit(f"{status.provider}: {status.state}: {status.reason}")
        for o in offers:
            inst = o.instance
            if (o.price.currency != "USD" or inst.gpu is None or not inst.gpu.known or inst.fractional
                    or inst.gpu.vendor not in GPUHUNT_VENDOR or inst.gpu.memory_gib is None
                    or inst.vcpus is None or inst.memory_gib is None or inst.gpu_count < 1
                    or not float(inst.gpu_count).is_integer()):
                continue
            key = (inst.provider, inst.instance_type)
            instances.setdefault(key, inst)
            amount = float(o.price.amount)
            any_prices[key].append(amount / inst.gpu_count)
            if o.price.purchase == "on_demand":
                od_prices[key].append(amount)
                per_gpu[inst.gpu.name].append(amount / inst.gpu_count)
    shapes = []
    for key in sorted(instances):
        inst = instances[key]
        count = int(inst.gpu_count)
        if od_prices.get(key):
            ref = statistics.median(od_prices[key])
        elif per_gpu.get(inst.gpu.name):
            ref = statistics.median(per_gpu[inst.gpu.name]) * count
        else:  # only discounted prices seen: undo a typical spot discount
            ref = statistics.median(any_prices[key]) * count / 0.5
        shapes.append(Shape(inst.provider, inst.instance_type, inst.gpu.name, inst.gpu.vendor, count,
                            float(inst.gpu.memory_gib), int(inst.vcpus), float(inst.memory_gib),
                            "arm" if inst.cpu_arch == "arm64" else "x86", round(ref, 4)))
    regions = {p: sorted(f.region for f in known_regions(p)) for p in PROVIDERS}
    engine.shutdown()
    return shapes, regions


def _zone(provider: str, region: str, k: int, zones: int) -> str | None:
    if zones == 1:
        return None
    if provider == "aws" and k < 26:
        return f"{region}{chr(97 + k)}"
    return f"{region}-{k + 1}"


def build(n: int, shapes: list[Shape], regions: dict[str, list[str]], seed: int = SEED) -> list[dict[str, Any]]:
    """``n`` offer records: provider, shape, region, zone, purchase, price (USD per instance-hour, 4 decimals)."""
    rng = np.random.default_rng(seed)
    region_factor = {(p, r): float(np.exp(rng.normal(0, 0.08))) for p in PROVIDERS for r in regions[p]}
    combos: list[tuple[int, str, str]] = []  # (shape index, region, purchase)
    for i, s in enumerate(shapes):
        for r in regions[s.provider]:
            if rng.random() < REGION_SHARE:
                combos.extend((i, r, purchase) for purchase in PURCHASES[s.provider])
    base = len(combos)
    zones = max(1, math.ceil(n / base))
    picks = np.sort(rng.choice(base * zones, size=n, replace=False))
    lows = np.array([DISCOUNT[c[2]][0] for c in combos])
    highs = np.array([DISCOUNT[c[2]][1] for c in combos])
    out = []
    draws = rng.random(n)
    for j, idx in enumerate(picks.tolist()):
        k, c = divmod(idx, base)
        i, region, purchase = combos[c]
        s = shapes[i]
        mult = lows[c] + (highs[c] - lows[c]) * draws[j]
        amount = max(0.0001, round(s.ref_price * region_factor[(s.provider, region)] * mult, 4))
        out.append({"shape": i, "region": region, "zone": _zone(s.provider, region, k, zones),
                    "purchase": purchase, "price": f"{amount:.4f}"})
    return out


def write_gpuhub(directory: Path, provider: str, shapes: list[Shape], records: list[dict[str, Any]]) -> None:
    """A recording of the synthetic bench API: ``GET /v1/catalog?page=N`` ->
    ``{"products": {id: shape}, "prices": [[id, region, zone, purchase, amount, currency]], "next_page"}``."""
    directory.mkdir(parents=True, exist_ok=True)
    pages = [records[i:i + PAGE_SIZE] for i in range(0, len(records), PAGE_SIZE)] or [[]]
    exchanges = []
    for number, page in enumerate(pages, start=1):
        products: dict[str, dict[str, Any]] = {}
        prices = []
        for r in page:
            s = shapes[r["shape"]]
            pid = f"p{r['shape']}"
            if pid not in products:
                products[pid] = {"instance_type": s.instance_type, "gpu": s.gpu, "gpu_count": s.gpu_count,
                                 "gpu_memory_gib": s.gpu_memory_gib, "vcpus": s.vcpus, "memory_gib": s.memory_gib,
                                 "cpu_arch": "arm64" if s.cpu_arch == "arm" else "x86_64"}
            prices.append([pid, r["region"], r["zone"], r["purchase"], r["price"], "USD"])
        body = {"products": products, "prices": prices, "next_page": number + 1 if number < len(pages) else None}
        name = f"page-{number:04d}.json"
        (directory / name).write_text(json.dumps(body, separators=(",", ":")), encoding="utf-8")
        exchanges.append({"request": {"method": "GET", "url": f"{BASE_URL}/v1/catalog?page={number}", "body": None},
                          "response": {"status": 200, "headers": {"content-type": "application/json"},
                                       "body_file": name}})
    manifest = {"format": 1, "provider": provider, "recorded_at": "2026-11-30", "kind": "reconstructed",
                "source": "bench/generate.py: synthetic offers from the plugins' shapes and gpuhub's region table",
                "notes": f"{len(records)} offers", "exchanges": exchanges}
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")


GPUHUNT_FIELDS = ["instance_name", "location", "price", "cpu", "memory", "gpu_count", "gpu_name", "gpu_memory",
                  "spot", "disk_size", "gpu_vendor", "flags", "cpu_arch", "provider_data"]
"""gpuhunt's offline catalog columns (v2, ``gpuhunt._internal.storage.CATALOG_V2_FIELDS`` in gpuhunt 0.1.34)."""


def write_gpuhunt(path: Path, shapes: list[Shape], records: list[dict[str, Any]]) -> None:
    """One provider's offers as gpuhunt's offline CSV (the provider is the file name)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(GPUHUNT_FIELDS)
        for r in records:
            s = shapes[r["shape"]]
            writer.writerow([s.instance_type, r["zone"] or r["region"], r["price"], s.vcpus, s.memory_gib,
                             s.gpu_count, s.gpu, s.gpu_memory_gib, r["purchase"] in ("spot", "low_priority"), "",
                             GPUHUNT_VENDOR[s.vendor], GPUHUNT_FLAG.get(r["purchase"], ""), s.cpu_arch, "{}"])


def parse_size(text: str) -> int:
    text = text.strip().lower()
    mult = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    return int(float(text.rstrip("km")) * mult)


def size_label(n: int) -> str:
    return f"{n // 1_000_000}m" if n % 1_000_000 == 0 else f"{n // 1000}k" if n % 1000 == 0 else str(n)


def generate(n: int, out: Path, shapes: list[Shape], regions: dict[str, list[str]]) -> dict[str, Any]:
    started = time.perf_counter()
    records = build(n, shapes, regions)
    by_provider: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_provider[shapes[r["shape"]].provider].append(r)
    root = out / size_label(n)
    for p in PROVIDERS:
        write_gpuhub(root / "gpuhub" / p, p, shapes, by_provider[p])
        write_gpuhunt(root / "gpuhunt" / f"{GPUHUNT_NAME[p]}.csv", shapes, by_provider[p])
    purchases: dict[str, int] = defaultdict(int)
    for r in records:
        purchases[r["purchase"]] += 1
    meta = {"offers": n, "seed": SEED, "providers": {p: len(by_provider[p]) for p in PROVIDERS},
            "purchases": dict(sorted(purchases.items())), "shapes": len(shapes),
            "gpus": sorted({s.gpu for s in shapes}), "seconds": round(time.perf_counter() - started, 2)}
    (root / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    return meta


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10k,100k,1m", help="comma-separated sizes, e.g. 10k,100k,1m")
    parser.add_argument("--out", type=Path, default=Path("/tmp/gpuhub-bench-data"))
    parser.add_argument("--harvest", action="store_true",
                        help=f"harvest shapes from the installed plugins again and rewrite {SNAPSHOT.name}")
    args = parser.parse_args(argv)
    if args.harvest or not SNAPSHOT.is_file():
        shapes, regions = harvest()
        SNAPSHOT.write_text(json.dumps({"shapes": [asdict(s) for s in shapes], "regions": regions}, indent=1) + "\n",
                            encoding="utf-8")
    else:  # the committed snapshot: the same offers on every machine, whatever the plugins look like today
        data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
        shapes, regions = [Shape(**s) for s in data["shapes"]], data["regions"]
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"{len(shapes)} shapes from {', '.join(PROVIDERS)}; regions: "
          + ", ".join(f"{p} {len(regions[p])}" for p in PROVIDERS), file=sys.stderr)
    for size in args.sizes.split(","):
        meta = generate(parse_size(size), args.out, shapes, regions)
        print(json.dumps(meta), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
