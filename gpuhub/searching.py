"""``gpuhub.search()``: the public entry point, and :class:`SearchResult`."""

from __future__ import annotations

import difflib
import json
import math
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpuhub.catalog import Catalog
from gpuhub.engine import Engine, RequestedMode
from gpuhub.errors import QueryError
from gpuhub.explain import offer_details, removed_notes
from gpuhub.model import Offer
from gpuhub.plugins import get_registry
from gpuhub.provider import ProviderStatus
from gpuhub.query import Query, build_query

__all__ = ["SearchResult", "default_engine", "search"]


@dataclass
class SearchResult:
    """The offers a search found (sorted, limited), the status of every provider, and what each filter removed.

    Iterating yields :class:`~gpuhub.model.Offer` objects. ``considered`` is how many offers the providers gave;
    ``matched`` how many passed the filters (before ``limit``); ``removed_by`` maps each active filter (named after
    its search argument) to how many offers it removed, in the order the filters ran.
    """

    offers: list[Offer]
    statuses: list[ProviderStatus]
    query: Query
    considered: int
    matched: int
    removed_by: dict[str, int] = field(default_factory=dict)
    scores: list[float | None] = field(default_factory=list)
    """The ranker's score of each offer (lower is better; None: could not be scored)."""
    removed_notes: list[str] = field(default_factory=list)
    """For each filter: the best offer it alone removed, and by how much it missed (``explain()`` shows them)."""
    _explain: Callable[[int], dict[str, Any]] | None = field(default=None, repr=False)
    _details: dict[int, dict[str, Any]] = field(default_factory=dict, repr=False)

    def details(self, index: int) -> dict[str, Any]:
        """Score, explanation, price-performance figures, RTT, carbon and model fit of offer ``index``
        (computed on first use).

        Raises:
            IndexError: no offer ``index`` in this result.
        """
        if not -len(self.offers) <= index < len(self.offers):
            raise IndexError(index)
        index %= len(self.offers)
        if index not in self._details:
            self._details[index] = self._explain(index) if self._explain else {}
        return self._details[index]

    def __iter__(self) -> Iterator[Offer]:
        return iter(self.offers)

    def __len__(self) -> int:
        return len(self.offers)

    def __getitem__(self, index: int) -> Offer:
        return self.offers[index]

    def status(self, provider: str) -> ProviderStatus:
        """The status of one provider. Raises KeyError when it was not part of the search."""
        for status in self.statuses:
            if status.provider == provider:
                return status
        raise KeyError(provider)

    def explain(self) -> list[str]:
        """Human lines saying why the result is empty or short: which filter removed how many offers."""
        if not self.statuses:
            return ["no provider is installed or allowed: see 'gpuhub plugins' (GPUHUB_PLUGINS, "
                    "GPUHUB_DISABLE_PLUGINS)"]
        lines = [f"{self.considered} offers from {sum(s.state in ('ok', 'stale') for s in self.statuses)} providers"]
        for name, count in self.removed_by.items():
            if count:
                lines.append(f"--{name.replace('_', '-')} removed {count}")
        if self.query.limit is not None and self.matched > len(self.offers):
            lines.append(f"--limit kept {len(self.offers)} of {self.matched}")
        lines.extend(self.removed_notes)
        for status in self.statuses:
            if status.state in ("failed", "skipped"):
                lines.append(f"{status.provider} {status.state}: {status.reason}")
        return lines

    def to_dicts(self) -> list[dict[str, Any]]:
        """Each offer as the flat record documented in the README, plus ``score``, ``explanation`` and the
        price-performance figures (JSON-ready)."""
        return [{**offer.to_record(), **self.details(i)} for i, offer in enumerate(self.offers)]

    def to_dict(self) -> dict[str, Any]:
        """Offers, provider statuses and the filter report, JSON-ready."""
        return {"offers": self.to_dicts(), "providers": [s.to_dict() for s in self.statuses],
                "considered": self.considered, "matched": self.matched, "removed_by": dict(self.removed_by)}

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)


def _check_regions(query: Query, catalog: Catalog) -> None:
    """An unknown region or zone code is an error (with close matches), not a silent empty result."""
    from gpuhub.regions import known_regions

    known = set(catalog.region.lookup) | set(catalog.zone.lookup) | {f.region.lower() for f in known_regions()}
    for region in query.regions:
        if region.lower() not in known:
            close = difflib.get_close_matches(region.lower(), sorted(known), n=5, cutoff=0.6)
            hint = f"; close matches: {', '.join(close)}" if close else ""
            raise QueryError("region", f"unknown region or zone {region!r}{hint}")


_engine: Engine | None = None
_engine_lock = threading.Lock()


def default_engine() -> Engine:
    """The process-wide engine (its cache is shared by every ``search()`` call that does not pass one)."""
    global _engine
    with _engine_lock:
        if _engine is None:
            _engine = Engine(get_registry())
        return _engine


def reset_default_engine(engine: Engine | None = None) -> None:
    """Replace or drop the process-wide engine (tests, embedding)."""
    global _engine
    with _engine_lock:
        if _engine is not None and _engine is not engine:
            _engine.shutdown()
        _engine = engine


def search(gpu: str | Sequence[str] | None = None, *, min_gpus: float | None = None, max_gpus: float | None = None,
           min_vram: float | None = None, min_total_vram: float | None = None, min_vcpus: float | None = None,
           min_memory: float | None = None, max_price: float | str | None = None, currency: str | None = None,
           purchase: str | Sequence[str] | None = None, provider: str | Sequence[str] | None = None,
           region: str | Sequence[str] | None = None, country: str | Sequence[str] | None = None,
           continent: str | Sequence[str] | None = None, exclude_fractional: bool = False,
           available_only: bool = False, workload: str | None = None, model: str | float | None = None,
           precision: str | None = None, mode: str | None = None, near: str | tuple[float, float] | None = None,
           max_rtt: float | None = None, max_carbon: float | None = None, sort: str | None = None,
           limit: int | None = None, instance_type: str | Sequence[str] | None = None,
           include_accelerators: bool = False, provider_kind: str | Sequence[str] | None = None,
           mig_capable: bool = False, nvlink: bool = False,
           max_interruption: float | None = None, min_placement_score: int | None = None,
           launchable: bool = False, checkpoint_every: float | None = None,
           fixtures_dir: str | Path | None = None, fetch: RequestedMode = "auto",
           refresh: bool = False, timeout: float | None = None, engine: Engine | None = None) -> SearchResult:
    """Find GPU offers across every installed provider, filtered and ranked for a workload.

    Args:
        gpu: GPU name(s), canonical or any alias (``"H100"``, ``"A100-80GB"``, ``"nvidia-tesla-t4"``).
        min_gpus, max_gpus: GPUs per instance (fractions allowed: 0.5 is half a GPU).
        min_vram: usable VRAM per GPU, GiB. min_total_vram: VRAM of the whole instance, GiB.
        min_vcpus: vCPUs. min_memory: host RAM, GiB.
        max_price: price per instance-hour, in the offer's currency.
        currency: keep only prices in this ISO 4217 currency.
        purchase: ``on_demand``, ``spot``, ``low_priority``, ``reserved_1y``, ``reserved_3y``,
            ``savings_plan_1y``, ``savings_plan_3y`` (and any a plugin registered).
        provider: provider name(s); default all installed. region: region or zone code(s).
        country: ISO 3166 alpha-2 code(s). continent: Africa, Asia, Europe, North America, Oceania, South America.
        exclude_fractional: drop offers that get part of one GPU.
        available_only: drop offers the provider says cannot be launched now.
        workload: ``training``, ``inference``, ``data-science``, ``rendering`` or ``scientific``: rank with that
            preset (see :mod:`gpuhub.workloads`).
        model, precision, mode: a model size (``"70b"``), its precision (``bf16`` default) and ``inference``
            (default), ``fine-tuning`` or ``training``: keep offers whose total VRAM holds it
            (:mod:`gpuhub.modelfit`); explanations say whether it must be split across GPUs.
        near: a city, country, region code or ``"lat,lon"`` where users or data are; max_rtt: the longest
            estimated round trip from there, ms (:mod:`gpuhub.location`).
        max_carbon: the highest grid carbon intensity, gCO2e/kWh (:mod:`gpuhub.carbon`).
        sort: a ranker name (default: the workload's, else ``price``): ``price`` (per instance-hour),
            ``price_per_gpu``, ``price_per_vram``, a workload, ``carbon``, ``latency``, or a plugin's.
        limit: at most this many offers. instance_type: provider instance type name(s), exact.
        include_accelerators: keep non-GPU accelerators (AWS Trainium, Inferentia) that ``gpu`` does not name;
            by default they are left out (and counted under ``include_accelerators`` in ``removed_by``).
        provider_kind: ``hyperscaler`` (AWS, Azure, GCP), ``specialist`` (Lambda, CoreWeave), ``internal``, ``other``.
        mig_capable: only GPUs that support MIG partitioning (GPU table). nvlink: only multi-GPU instances whose
            GPUs are linked by NVLink/NVSwitch (SXM boards).
        max_interruption: spot/low priority offers whose interruption bucket's upper bound (from the source's own
            table: AWS's 5-10 % bucket ends at 11) is at most this percentage; unknown risk never passes; offers
            that are not interruptible pass. min_placement_score: spot offers with an AWS placement score (1-10)
            of at least this (needs credentials). launchable: drop offers that quota or capacity rule out.
            checkpoint_every: hours between checkpoints, for the training preset's expected spot cost
            (:mod:`gpuhub.obtain.cost`; default 1).
        fixtures_dir: replay recordings from ``DIR/<provider>/manifest.json`` instead of the bundled ones.
        fetch: ``auto`` (live where credentials are configured, else the bundled recording), ``live``, ``replay``.
        refresh: ignore the in-memory cache. timeout: seconds to wait for providers.
        engine: an :class:`~gpuhub.engine.Engine` to use instead of the process-wide one.

    Returns:
        A :class:`SearchResult`; a provider that failed is in ``statuses``, never an exception.

    Raises:
        QueryError: an argument is invalid (the message names it and the allowed values).
    """
    eng = engine or default_engine()
    registry = eng.registry
    query = build_query(gpus=registry.gpus, providers=sorted(registry.providers), rankers=list(registry.rankers),
                        gpu=gpu, min_gpus=min_gpus, max_gpus=max_gpus, min_vram=min_vram,
                        min_total_vram=min_total_vram, min_vcpus=min_vcpus, min_memory=min_memory,
                        max_price=max_price, currency=currency, purchase=purchase, provider=provider, region=region,
                        country=country, continent=continent, exclude_fractional=exclude_fractional,
                        available_only=available_only, sort=sort, limit=limit, workload=workload, near=near,
                        max_rtt=max_rtt, max_carbon=max_carbon, model=model, precision=precision, mode=mode,
                        instance_type=instance_type, include_accelerators=include_accelerators,
                        provider_kind=provider_kind, mig_capable=mig_capable, nvlink=nvlink,
                        max_interruption=max_interruption, min_placement_score=min_placement_score,
                        launchable=launchable, checkpoint_every=checkpoint_every)
    if fixtures_dir is not None and not isinstance(fixtures_dir, (str, os.PathLike)):
        raise QueryError("fixtures_dir", f"expected a directory path, got {fixtures_dir!r}")
    if fetch not in ("auto", "live", "replay"):
        raise QueryError("fetch", f"{fetch!r} is not allowed; allowed values: auto, live, replay")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or not math.isfinite(timeout) or timeout <= 0):
        raise QueryError("timeout", f"must be a positive number of seconds, got {timeout!r}")
    return run_query(query, eng, fixtures_dir=Path(fixtures_dir) if fixtures_dir else None, fetch=fetch,
                     refresh=refresh, timeout=timeout)


def run_query(query: Query, engine: Engine, *, fixtures_dir: Path | None = None, fetch: RequestedMode = "auto",
              refresh: bool = False, timeout: float | None = None) -> SearchResult:
    """Run an already validated :class:`Query` (the CLI and :func:`search` both end here)."""
    names = list(query.providers) or sorted(engine.registry.providers)
    collected = engine.collect(names, mode=fetch, fixtures_dir=fixtures_dir, refresh=refresh, timeout_s=timeout)
    catalog = engine.catalog([offers for offers, _ in collected])
    _check_regions(query, catalog)
    rows, removed, masks = catalog.select_with_masks(query)
    ranker = engine.registry.rankers[query.sort]
    # One more than asked, so the last offer shown can say what separates it from the next one.
    limit = query.limit + 1 if query.limit is not None else None
    ranked, scores = catalog.rank(rows, ranker, query, limit)
    shown = len(ranked) if query.limit is None else min(query.limit, len(ranked))
    gpus = engine.registry.gpus

    def explain(i: int) -> dict[str, Any]:
        nxt = i + 1 if i + 1 < len(ranked) else None
        return offer_details(catalog, int(ranked[i]), float(scores[i]),
                             float(scores[nxt]) if nxt is not None else None,
                             int(ranked[nxt]) if nxt is not None else None, ranker, query, gpus)

    short = shown == 0 or (query.limit is not None and shown < query.limit)
    notes = removed_notes(catalog, masks, ranker, query) if short else []
    return SearchResult([catalog.offers[int(r)] for r in ranked[:shown]], [status for _, status in collected], query,
                        considered=len(catalog), matched=len(rows), removed_by=removed,
                        scores=[None if math.isnan(s) else float(s) for s in scores[:shown]], removed_notes=notes,
                        _explain=explain)
