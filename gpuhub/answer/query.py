"""Search queries: argument validation into an immutable :class:`Query` (filtering is :mod:`gpuhub.answer.catalog`).

A :class:`Query` is immutable and hashable (lists become tuples, names are canonical), so equal queries written
differently (other key order, alias vs canonical GPU name) are equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from gpuhub.bundled import BUNDLED_PROVIDERS, installed_distributions
from gpuhub.display import given
from gpuhub.errors import QueryError
from gpuhub.facts.gpus import GpuTable, UnknownGpuError
from gpuhub.facts.location import Place, resolve_place
from gpuhub.facts.modelfit import ModelFit, model_fit
from gpuhub.facts.regions import CONTINENTS
from gpuhub.purchase import known_purchase_models

PROVIDER_KINDS = ("hyperscaler", "specialist", "internal", "other")
WORKLOADS = ("training", "inference", "data-science", "rendering", "scientific")
"""The workload presets (rankers registered by the built-in plugin; see :mod:`gpuhub.answer.workloads`)."""

MAX_LIMIT = 1_000_000
"""The most offers a search may be asked for (a bound on input: every catalog so far is far smaller)."""
GROUP_KEYS = ("instance-type", "gpu", "provider", "region")
"""What ``group_by`` accepts (combinable)."""
KNOWN_PLUGINS = BUNDLED_PROVIDERS
"""Providers of this project's plugin distributions (for "not installed: pip install ..." messages)."""

__all__ = ["GROUP_KEYS", "Query", "build_query"]


@dataclass(frozen=True)
class Query:
    """A validated search (:func:`build_query` makes one). Units: VRAM and RAM in GiB (VRAM per GPU unless
    ``total``), prices per instance-hour. A plain frozen dataclass, not a pydantic model: a search served from the
    store never imports pydantic; ``dataclasses.replace(query, limit=None)`` copies one with changes.
    """

    gpu: tuple[str, ...] = ()
    gpu_forms: tuple[tuple[str, str], ...] = ()
    """(canonical name, form factor) for GPUs asked for in one form only (``"H100 PCIe"``)."""
    instance_types: tuple[str, ...] = ()
    min_gpus: float | None = None
    max_gpus: float | None = None
    min_vram_gib: float | None = None
    min_total_vram_gib: float | None = None
    min_vcpus: float | None = None
    min_memory_gib: float | None = None
    max_price_per_hour: Decimal | None = None
    max_price_per_gpu_hour: Decimal | None = None
    """Price per GPU-hour (instance price / GPUs) at most this, in the offer's currency."""
    currency: str | None = None
    purchase: tuple[str, ...] = ()
    providers: tuple[str, ...] = ()
    """Provider or seller names: an offer matches when it came through one of them or one of them runs it."""
    regions: tuple[str, ...] = ()
    countries: tuple[str, ...] = ()
    continents: tuple[str, ...] = ()
    exclude_fractional: bool = False
    available_only: bool = False
    include_accelerators: bool = False
    provider_kinds: tuple[str, ...] = ()
    """hyperscaler, specialist, internal, other."""
    mig_capable: bool = False
    nvlink: bool = False
    """Only multi-GPU instances whose GPUs talk over NVLink/NVSwitch (SXM boards)."""
    """Keep non-GPU accelerators (AWS Trainium/Inferentia, ...) even when ``gpu`` does not name them."""
    near: tuple[str, float, float] | None = None
    """(label, latitude, longitude) of the place users or data are at."""
    max_rtt_ms: float | None = None
    max_carbon_g_per_kwh: float | None = None
    model_parameters: float | None = None
    precision: str = "bf16"
    model_mode: str = "inference"
    model_vram_gib: float | None = None
    """Total VRAM the model needs (from :func:`gpuhub.facts.modelfit.model_fit`), GiB."""
    sort: str = "price"
    limit: int | None = None
    # --- answers (issue 16): real-time budget, grouping, distinct choices ---
    rtt_budget_ms: float = 50.0
    """Real-time round-trip budget for ``workload="inference"`` with ``near``: offers within it rank first, ms."""
    group_by: tuple[str, ...] = ()
    """Group keys (:data:`GROUP_KEYS`): one result row per group (see :mod:`gpuhub.answer.grouping`)."""
    distinct: bool = False
    """One row per (provider, instance type, purchase model): its best-ranked region, counting the others."""
    # Obtainability (gpuhub.obtain): unknown risk or score never passes a bound on it.
    max_interruption_pct: float | None = None
    """Spot/low priority only: the interruption bucket's upper bound (source's own table), percent, at most this."""
    min_placement_score: int | None = None
    """Spot only: the AWS spot placement score (1-10) at least this."""
    launchable: bool = False
    """Only offers that quota and capacity allow (unknown: kept, and the status says which check was missing)."""
    checkpoint_every_h: float = 1.0
    """Hours between checkpoints, for the expected cost of interruptible capacity (training preset)."""
    # Framework compatibility and control level (gpuhub.facts.compat): unknown never passes.
    min_compute_capability: tuple[int, int] | None = None
    """Only CUDA GPUs of at least this compute capability, e.g. (8, 0)."""
    features: tuple[str, ...] = ()
    """Only GPUs with every one of these (``fp8``, ``transformer-engine``, ``tensor-cores``, ``mig``)."""
    cuda: tuple[int, int] | None = None
    """Only GPUs this CUDA release can build for, e.g. (12, 4)."""
    bare_metal: bool = False
    """Only instances the provider says are bare metal (no hypervisor)."""
    dedicated: bool = False
    """Only instances on a host of their own (dedicated tenancy, bare metal included)."""
    # Network, fabric, local storage and multi-node (gpuhub.answer.network): unknown never passes.
    min_network_gbps: float | None = None
    """Baseline network bandwidth at least this, Gbps."""
    fabrics: tuple[str, ...] = ()
    """Only instances with one of these RDMA fabrics (``efa``, ``infiniband``, ``roce``, ``gpudirect``, ``any``)."""
    min_local_disk_gib: float | None = None
    """Local (instance) disk at least this, GiB."""
    local_nvme: bool = False
    """Only instances with local NVMe disks."""
    nodes: int = 1
    """Identical instances wanted for one job; above 1 only types with an RDMA fabric pass."""

    def fit(self) -> ModelFit | None:
        """The model-fit figures when a model was given."""
        if self.model_parameters is None:
            return None
        return model_fit(self.model_parameters, self.precision, self.model_mode)

    def place(self) -> Place | None:
        """Where the user is (``near``: latitude, longitude in degrees, and the place's name) for round-trip
        estimates; None when ``near`` was not given.
        """
        return Place(*self.near) if self.near else None


def _tuple(name: str, value: str | Iterable[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        items: list[Any] = [value]
    elif isinstance(value, Iterable):
        items = list(value)
    else:
        raise QueryError(name, f"expected text or a list of text, got {value!r}")
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise QueryError(name, f"expected text or a list of text, got {item!r}")
        out.extend(part.strip() for part in item.split(",") if part.strip())
    return tuple(dict.fromkeys(out))


def _place(near: Any) -> Place | None:
    """``near`` as text (see :func:`gpuhub.facts.location.resolve_place`) or a ``(latitude, longitude)`` pair."""
    if near is None or near == "":
        return None
    if isinstance(near, str):
        return resolve_place(near)
    if isinstance(near, (tuple, list)) and len(near) == 2 and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in near):
        return resolve_place(f"{near[0]},{near[1]}")
    raise QueryError("near", f"expected a place name or a (latitude, longitude) pair, got {near!r}")


def _country(text: str) -> str:
    """An ISO 3166 alpha-2 code from a code or an English name ('DE', 'Germany')."""
    import pycountry

    try:
        return str(pycountry.countries.lookup(text).alpha_2)
    except LookupError:
        raise QueryError("country", f"{text!r} is not a country: give an ISO 3166 code or name, like 'US', 'DE' "
                                    "or 'Germany'") from None


def _number(name: str, value: Any, *, integer: bool = False) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise QueryError(name, f"expected a number, got {given(value)}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise QueryError(name, f"expected a number, got {given(value)}") from None
    except OverflowError:  # an integer beyond float range (10**400)
        raise QueryError(name, f"must be a number, 0 or more, got a number too large ({len(str(value))} digits)") \
            from None
    if number != number or number in (float("inf"), float("-inf")):
        raise QueryError(name, f"must be a finite number, 0 or more, got {given(value)}")
    if number < 0:
        raise QueryError(name, f"must be a number, 0 or more, got {given(value)}")
    if integer and number != int(number):
        raise QueryError(name, f"must be a whole number, got {given(value)}")
    return number


def _not_installed(value: str, allowed: Sequence[str]) -> str | None:
    """For ``provider``: why a name is not there and the pip command that installs it (None: just unknown)."""
    wanted = value.lower()
    if not allowed:
        every = " ".join(KNOWN_PLUGINS.values())
        return f"no provider plugins installed: pip install {KNOWN_PLUGINS.get(wanted, every)} (or any of {every})"
    if wanted in KNOWN_PLUGINS:
        dist = KNOWN_PLUGINS[wanted]
        if dist in installed_distributions():
            return (f"{value!r} is installed ({dist}) but not loaded: see 'gpuhub plugins' (GPUHUB_PLUGINS, "
                    f"GPUHUB_DISABLE_PLUGINS); loaded: {', '.join(allowed)}")
        return f"{value!r} is not installed: pip install {dist}; installed: {', '.join(allowed)}"
    return None


def _choose(name: str, values: tuple[str, ...], allowed: Sequence[str], *, fold: bool = True) -> tuple[str, ...]:
    lookup = {a.lower() if fold else a: a for a in allowed}
    out = []
    for value in values:
        if name == "provider" and value.lower() not in lookup and (why := _not_installed(value, allowed)):
            raise QueryError(name, why)
        key = value.lower().replace("-", "_") if name == "purchase" else (value.lower() if fold else value)
        if key not in lookup:
            raise QueryError(name, f"{value!r} is not allowed; allowed values: {', '.join(allowed)}")
        out.append(lookup[key])
    return tuple(out)


def _price(argument: str, value: Any) -> Decimal | None:
    """A price bound given as a number or its text (``"40.5"``), exact; None when not given.

    Raises:
        QueryError: not a non-negative number.
    """
    if value is None:
        return None
    _number(argument, value)
    try:
        return Decimal(str(value))
    except InvalidOperation:
        raise QueryError(argument, f"expected a number, got {given(value)}") from None


def build_query(*, gpus: GpuTable, providers: Sequence[str], rankers: Sequence[str], gpu: Any = None,
                min_gpus: Any = None, max_gpus: Any = None, min_vram: Any = None, min_total_vram: Any = None,
                min_vcpus: Any = None, min_memory: Any = None, max_price: Any = None, currency: str | None = None,
                purchase: Any = None, provider: Any = None, region: Any = None, country: Any = None,
                continent: Any = None, exclude_fractional: bool = False, available_only: bool = False,
                sort: str | None = None, limit: Any = None, workload: str | None = None, near: Any = None,
                max_rtt: Any = None, max_carbon: Any = None, model: Any = None, precision: str | None = None,
                mode: str | None = None, instance_type: Any = None, include_accelerators: bool = False,
                provider_kind: Any = None, mig_capable: bool = False, nvlink: bool = False,
                rtt_budget: Any = None, group_by: Any = None, distinct: bool = False,
                max_interruption: Any = None, min_placement_score: Any = None, launchable: bool = False,
                checkpoint_every: Any = None, min_compute_capability: Any = None, feature: Any = None,
                cuda: Any = None, bare_metal: bool = False, dedicated: bool = False, max_price_per_gpu: Any = None,
                min_network_gbps: Any = None, fabric: Any = None, min_local_disk: Any = None,
                local_nvme: bool = False, nodes: Any = None, sellers: Sequence[str] = ()) -> Query:
    """Validate user arguments into a :class:`Query`.

    ``provider`` names match an offer's source (the provider it came through) or its seller (who runs the
    machine); ``sellers`` are the seller names accepted beyond ``providers`` (:meth:`Registry.sellers`).

    Raises:
        QueryError: an argument is invalid; the message names it and lists the allowed values (for an unknown
            GPU, the closest known names).
    """
    _check_not_empty(purchase=purchase, near=near, country=country, continent=continent, currency=currency,
                     provider_kind=provider_kind, sort=sort, workload=workload, model=model, precision=precision,
                     mode=mode, group_by=group_by)
    names: list[str] = []
    forms: list[tuple[str, str]] = []
    for argument, value in (("instance_type", instance_type), ("region", region), ("provider", provider)):
        if value is not None and not _tuple(argument, value):
            raise QueryError(argument, "is empty; leave it out to search every one")
    if gpu is not None and not _tuple("gpu", gpu):
        raise QueryError("gpu", "an empty GPU name; give a name such as H100, A100-80GB or L4 (see 'gpuhub gpus')")
    for raw in _tuple("gpu", gpu):
        try:
            name, form = gpus.lookup_form(raw)
        except UnknownGpuError as exc:
            raise QueryError("gpu", str(exc)) from None
        names.append(name)
        if form is not None:
            forms.append((name, form))
    # A name asked for in any form as well as in one form means any form.
    forms = [(n, f) for n, f in forms if sum(1 for m in names if m == n) == sum(1 for m, _ in forms if m == n)]
    lo, hi = _number("min_gpus", min_gpus), _number("max_gpus", max_gpus)
    if lo is not None and hi is not None and lo > hi:
        raise QueryError("min_gpus", f"min_gpus ({lo:g}) is larger than max_gpus ({hi:g})")
    price, price_per_gpu = _price("max_price", max_price), _price("max_price_per_gpu", max_price_per_gpu)
    if currency is not None:
        from gpuhub.purchase import check_currency

        if not isinstance(currency, str):
            raise QueryError("currency", f"expected an ISO 4217 code such as 'USD', got {currency!r}")
        try:
            currency = check_currency(currency)
        except ValueError as exc:
            raise QueryError("currency", str(exc)) from None
    if isinstance(workload, str):  # Training, TRAINING: the preset's name whatever its case
        workload = workload.strip().lower()
    if workload is not None:
        presets = [r for r in rankers if r in WORKLOADS]
        if workload not in WORKLOADS or workload not in rankers:
            raise QueryError("workload", f"{workload!r} is not a workload; allowed values: {', '.join(presets)}")
    if workload is not None and sort is not None and sort != workload:
        raise QueryError("sort", f"{sort!r} and workload {workload!r} both choose the ranking (a workload ranks by "
                                 "its own score); give one of them")
    # ``near`` without a sort ranks by a distance-adjusted price (``near`` ranker, :mod:`gpuhub.answer.workloads`).
    sort = sort or workload or ("near" if near is not None and "near" in rankers else "price")
    if sort not in rankers:
        raise QueryError("sort", f"{sort!r} is not a ranker; allowed values: {', '.join(rankers)}")
    place = _place(near)
    rtt = _number("max_rtt", max_rtt)
    if rtt is not None and place is None:
        raise QueryError("max_rtt", "needs a place to measure from (near, on the CLI --near: a city, a country, "
                                    "a region code or 'lat,lon')")
    if sort == "latency" and place is None:
        raise QueryError("sort", "latency needs a place to measure from (near, on the CLI --near: a city, a "
                                 "country, a region code or 'lat,lon')")
    # The model's mode follows a training workload unless given: a model sized for inference on a training search
    # fits far fewer bytes than training needs (weights, gradients, optimizer state).
    implied = mode or ("training" if workload == "training" else "inference")
    fit = model_fit(model, precision or "bf16", implied) if model is not None else None
    if fit is None and (precision is not None or mode is not None):
        raise QueryError("model", "precision and mode describe a model: give the model size too, e.g. 70b")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, float, str))):
        raise QueryError("limit", f"must be a whole number from 1 to {MAX_LIMIT}, got {given(limit)}")
    try:
        limit_n = _number("limit", limit, integer=True)
    except QueryError:
        raise QueryError("limit", f"must be a whole number from 1 to {MAX_LIMIT}, got {given(limit)}") from None
    if limit_n is not None and not 1 <= limit_n <= MAX_LIMIT:
        raise QueryError("limit", f"must be a whole number from 1 to {MAX_LIMIT}, got {given(limit)}")
    budget = _number("rtt_budget", rtt_budget)
    if budget is not None and place is None:
        raise QueryError("rtt_budget", "needs a place to measure from (near, on the CLI --near)")
    groups = tuple(dict.fromkeys(_choose("group_by", _tuple("group_by", group_by), GROUP_KEYS)))
    countries = tuple(_country(c) for c in _tuple("country", country))
    obtain = _obtain_arguments(max_interruption, min_placement_score, launchable, checkpoint_every)
    control = _control_arguments(min_compute_capability, feature, cuda, bare_metal, dedicated)
    network = _network_arguments(min_network_gbps, fabric, min_local_disk, local_nvme, nodes)
    # Sorted tuples: equal queries written in another order are equal (and hash alike) for caching.
    return Query(
        gpu=tuple(sorted(set(names) - {n for n, _ in forms})), gpu_forms=tuple(sorted(set(forms))),
        instance_types=tuple(sorted(_tuple("instance_type", instance_type))),
        min_gpus=lo, max_gpus=hi, min_vram_gib=_number("min_vram", min_vram),
        min_total_vram_gib=_number("min_total_vram", min_total_vram), min_vcpus=_number("min_vcpus", min_vcpus),
        min_memory_gib=_number("min_memory", min_memory), max_price_per_hour=price, currency=currency,
        max_price_per_gpu_hour=price_per_gpu,
        purchase=tuple(sorted(_choose("purchase", _tuple("purchase", purchase), known_purchase_models()))),
        providers=tuple(sorted(_choose("provider", _tuple("provider", provider), [*providers, *sellers]))),
        regions=tuple(sorted(_tuple("region", region))), countries=tuple(sorted(countries)),
        continents=tuple(sorted(_choose("continent", _tuple("continent", continent), CONTINENTS))),
        exclude_fractional=bool(exclude_fractional), available_only=bool(available_only), sort=sort,
        include_accelerators=bool(include_accelerators) or any(not gpus.is_gpu(n) for n in names),
        provider_kinds=tuple(sorted(_choose("provider_kind", _tuple("provider_kind", provider_kind),
                                            PROVIDER_KINDS))),
        mig_capable=bool(mig_capable), nvlink=bool(nvlink),
        limit=int(limit_n) if limit_n is not None else None,
        near=(place.label, place.latitude, place.longitude) if place else None, max_rtt_ms=rtt,
        max_carbon_g_per_kwh=_number("max_carbon", max_carbon),
        model_parameters=fit.parameters if fit else None, precision=fit.precision if fit else "bf16",
        model_mode=fit.mode if fit else "inference", model_vram_gib=fit.total_gib if fit else None,
        rtt_budget_ms=50.0 if budget is None else budget, group_by=groups, distinct=bool(distinct), **obtain,
        **control, **network,
    )


def _check_not_empty(**arguments: Any) -> None:
    """An empty text argument (``--purchase ""``) is an error naming it, never "no filter"."""
    for name, value in arguments.items():
        if value is None:
            continue
        items = [value] if isinstance(value, str) else (list(value) if isinstance(value, (list, tuple)) else None)
        if items is not None and (not items or all(isinstance(v, str) and not v.strip(" ,") for v in items)):
            raise QueryError(name, "is empty; leave it out, or give a value")


def _control_arguments(min_compute_capability: Any, feature: Any, cuda: Any, bare_metal: Any,
                       dedicated: Any) -> dict[str, Any]:
    """Compatibility and control-level arguments as :class:`Query` fields (see :mod:`gpuhub.facts.compat`)."""
    from gpuhub.facts.compat import CUDA_RELEASES, FEATURES, parse_version

    versions: dict[str, tuple[int, int] | None] = {}
    for name, value, example in (("min_compute_capability", min_compute_capability, "8.0"),
                                 ("cuda", cuda, "12.4")):
        if value is None:
            versions[name] = None
            continue
        if isinstance(value, bool) or not isinstance(value, (str, int, float)) or not str(value).strip():
            raise QueryError(name, f"expected a version such as {example}, got {value!r}")
        try:
            versions[name] = parse_version(str(value))
        except ValueError:
            raise QueryError(name, f"expected a version such as {example}, got {value!r}") from None
        if name == "cuda" and versions[name] not in CUDA_RELEASES:
            newest = ".".join(map(str, CUDA_RELEASES[-1]))
            gap = "NVIDIA went from 12.6 to 12.8; " if versions[name] == (12, 7) else ""
            raise QueryError(name, f"{value!r} is not a CUDA release ({gap}the newest gpuhub knows is {newest}); "
                                   f"allowed values: {', '.join(f'{a}.{b}' for a, b in CUDA_RELEASES)}")
    if feature is not None and not _tuple("feature", feature):
        raise QueryError("feature", f"is empty; allowed values: {', '.join(FEATURES)}")
    features = _choose("feature", _tuple("feature", feature), FEATURES)
    return {"min_compute_capability": versions["min_compute_capability"], "cuda": versions["cuda"],
            "features": tuple(sorted(features)), "bare_metal": bool(bare_metal), "dedicated": bool(dedicated)}


def _network_arguments(min_network_gbps: Any, fabric: Any, min_local_disk: Any, local_nvme: Any,
                       nodes: Any) -> dict[str, Any]:
    """The network and cluster arguments as :class:`Query` fields (see :mod:`gpuhub.answer.network`): bandwidth in
    Gbps and disk in GiB up to :data:`~gpuhub.answer.network.MAX_FIGURE`, ``fabric`` from
    :data:`~gpuhub.answer.network.FABRIC_CHOICES`, ``nodes`` a whole number from 1 to
    :data:`~gpuhub.answer.network.MAX_NODES`."""
    from gpuhub.answer.network import FABRIC_CHOICES, MAX_FIGURE, MAX_NODES

    bounds: dict[str, float | None] = {}
    for name, value in (("min_network_gbps", min_network_gbps), ("min_local_disk", min_local_disk)):
        bounds[name] = _number(name, value)
        if bounds[name] is not None and bounds[name] > MAX_FIGURE:  # type: ignore[operator]
            raise QueryError(name, f"must be at most {MAX_FIGURE:.0f}, got {given(value)}")
    if fabric is not None and not _tuple("fabric", fabric):
        raise QueryError("fabric", f"is empty; allowed values: {', '.join(FABRIC_CHOICES)}")
    fabrics = _choose("fabric", _tuple("fabric", fabric), list(FABRIC_CHOICES))
    count = 1
    if nodes is not None:
        try:
            number = _number("nodes", nodes, integer=True)
        except QueryError:
            number = None
        if number is None or not 1 <= number <= MAX_NODES:
            raise QueryError("nodes", f"must be a whole number from 1 to {MAX_NODES}, got {given(nodes)}")
        count = int(number)
    return {"min_network_gbps": bounds["min_network_gbps"], "fabrics": tuple(sorted(set(fabrics))),
            "min_local_disk_gib": bounds["min_local_disk"], "local_nvme": bool(local_nvme), "nodes": count}


def _obtain_arguments(max_interruption: Any, min_placement_score: Any, launchable: Any,
                      checkpoint_every: Any) -> dict[str, Any]:
    """The obtainability arguments as :class:`Query` fields (see :mod:`gpuhub.obtain`)."""
    pct = _number("max_interruption", max_interruption)
    if pct is not None and pct > 100:
        raise QueryError("max_interruption", f"is a percentage from 0 to 100, got {given(max_interruption)}")
    try:
        score = _number("min_placement_score", min_placement_score, integer=True)
    except QueryError:
        score = -1.0
    if score is not None and not 1 <= score <= 10:
        raise QueryError("min_placement_score",
                         f"must be a whole number from 1 to 10, got {given(min_placement_score)}")
    every = _number("checkpoint_every", checkpoint_every)
    if every is not None and every <= 0:
        raise QueryError("checkpoint_every", f"must be a positive number of hours, got {given(checkpoint_every)}")
    return {"max_interruption_pct": pct, "min_placement_score": int(score) if score is not None else None,
            "launchable": bool(launchable), "checkpoint_every_h": every if every is not None else 1.0}
