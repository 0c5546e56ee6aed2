"""Markdown tables for bench/README.md from the JSON that compare.py, cold_start.py and live_fanout.py write.

    python bench/report.py --compare /tmp/cmp-100k.json /tmp/cmp-1m.json --cold /tmp/cold.json --live /tmp/live.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

NAMES = {"all": "all", "h100_on_demand_max30": "H100 + on-demand + ≤ $30/h", "total_vram_320": "total VRAM ≥ 320 GiB"}


def _size(n: int) -> str:
    return f"{n // 1_000_000}M" if n >= 1_000_000 else f"{n // 1000}k"


def _ms(stats: dict[str, Any] | None) -> str:
    if not stats:
        return "not run"
    wall, cpu = stats["median_ms"], stats["cpu_median_ms"]
    fmt = (lambda x: f"{x:,.0f}") if wall >= 100 else (lambda x: f"{x:.2f}" if x < 10 else f"{x:.1f}")
    return f"{fmt(cpu)} ({fmt(wall)})"


def compare_tables(results: list[dict[str, Any]]) -> str:
    out = ["| offers | query | matched | gpuhunt | gpuhub Catalog | Catalog top 20 | `search` limit 20 | "
           "`search` no limit | × Catalog | × `search` 20 |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for res in results:
        hub, hunt = res["gpuhub"], res["gpuhunt"]
        for name, q in hub["queries"].items():
            g = hunt["queries"][name]
            gstats = {"median_ms": g["median_ms"], "cpu_median_ms": g["cpu_median_ms"]}
            ratio_cat = g["cpu_median_ms"] / q["catalog"]["cpu_median_ms"]
            ratio_s20 = g["cpu_median_ms"] / q["search_top20"]["cpu_median_ms"]
            out.append(f"| {_size(res['offers'])} | {NAMES.get(name, name)} | {q['matched']:,} | {_ms(gstats)} | "
                       f"{_ms(q['catalog'])} | {_ms(q['catalog_top20'])} | {_ms(q['search_top20'])} | "
                       f"{_ms(q['search'])} | {ratio_cat:.1f} | {ratio_s20:.1f} |")
    out += ["", "| offers | gpuhub load: engine parse + Catalog build, CPU (wall) | gpuhunt CSV load, CPU (wall) | "
                "gpuhub disk cache: parse+save / load | gpuhub resident / peak RSS | gpuhunt resident / peak RSS |",
            "| --- | --- | --- | --- | --- | --- |"]
    for res in results:
        hub, hunt = res["gpuhub"], res["gpuhunt"]
        disk = hub.get("disk_cache")
        disk_text = (f"{disk['parse_and_save_s']:.2f} s / {disk['load_from_disk_s']:.2f} s "
                     f"({disk['cache_mib']:.1f} MiB)" if disk else "not run")
        out.append(f"| {_size(res['offers'])} | {hub['collect_cpu_s']:.2f} + {hub['catalog_build_cpu_s']:.2f} s "
                   f"({hub['collect_s']:.2f} + {hub['catalog_build_s']:.2f} s) | {hunt['load_cpu_s']:.2f} s "
                   f"({hunt['load_s']:.2f} s) | {disk_text} | {hub['resident_mib']:,.0f} / {hub['peak_rss_mib']:,.0f} "
                   f"MiB | {hunt['resident_mib']:,.0f} / {hunt['peak_rss_mib']:,.0f} MiB |")
    loads = ", ".join(f"{_size(r['offers'])}: {r['loadavg'][0]:.1f}" for r in results)
    out += ["", f"Load average (1 min) when each size finished: {loads}."]
    return "\n".join(out)


def cold_table(cold: dict[str, Any]) -> str:
    out = ["| command | median CPU | median wall (min–max) |", "| --- | ---: | ---: |"]
    for key in ("python_pass", "import_gpuhub", "import_cli", "search_cold_cache", "search_warm_cache",
                "search_no_cache"):
        r = cold[key]
        out.append(f"| {r['label']} | {r['cpu_median_s']:.2f} s | {r['median_s']:.2f} s "
                   f"({r['min_s']:.2f}–{r['max_s']:.2f}) |")
    phases = cold.get("phases_warm", {}).get("phases", [])
    if phases:
        out += ["", "One warm run by phase (wall): " + ", ".join(f"{n} {s * 1e3:.0f} ms" for n, s in phases) + "."]
    return "\n".join(out)


def live_table(live: dict[str, Any]) -> str:
    out = ["| provider | alone (median) | requests | floor if one at a time |", "| --- | ---: | ---: | ---: |"]
    for name in live["providers"]:
        out.append(f"| {name} | {live['single'][name]['median_s']:.2f} s | {live['requests'][name]} | "
                   f"{live['requests'][name] * live['delay_s']:.1f} s |")
    out.append(f"| **all together** | **{live['all']['median_s']:.2f} s** | | ratio to the slowest "
               f"({live['slowest']}) **{live['ratio']:.2f}** |")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--compare", nargs="*", type=Path, default=[])
    parser.add_argument("--cold", type=Path)
    parser.add_argument("--live", type=Path)
    args = parser.parse_args()
    results = [r for path in args.compare for r in json.loads(path.read_text(encoding="utf-8"))]
    if results:
        print(compare_tables(results), end="\n\n")
    if args.cold:
        print(cold_table(json.loads(args.cold.read_text(encoding="utf-8"))), end="\n\n")
    if args.live:
        print(live_table(json.loads(args.live.read_text(encoding="utf-8"))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
