"""The everyday command line with every plugin installed (issue 27): warm ``gpuhub search --gpu H100`` (table and
JSON), ``--version``, ``--help``, ``search --help``, the issue-31 searches across all plugins, beside a one-shot
gpuhunt query over the same offers; optionally a second installation with fewer plugins (start-up independent of
the number of plugins). Every command runs once per round, rounds interleaved; medians of wall and CPU time.

    . .venv/bin/activate
    python bench/cli_bench.py --runs 11 [--gpuhub /venv23/bin/gpuhub] [--fewer /venv6/bin/gpuhub] [--json out.json]

What it does:
1. exports the offers the installed plugins answer with (``gpuhub.search()``, every offer, this interpreter's
   installation) as gpuhunt's offline CSV catalog (one file per provider; fractional GPUs, non-NVIDIA/AMD
   accelerators and non-USD prices left out, as ``generate.py`` does: gpuhunt cannot represent them), and checks that
   gpuhunt's ``Catalog.query(gpu_name="H100")`` matches exactly the offers gpuhub's ``search(gpu="H100")`` matches;
2. gives each installation its own fresh store (``GPUHUB_STORE``), warmed by one search and one ``--help`` (which
   keeps the help text for the next ``--help`` in this terminal: ``gpuhub.cli.helpcache``; the "built" variant
   removes it before each run, so typer builds the help as on a first run);
3. times each command from outside (process start to exit; CPU = user + system of the child).

gpuhunt runs with the gpuhunt venv's interpreter (``GPUHUNT_PYTHON``, default ``/tmp/bench-gpuhunt-venv/bin/python``;
make it with ``python3 -m venv /tmp/bench-gpuhunt-venv && /tmp/bench-gpuhunt-venv/bin/pip install gpuhunt==0.1.34``),
never gpuhub's. Bytecode is written as a user's install does (``PYTHONDONTWRITEBYTECODE`` is dropped).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from generate import GPUHUNT_FIELDS, GPUHUNT_FLAG, GPUHUNT_VENDOR
from timing import emit, load_average, timed_run

GPUHUNT_PYTHON = os.environ.get("GPUHUNT_PYTHON", "/tmp/bench-gpuhunt-venv/bin/python")

COMMANDS: dict[str, list[str]] = {
    "--version": ["--version"],
    "--help": ["--help"],
    "--help, built (no kept help)": ["--help"],
    "search --help": ["search", "--help"],
    "search --gpu H100": ["search", "--gpu", "H100"],
    "search --gpu H100 --format json": ["search", "--gpu", "H100", "--format", "json"],
    "search --gpu H100 --limit 20": ["search", "--gpu", "H100", "--limit", "20"],
    "search --gpu H100 --group-by gpu,provider": ["search", "--gpu", "H100", "--group-by", "gpu,provider"],
}
FEWER = ("--version", "--help", "search --gpu H100")
"""The commands timed for the installation with fewer plugins too."""

GPUHUNT_ONE_SHOT = """
import logging, sys, time
from pathlib import Path
logging.disable(logging.CRITICAL)
import gpuhunt
from gpuhunt._internal import catalog as hunt_catalog, storage
from gpuhunt._internal.catalog import ProviderCatalog
catalog = gpuhunt.Catalog(balance_resources=False, auto_reload=False)
paths = sorted(Path({data!r}).glob("*.csv"))
# gpuhunt queries only the offline providers it lists (and asks its online ones live): every file is offline here
hunt_catalog.OFFLINE_PROVIDERS[:] = [p.stem for p in paths]
hunt_catalog.ONLINE_PROVIDERS[:] = [p for p in hunt_catalog.ONLINE_PROVIDERS if p not in hunt_catalog.OFFLINE_PROVIDERS]
for path in paths:
    with path.open(encoding="utf-8", newline="") as fh:
        catalog.catalog[path.stem] = ProviderCatalog(version="bench", items=list(storage.load(fh, provider=path.stem)))
catalog.loaded_at = time.monotonic()
items = sorted(catalog.query(gpu_name="H100"), key=lambda i: i.price)
for i in items[:20]:
    print(i.provider, i.instance_name, i.location, i.gpu_count, i.gpu_name, i.price, i.spot, i.flags)
print("MATCHED", len(items), items[0].price if items else None, file=sys.stderr)
"""


def _exportable(offer: Any) -> bool:
    """What gpuhunt can represent: whole NVIDIA/AMD GPUs, whole vCPUs, known memory, USD."""
    inst, gpu = offer.instance, offer.instance.gpu
    return not (gpu is None or gpu.vendor not in GPUHUNT_VENDOR or gpu.memory_gib is None or inst.vcpus is None
                or not float(inst.vcpus).is_integer() or inst.memory_gib is None or inst.gpu_count < 1
                or not float(inst.gpu_count).is_integer() or offer.price.currency != "USD")


def plugin_distributions(listing: str) -> int:
    """How many plugin distributions an installation loaded, from its ``gpuhub plugins --format json``: the
    installed ones (``gpuhub-aws`` ...), not the core's built-in plugin (``builtin``, in ``gpuhub-core``), which
    loads in every installation (was: counted too, "25 plugins" beside the 24 installed)."""
    from gpuhub.bundled import CORE_DISTRIBUTION

    rows = json.loads(listing)
    return len({r["distribution"] for r in rows if r["status"] == "loaded" and r["distribution"] != CORE_DISTRIBUTION})


def export_for_gpuhunt(directory: Path) -> dict[str, Any]:
    """Every offer the installed plugins answer with, as gpuhunt's offline CSV (one file per provider); how many of
    the offers gpuhub's ``search(gpu="H100")`` matches were exported (gpuhunt must match exactly those)."""
    import gpuhub

    result = gpuhub.search(include_accelerators=True)
    rows: dict[str, list[list[Any]]] = {}
    for offer in result:
        if not _exportable(offer):
            continue
        inst, price = offer.instance, offer.price
        gpu = inst.gpu
        rows.setdefault(offer.provider, []).append([
            inst.instance_type, offer.region.zone or offer.region.code, str(price.amount), int(inst.vcpus),
            float(inst.memory_gib), int(inst.gpu_count), gpu.name, float(gpu.memory_gib),
            price.purchase in ("spot", "low_priority"), "", GPUHUNT_VENDOR[gpu.vendor],
            GPUHUNT_FLAG.get(price.purchase, price.purchase if price.purchase not in ("on_demand", "spot") else ""),
            "arm" if inst.cpu_arch in ("arm", "arm64") else "x86", "{}"])
    directory.mkdir(parents=True, exist_ok=True)
    for provider, provider_rows in rows.items():
        with (directory / f"{provider}.csv").open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(GPUHUNT_FIELDS)
            writer.writerows(provider_rows)
    h100 = gpuhub.search(gpu="H100")
    exported = sum(len(r) for r in rows.values())
    return {"offers": len(result), "exported": exported, "left_out": len(result) - exported, "providers": len(rows),
            "gpuhub_h100_matched": h100.matched, "gpuhub_h100_exported": sum(1 for o in h100 if _exportable(o))}


def _env(store: str) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("GPUHUB_") and k != "PYTHONDONTWRITEBYTECODE"} \
        | {"GPUHUB_STORE": store}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--gpuhub", help="the gpuhub command to time (default: the one on PATH)")
    parser.add_argument("--fewer", help="a gpuhub command of an installation with fewer plugins (e.g. 6)")
    args = parser.parse_args()
    gpuhub_cmd = args.gpuhub or shutil.which("gpuhub")
    if gpuhub_cmd is None:
        raise SystemExit("gpuhub is not on PATH (activate the venv)")
    work = Path(tempfile.mkdtemp(prefix="gpuhub-cli27-"))
    os.environ["GPUHUB_STORE"] = str(work / "store-export")  # the export's own store, not the user's
    try:
        exported = export_for_gpuhunt(work / "gpuhunt")
        installs = {"all": (gpuhub_cmd, _env(str(work / "store-all")))}
        if args.fewer:
            installs["fewer"] = (args.fewer, _env(str(work / "store-fewer")))
        plugin_counts = {}
        for name, (cmd, env) in installs.items():
            timed_run([cmd, "search", "--gpu", "H100"], env, timeout=900)  # fills the store and the plugin index
            timed_run([cmd, "--help"], env, timeout=300)
            listing = subprocess.run([cmd, "plugins", "--format", "json"], env=env, capture_output=True, text=True,
                                     timeout=300)
            plugin_counts[name] = plugin_distributions(listing.stdout)
        _, _, hunt = timed_run([GPUHUNT_PYTHON, "-c", GPUHUNT_ONE_SHOT.format(data=str(work / "gpuhunt"))])
        matched = int(hunt.stderr.split("MATCHED", 1)[1].split()[0])
        if matched != exported["gpuhub_h100_exported"]:
            raise SystemExit(f"gpuhunt matched {matched} H100 offers, gpuhub {exported['gpuhub_h100_exported']}")
        load_before = load_average()
        samples: dict[str, list[tuple[float, float]]] = {}
        for _ in range(args.runs):
            for label, argv in COMMANDS.items():
                for name, (cmd, env) in installs.items():
                    if name != "all" and label not in FEWER:
                        continue
                    if "built" in label:  # the help kept by the run before is removed: typer builds it again
                        shutil.rmtree(Path(env["GPUHUB_STORE"]) / "help", ignore_errors=True)
                    wall, cpu, _ = timed_run([cmd, *argv], env, timeout=300)
                    samples.setdefault(f"{name}: gpuhub {label}", []).append((wall, cpu))
            wall, cpu, _ = timed_run([GPUHUNT_PYTHON, "-c", GPUHUNT_ONE_SHOT.format(data=str(work / "gpuhunt"))])
            samples.setdefault("gpuhunt one-shot query(gpu_name='H100'), 20 cheapest", []).append((wall, cpu))
            wall, cpu, _ = timed_run([sys.executable, "-c", "pass"])
            samples.setdefault("python -c pass", []).append((wall, cpu))
        load_after = load_average()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out = {"runs": args.runs, "load_before": load_before, "load_after": load_after, "export": exported,
           "gpuhunt_h100_matched": matched, "plugins_loaded": plugin_counts,
           "commands": {name: {"wall_median_s": statistics.median(w for w, _ in runs),
                               "cpu_median_s": statistics.median(c for _, c in runs),
                               "wall_min_s": min(w for w, _ in runs), "wall_max_s": max(w for w, _ in runs)}
                        for name, runs in samples.items()}}
    emit(out, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
