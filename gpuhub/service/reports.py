"""The JSON-ready rows behind ``gpuhub gpus``, ``gpuhub providers`` and ``gpuhub estimate`` (``--compare`` too): the
CLI prints them, the web API and the MCP server serve them (one builder, so all give the same answer)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gpuhub.answer.compare import Option, compare
from gpuhub.answer.estimate import PriceSpread
from gpuhub.answer.query import build_query
from gpuhub.errors import QueryError
from gpuhub.facts.gpus import GpuTable
from gpuhub.model import Offer
from gpuhub.service.engine import Engine, RequestedMode
from gpuhub.service.searching import run_query

__all__ = ["compare_rows", "estimate_report", "gpu_rows", "provider_rows"]


def gpu_rows(table: GpuTable) -> list[dict[str, Any]]:
    """One dict per GPU table row: name, vendor, form factor, memory GiB, dense BF16/FP64 TFLOPS, GB/s, CUDA compute
    capability, tensor core generation, FP8, Transformer Engine, MIG, CUDA releases and minimum driver, aliases."""
    from gpuhub.facts.compat import compat

    rows: list[dict[str, Any]] = []
    for s in table.specs:
        facts = compat(s.name)
        cc = facts.compute_capability
        rows.append({"name": s.name, "vendor": s.vendor, "form_factor": s.form_factor, "memory_gib": s.memory_gib,
                     "bf16_tflops": s.bf16_tflops, "fp64_tflops": s.fp64_tflops,
                     "memory_bandwidth_gb_s": s.memory_bandwidth_gb_s,
                     "compute_capability": f"{cc[0]}.{cc[1]}" if cc else None,
                     "tensor_core_generation": facts.tensor_core_generation,
                     # where the CUDA facts are silent (AMD), FP8 as the table's FP8 throughput says
                     "fp8": facts.fp8 if facts.fp8 is not None else (True if s.fp8_tflops else None),
                     "transformer_engine": facts.transformer_engine, "mig": s.mig_support,
                     "cuda": facts.cuda_range if cc else None, "min_driver": facts.min_driver,
                     "aliases": list(s.aliases)})
    return rows


def provider_rows(engine: Engine) -> list[dict[str, Any]]:
    """One dict per installed provider: kind, plugin, credentials state, and where a search's data would come from
    (live, a recording, a static price table) and how to configure it."""
    registry = engine.registry
    rows = []
    for name, provider in sorted(registry.providers.items()):
        plan = engine.plan(provider)
        how = plan if isinstance(plan, str) else (
            "static price table" if plan.static else plan.mode + (f" {plan.recording}" if plan.recording else ""))
        rows.append({"provider": name, "kind": provider.kind, "plugin": registry.provider_plugin[name],
                     "credentials": "configured" if provider.credentials_configured(engine.environ) else
                     ("none needed" if not provider.credentials else "not set"),
                     "data": how, "configure": provider.credentials_help()})
    return rows


def estimate_report(engine: Engine, instance_type: str, hours: float, *, provider: str | None = None,
                    region: Sequence[str] | None = None, purchase: str = "on_demand",
                    interruption_overhead: float = 0.10, checkpoint_every: float = 1.0,
                    fixtures_dir: Path | None = None, fetch: RequestedMode = "auto",
                    egress_gb: float | None = None, disk_gib: float | None = None
                    ) -> tuple[dict[str, Any], PriceSpread, list[Offer]]:
    """Job cost of ``instance_type`` for ``hours`` hours in each region (cheapest job first: by its cost, the known
    part of it where an egress or disk price is missing, then by the price per hour) and the price spread.

    Returns ``({"jobs": [...], "spread": USD/h, "spread_fraction": x}, spread, offers)``, ``offers`` the job rows'
    offers in row order (the spread's are cheapest per hour first); each job row has provider,
    instance_type, region, zone, purchase, price_per_hour, billed_hours, cost (to the cent), currency,
    break_even_hours (reserved terms against on-demand, else None), egress_cost and cost_complete (with
    ``egress_gb``: moving that many GB out, included in cost; where no egress price is known egress_cost is None
    and cost_complete False: that cost leaves the data transfer out, and is no basis to compare regions), disk_cost
    (with ``disk_gib``: that much attached storage for the billed hours, likewise; cost_complete is False when
    either asked-for part has no price) and notes.

    Raises:
        QueryError: a bad argument (named), or no offer of that instance type.
    """
    from gpuhub.answer.estimate import estimate as estimate_job
    from gpuhub.answer.estimate import price_spread

    registry = engine.registry
    query = build_query(gpus=registry.gpus, providers=sorted(registry.providers), rankers=list(registry.rankers),
                        provider=provider, region=region, instance_type=instance_type, purchase=purchase,
                        checkpoint_every=checkpoint_every)
    if fetch not in ("auto", "live", "replay"):
        raise QueryError("fetch", f"{fetch!r} is not allowed; allowed values: auto, live, replay")
    offers = list(run_query(query, engine, fixtures_dir=fixtures_dir, fetch=fetch))
    if not offers:
        where = f" in {', '.join(region)}" if region else ""
        raise QueryError("instance_type", f"no {purchase} offer of {instance_type!r}{where}"
                         + (f" from {provider}" if provider else ""))
    if purchase != "on_demand":  # the on-demand offers give a reserved term's break-even
        both = build_query(gpus=registry.gpus, providers=sorted(registry.providers),
                           rankers=list(registry.rankers), provider=provider, region=region,
                           instance_type=instance_type, purchase=[purchase, "on_demand"])
        offers = list(run_query(both, engine, fixtures_dir=fixtures_dir, fetch=fetch))
    spread = price_spread(offers, instance_type, purchase, provider)
    on_demand = {(o.provider, o.region.code): o for o in offers if o.price.purchase == "on_demand"}
    jobs = [estimate_job(o, hours, interruption_overhead=interruption_overhead,
                         on_demand=on_demand.get((o.provider, o.region.code)),
                         checkpoint_every_h=checkpoint_every, egress_gb=egress_gb, disk_gib=disk_gib)
            for o in spread.offers]
    # By the job cost the table shows (where an egress or disk price is missing, its known part), then per hour.
    jobs.sort(key=lambda j: (j.cost_rounded(), j.offer.price.amount))
    rows = [{"provider": j.offer.provider, "instance_type": j.offer.instance_type, "region": j.offer.region.code,
             "zone": j.offer.region.zone, "purchase": j.offer.price.purchase,
             "price_per_hour": float(j.offer.price.amount), "billed_hours": float(j.billed_hours),
             "cost": float(j.cost_rounded()), "currency": j.currency,
             "break_even_hours": float(j.break_even_hours) if j.break_even_hours is not None else None,
             **({"egress_cost": float(j.egress_cost) if j.egress_cost is not None else None}
                if egress_gb is not None else {}),
             **({"disk_cost": float(j.disk_cost) if j.disk_cost is not None else None}
                if disk_gib is not None else {}),
             **({"cost_complete": (egress_gb is None or j.egress_cost is not None)
                 and (disk_gib is None or j.disk_cost is not None)}
                if egress_gb is not None or disk_gib is not None else {}),
             "notes": j.notes} for j in jobs]
    return ({"jobs": rows, "spread": float(spread.spread), "spread_fraction": round(spread.spread_fraction, 6)},
            spread, [j.offer for j in jobs])


def compare_rows(offers: list[Offer], hours: float, checkpoint_every_h: float,
                 fallback_overhead: float) -> list[dict[str, Any]]:
    """The compare table as JSON-ready rows (cheapest first)."""
    options = compare(offers, hours, checkpoint_every_h=checkpoint_every_h, fallback_overhead=fallback_overhead)
    return [_row(o) for o in options]


def _row(o: Option) -> dict[str, Any]:
    offer = o.offer
    record = offer.obtain.record() if offer.obtain else {}
    return {"purchase": o.purchase, "provider": offer.provider, "instance_type": offer.instance_type,
            "region": offer.region.code, "zone": offer.region.zone, "price_per_hour": float(offer.price.amount),
            "cost": float(o.cost_rounded()), "currency": o.currency,
            "break_even_hours": round(float(o.break_even_hours), 2) if o.break_even_hours is not None else None,
            "interruption": record.get("interruption"), "reservation_start": record.get("reservation_start"),
            "reservation_hours": record.get("reservation_hours"), "notes": o.notes}
