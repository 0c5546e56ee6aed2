"""``gpuhub.search()``: the public entry point, and :class:`SearchResult`."""

from __future__ import annotations

import datetime as dt
import difflib
import json
import math
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gpuhub.answer.catalog import Catalog
from gpuhub.answer.explain import cli_flag, offer_details, removed_notes
from gpuhub.answer.query import Query, build_query
from gpuhub.answer.spec import filter_values
from gpuhub.errors import QueryError
from gpuhub.fetch.plugins import get_registry
from gpuhub.fetch.provider import ProviderStatus
from gpuhub.service.engine import Engine, RequestedMode

if TYPE_CHECKING:
    from gpuhub.model import Offer

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
    launch_notes: list[str] = field(default_factory=list)
    """With ``launchable``: per provider, which quota and capacity checks were made and why others were not."""
    groups: list[Any] | None = None
    """With ``group_by``: one :class:`~gpuhub.answer.grouping.Group` per group, best first (``offers`` holds each
    group's best offer)."""
    more_regions: list[int] | None = None
    """With ``distinct``: for each offer, how many other regions sell the same choice (instance type, purchase)."""
    choices: int | None = None
    """With ``distinct``: how many distinct choices matched (before ``limit``); with ``group_by``: how many groups."""
    no_availability: list[str] = field(default_factory=list)
    """Providers none of whose offers say whether they can be launched (availability unknown throughout)."""
    availability_dropped: tuple[int, int] = (0, 0)
    """With ``available_only``: (unknown, sold out) offers it removed."""
    score_unit: str = ""
    """The unit of ``scores`` (the ranker's, e.g. ``USD/h``; ``details(i)["score_unit"]`` says the same)."""
    _explain: Callable[[int], dict[str, Any]] | None = field(default=None, repr=False)
    _details: dict[int, dict[str, Any]] = field(default_factory=dict, repr=False)
    _notes: Callable[[], list[str]] | None = field(default=None, repr=False)
    _removed_notes: list[str] | None = field(default=None, repr=False)

    @property
    def removed_notes(self) -> list[str]:
        """For each filter: the best offer it alone removed, and by how much it missed (``explain()`` shows them);
        worked out on first use (at a million offers, finding them ranks most of the catalog)."""
        if self._removed_notes is None:
            self._removed_notes = self._notes() if self._notes is not None else []
        return self._removed_notes

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

    def __repr__(self) -> str:
        """One line for a notebook or a log: how many offers, of how many, the providers' states and the first."""
        states: dict[str, int] = {}
        for status in self.statuses:  # as the CLI's summary line counts them: partial and outdated are news too
            fresh = status.state in ("ok", "stale")
            state = "partial" if status.state == "ok" and status.partial else status.state
            states[state] = states.get(state, 0) + 1
            if fresh and status.outdated():
                states["outdated"] = states.get("outdated", 0) + 1
        first = ""
        if self.offers:
            o = self.offers[0]
            from gpuhub.display import money

            first = (f"; first: {o.provider} {o.instance_type} {o.region.code} {o.price.purchase} "
                     f"{money(o.price.amount)} {o.price.currency}/h")
        told = ", ".join(f"{n} {state}" for state, n in sorted(states.items()))
        return f"<SearchResult {len(self.offers)} of {self.matched} matching offers; providers: {told}{first}>"

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
                lines.append(f"{cli_flag(name)} removed {count}")
        if self.query.limit is not None and self.matched > len(self.offers):
            lines.append(f"--limit kept {len(self.offers)} of {self.matched}")
        lines.extend(self.removed_notes)
        if self.query.available_only:
            unknown, sold_out = self.availability_dropped
            lines.append(f"--available dropped {unknown} offers whose availability is unknown and {sold_out} sold out")
        for status in self.statuses:
            if status.state in ("failed", "skipped"):
                lines.append(f"{status.provider} {status.state}: {status.reason}")
        return lines

    def to_dicts(self, explained: bool = True) -> list[dict[str, Any]]:
        """Each offer as the flat record documented in the README, plus ``score``, ``explanation`` and the
        price-performance figures (JSON-ready). ``explained=False``: ``score`` and ``score_unit`` only, none of
        the explanation's work (what the offers table shows)."""
        if self.groups is not None:
            return [g.to_record() for g in self.groups]
        more = self.more_regions
        return [{**offer.to_record(), **_availability(offer), "more_regions": more[i] if more is not None else None,
                 **(self.details(i) if explained else {"score": self.scores[i], "score_unit": self.score_unit})}
                for i, offer in enumerate(self.offers)]

    def to_dict(self) -> dict[str, Any]:
        """Offers, provider statuses and the filter report, JSON-ready."""
        return {"offers": self.to_dicts(), "providers": [s.to_dict() for s in self.statuses],
                **({"launch_checks": list(self.launch_notes)} if self.launch_notes else {}),
                "considered": self.considered, "matched": self.matched, "removed_by": dict(self.removed_by)}

    def to_json(self, indent: int | None = 2) -> str:
        """The result as JSON text (:meth:`to_dict`), indented by ``indent`` spaces (None: one line)."""
        return json.dumps(self.to_dict(), indent=indent)


def _availability(offer: Offer) -> dict[str, str]:
    return {"availability": {True: "available", False: "sold_out", None: "unknown"}[offer.available]}


def _check_regions(query: Query, catalog: Catalog) -> None:
    """An unknown region or zone code is an error (with close matches), not a silent empty result."""
    if not query.regions:
        return
    from gpuhub.facts.regions import known_regions

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
           mig_capable: bool = False, nvlink: bool = False, rtt_budget: float | None = None,
           group_by: str | Sequence[str] | None = None, distinct: bool = False,
           max_interruption: float | None = None, min_placement_score: int | None = None,
           launchable: bool = False, checkpoint_every: float | None = None,
           min_compute_capability: str | float | None = None, feature: str | Sequence[str] | None = None,
           cuda: str | float | None = None, bare_metal: bool = False, dedicated: bool = False,
           max_price_per_gpu: float | str | None = None, min_network_gbps: float | None = None,
           fabric: str | Sequence[str] | None = None, min_local_disk: float | None = None, local_nvme: bool = False,
           nodes: int | None = None,
           fixtures_dir: str | Path | None = None, fetch: RequestedMode = "auto",
           refresh: bool = False, timeout: float | None = None, engine: Engine | None = None,
           max_age: float | None = None, start: dt.datetime | None = None) -> SearchResult:
    """Find GPU offers across every installed provider, filtered and ranked for a workload.

    Args:
        gpu: GPU name(s), canonical or any alias (``"H100"``, ``"A100-80GB"``, ``"nvidia-tesla-t4"``).
        min_gpus, max_gpus: GPUs per instance (fractions allowed: 0.5 is half a GPU).
        min_vram: usable VRAM per GPU, GiB. min_total_vram: VRAM of the whole instance, GiB.
        min_vcpus: vCPUs. min_memory: host RAM, GiB.
        max_price: price per instance-hour, in the offer's currency. max_price_per_gpu: price per GPU-hour
            (instance price / GPUs, fractions included), in the offer's currency.
        currency: keep only prices in this ISO 4217 currency.
        purchase: ``on_demand``, ``spot``, ``low_priority``, ``reserved_1y``, ``reserved_3y``,
            ``savings_plan_1y``, ``savings_plan_3y`` (and any a plugin registered).
        provider: provider name(s); default all installed. region: region or zone code(s).
        country: ISO 3166 alpha-2 code(s). continent: Africa, Asia, Europe, North America, Oceania, South America.
        exclude_fractional: drop offers that get part of one GPU.
        available_only: keep only offers the provider says can be launched now (unknown and sold out are dropped
            and counted). Without it, an offer known to be sold out ranks after every other offer.
        workload: ``training``, ``inference``, ``data-science``, ``rendering`` or ``scientific``: rank with that
            preset (see :mod:`gpuhub.answer.workloads`).
        model, precision, mode: a model size (``"70b"``), its precision (``bf16`` default) and ``inference``
            (default), ``fine-tuning`` or ``training``: keep offers whose total VRAM holds it
            (:mod:`gpuhub.facts.modelfit`); explanations say whether it must be split across GPUs.
        near: a city, country, region code or ``"lat,lon"`` where users or data are; max_rtt: the longest
            estimated round trip from there, ms (:mod:`gpuhub.facts.location`).
        max_carbon: the highest grid carbon intensity, gCO2e/kWh (:mod:`gpuhub.facts.carbon`).
        sort: a ranker name (default: the workload's, else ``price``): ``price`` (per instance-hour),
            ``price_per_gpu``, ``price_per_vram``, a workload, ``carbon``, ``latency``, or a plugin's.
        limit: at most this many offers. instance_type: provider instance type name(s), exact.
        include_accelerators: keep non-GPU accelerators (AWS Trainium, Inferentia) that ``gpu`` does not name;
            by default they are left out (and counted under ``include_accelerators`` in ``removed_by``).
        provider_kind: ``hyperscaler`` (AWS, Azure, GCP), ``specialist`` (Lambda, CoreWeave), ``internal``, ``other``.
        mig_capable: only GPUs that support MIG partitioning (GPU table). nvlink: only multi-GPU instances whose
            GPUs are linked by NVLink/NVSwitch (SXM boards).
        rtt_budget: real-time round-trip budget for ``workload="inference"`` with ``near``, ms (default 50):
            offers within it rank ahead of the others.
        group_by: ``instance-type``, ``gpu``, ``provider``, ``region`` (one or several): one row per group
            (``result.groups``, :mod:`gpuhub.answer.grouping`). distinct: one offer per (provider, instance type,
            purchase model), its best-ranked region (``result.more_regions`` counts the others).
        max_interruption: spot/low priority offers whose interruption bucket's upper bound (from the source's own
            table: AWS's 5-10 % bucket ends at 11) is at most this percentage; unknown risk never passes; offers
            that are not interruptible pass. min_placement_score: spot offers with an AWS placement score (1-10)
            of at least this (needs credentials). launchable: drop offers that quota or capacity rule out.
            checkpoint_every: hours between checkpoints, for the training preset's expected spot cost
            (:mod:`gpuhub.answer.cost`; default 1).
        min_compute_capability: CUDA GPUs of at least this compute capability (``"9.0"``: Hopper and newer).
            feature: GPUs with every named feature: ``fp8``, ``transformer-engine``, ``tensor-cores``, ``mig``.
            cuda: GPUs this CUDA release can build for (``"12.4"``; facts in :mod:`gpuhub.facts.compat`).
        bare_metal: only instances the provider says are bare metal. dedicated: only instances on a host of their
            own (dedicated tenancy or bare metal). Unknown control level never passes either.
        min_network_gbps: baseline network bandwidth at least, Gbps. fabric: RDMA fabric(s) between instances:
            ``efa``, ``infiniband``, ``roce``, ``gpudirect`` (GCP GPUDirect-TCPX/TCPXO) or ``any``.
            min_local_disk: local (instance) disk at least, GiB. local_nvme: only local NVMe disks. Unknown network
            and disk facts never pass (:mod:`gpuhub.answer.network`).
        nodes: identical instances for one multi-node job: only types with an RDMA fabric pass, and each offer's
            record gains ``nodes``, ``cluster_gpus``, ``cluster_price_per_hour`` (price × nodes, offer currency)
            and ``cluster_fabric``.
        fixtures_dir: replay recordings from ``DIR/<provider>/manifest.json`` instead of the bundled ones.
        fetch: ``auto`` (live where credentials are configured, else the bundled recording), ``live``, ``replay``.
        refresh: fetch again, ignoring stored and cached data. timeout: seconds to wait for providers.
        max_age: how old stored live data may be, seconds (default: ``GPUHUB_FRESH_ON_DEMAND_S``, 3600, or for
            spot and low-priority prices ``GPUHUB_FRESH_SPOT_S``, 600); when given, also how old each offer's own
            price date may be (whole days; an undated offer is left out, counted under ``max_age``).
        start: the search's own time, timezone-aware (default: now): a reservation window (capacity block) that
            starts before it is left out, counted under ``past_start``.
        engine: an :class:`~gpuhub.service.engine.Engine` to use instead of the process-wide one.

    Returns:
        A :class:`SearchResult`; a provider that failed is in ``statuses``, never an exception.

    Raises:
        QueryError: an argument is invalid (the message names it and the allowed values).
    """
    filters = filter_values(locals())  # every search parameter by name (gpuhub.answer.spec; tests/test_spec.py)
    eng = engine or default_engine()
    registry = eng.registry
    query = build_query(gpus=registry.gpus, providers=sorted(registry.providers), sellers=registry.sellers(),
                        rankers=list(registry.rankers), **filters)
    if fixtures_dir is not None and not isinstance(fixtures_dir, (str, os.PathLike)):
        raise QueryError("fixtures_dir", f"expected a directory path, got {fixtures_dir!r}")
    if fetch not in ("auto", "live", "replay"):
        raise QueryError("fetch", f"{fetch!r} is not allowed; allowed values: auto, live, replay")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or not math.isfinite(timeout) or timeout <= 0):
        raise QueryError("timeout", f"must be a positive number of seconds, got {timeout!r}")
    if max_age is not None and (isinstance(max_age, bool) or not isinstance(max_age, (int, float))
                                or not math.isfinite(max_age) or max_age < 0):
        raise QueryError("max_age", f"must be a number of seconds, 0 or more, got {max_age!r}")
    if start is not None and (not isinstance(start, dt.datetime) or start.tzinfo is None):
        raise QueryError("start", f"must be a timezone-aware datetime (e.g. in UTC), got {start!r}")
    return run_query(query, eng, fixtures_dir=Path(fixtures_dir) if fixtures_dir else None, fetch=fetch,
                     refresh=refresh, timeout=timeout, max_age=max_age, start=start)


def run_query(query: Query, engine: Engine, *, fixtures_dir: Path | None = None, fetch: RequestedMode = "auto",
              refresh: bool = False, timeout: float | None = None, deadline: float | None = None,
              max_age: float | None = None, start: dt.datetime | None = None) -> SearchResult:
    """Run an already validated :class:`Query` (the CLI and :func:`search` both end here); ``deadline`` (a
    ``time.monotonic()`` value) bounds the wait for providers too; ``max_age`` bounds stored live data (seconds);
    ``start`` is the search's own time (default now, UTC): a reservation window starting before it is left out and
    counted under ``past_start``."""
    providers = engine.registry.providers
    # A provider named matches as a source or as a seller: aggregators (Provider.resells) run too, to find the
    # named sellers' machines offered through them.
    names = [n for n in sorted(providers) if n in query.providers or getattr(providers[n], "resells", False)] \
        if query.providers else sorted(providers)
    examples = _examples_left_out(engine, names, query, fixtures_dir)
    names = [n for n in names if n not in examples]
    collected = engine.collect(names, mode=fetch, fixtures_dir=fixtures_dir, refresh=refresh, timeout_s=timeout,
                               deadline=deadline, max_age_s=max_age, purchases=query.purchase or None)
    catalog = engine.catalog([offers for offers, _ in collected])
    _check_regions(query, catalog)
    rows, removed, masks = catalog.select_with_masks(query)
    past = catalog.starts_before(start or dt.datetime.now(dt.timezone.utc))
    if past.any():  # a reservation window (capacity block) that starts before the search's own time: never offered
        masks.append(("past_start", ~past))
        removed["past_start"] = int(np.count_nonzero(past[rows]))
        rows = rows[~past[rows]]
    if max_age is not None:  # --max-age applies to each offer's own price date too (undated offers do not pass)
        young = catalog.younger_than(max_age)
        masks.append(("max_age", young))
        removed["max_age"] = int(np.count_nonzero(~young[rows]))
        rows = rows[young[rows]]
    ranker = engine.registry.rankers[query.sort]
    grouped = query.distinct or bool(query.group_by)
    # One more than asked, so the last offer shown can say what separates it from the next one.
    limit = query.limit + 1 if query.limit is not None and not grouped else None
    ranked, scores = catalog.rank(rows, ranker, query, limit)
    groups, more, group_count = None, None, 0
    if query.group_by:
        from gpuhub.answer.grouping import grouped as shown_groups

        # every group is counted and ranked; only those shown are built (each builds its best offer's model)
        groups, positions = shown_groups(catalog, ranked, query.group_by, query.limit)
        ranked, scores = ranked[positions], scores[positions]
        group_count = len(positions)  # said beside the groups shown ("showing 20 of 41 groups")
    elif query.distinct:
        from gpuhub.answer.grouping import distinct

        positions, more = distinct(catalog, ranked)
        ranked, scores = ranked[positions], scores[positions]
    shown = len(ranked) if query.limit is None else min(query.limit, len(ranked))
    gpus = engine.registry.gpus
    cheapest = _cheapest(catalog, rows)

    def explain(i: int) -> dict[str, Any]:
        nxt = i + 1 if i + 1 < len(ranked) else None
        return offer_details(catalog, int(ranked[i]), float(scores[i]),
                             float(scores[nxt]) if nxt is not None else None,
                             int(ranked[nxt]) if nxt is not None else None, ranker, query, gpus, cheapest=cheapest)

    short = shown == 0 or (query.limit is not None and shown < query.limit)

    def notes() -> list[str]:  # worked out only when asked for (explain(), --explain, an empty result)
        return removed_notes(catalog, masks, ranker, query) if short else []

    launch: list[str] = []
    if query.launchable:  # gpuhub.answer.launch: which checks could not be made, and why
        from gpuhub.answer.launch import launch_notes

        launch = launch_notes(catalog.offers[int(r)] for r in rows)
    dropped = (0, 0)
    if query.available_only:
        before = np.ones(len(catalog), dtype=np.bool_)
        for name, mask in masks:
            if name != "available_only":
                before &= mask
        dropped = (int(np.count_nonzero(before & (catalog.available == -1))),
                   int(np.count_nonzero(before & (catalog.available == 0))))
    statuses = sorted([status for _, status in collected] + [_example_status(engine, n) for n in examples],
                      key=lambda s: s.provider)
    return SearchResult([catalog.offers[int(r)] for r in ranked[:shown]], statuses, query,
                        considered=len(catalog), matched=len(rows), removed_by=removed,
                        scores=[None if math.isnan(s) else float(s) for s in scores[:shown]], _notes=notes,
                        groups=groups, more_regions=more[:shown] if more is not None else None,
                        choices=len(more) if more is not None else group_count if groups is not None else None,
                        no_availability=_no_availability(catalog), availability_dropped=dropped,
                        launch_notes=launch, score_unit=ranker.unit, _explain=explain)


def _examples_left_out(engine: Engine, names: list[str], query: Query, fixtures_dir: Path | None) -> list[str]:
    """Providers whose bundled recording is only an example (:attr:`Provider.example_recording`) and that have no
    live access configured: a search that does not name them leaves them out, so demo clusters never pose as
    offers to rent."""
    if query.providers or fixtures_dir is not None:  # named, or the user's own recordings: not the example
        return []
    providers = engine.registry.providers
    return [n for n in names if providers[n].example_recording
            and not providers[n].credentials_configured(engine.environ)]


def _example_status(engine: Engine, name: str) -> ProviderStatus:
    variables = sorted({v for c in engine.registry.providers[name].credentials for v in c.env})
    return ProviderStatus(name, "skipped", reason=(
        f"its bundled data is an example, not offers to rent: --provider {name} shows it; for live data set "
        f"{' or '.join(variables) or 'its settings'}"))


def _cheapest(catalog: Catalog, rows: npt.NDArray[np.int32]) -> int | None:
    """The cheapest matching row in USD (or the only currency), for "a far one is N % cheaper" explanations."""
    if len(rows) == 0:
        return None
    usd = catalog.currency.lookup.get("USD")
    pool = rows[catalog.currency.codes[rows] == usd] if usd is not None else rows
    pool = pool if len(pool) else rows
    return int(pool[int(np.argmin(catalog.price[pool]))])


def _no_availability(catalog: Catalog) -> list[str]:
    """Providers whose every offer has unknown availability."""
    known = np.zeros(len(catalog.provider.values) + 1, dtype=np.bool_)
    known[catalog.provider.codes[catalog.available != -1]] = True
    return [name for i, name in enumerate(catalog.provider.values) if not known[i]]


def record_fields(query: Query) -> list[str]:
    """The column names of :meth:`SearchResult.to_dicts` for ``query`` (CSV headers: the same whether or not
    anything matched), read off a one-offer result so they never drift from the records."""
    from decimal import Decimal

    from gpuhub.answer.grouping import group
    from gpuhub.answer.ranking import BUILTIN_RANKERS
    from gpuhub.fetch.plugins import get_registry
    from gpuhub.model import Instance, Offer, Price, Region, Source

    offer = Offer(instance=Instance(provider="p", instance_type="t"), region=Region(provider="p", code="r"),
                  price=Price(amount=Decimal(1), currency="USD", purchase="on_demand"), source=Source(mode="static"))
    catalog = Catalog([offer])
    rows = np.zeros(1, dtype=np.int32)
    if query.group_by:
        return list(group(catalog, rows, query.group_by)[0].to_record())
    details = offer_details(catalog, 0, 1.0, None, None, BUILTIN_RANKERS[0], query, get_registry().gpus)
    return [*offer.to_record(), *_availability(offer), "more_regions", *details]
