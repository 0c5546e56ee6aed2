"""The search parameters, once: name, kind, default, allowed values, help text with units and CLI flag.

Everything that takes a search's filters is generated from or checked against :data:`SEARCH_PARAMS`:

- ``gpuhub search``'s options (:func:`gpuhub.cli.commands.search`) are generated from it;
- the web page's form, ``/api/search``'s parameters and the OpenAPI description (:mod:`gpuhub.answer.params`) too;
- :func:`gpuhub.search` and :func:`gpuhub.answer.query.build_query` take every parameter by its
  :attr:`~SearchParam.name` with its library default (``tests/test_spec.py`` checks the two signatures and the
  docstring against this table; the CLI and ``search()`` pass the values on with :func:`filter_values` or as a
  dict, never name by name).

A new filter is one :class:`SearchParam` here plus its implementation (the ``build_query`` argument that validates
it, the :class:`~gpuhub.answer.query.Query` field and the catalog's mask). This module imports nothing heavy (the
command line builds its options from it at start-up).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["FILTER_PARAMS", "OUTPUT_PARAMS", "SEARCH_PARAMS", "Choices", "Kind", "SearchParam", "cli_option",
           "filter_values", "param"]

Kind = Literal["list", "number", "integer", "text", "flag"]
"""How a value is given: ``list`` (repeatable, or comma-separated in a URL), ``number`` (float), ``integer``,
``text`` (parsed by ``build_query``: a price, a version, a size) or ``flag`` (on/off)."""


@dataclass(frozen=True)
class Choices:
    """What the allowed values of some parameters depend on: the installed providers and the registered rankers."""

    providers: Sequence[str] = ()
    rankers: Sequence[str] = ()


@dataclass(frozen=True)
class SearchParam:
    """One search parameter.

    Attributes:
        name: the keyword of :func:`gpuhub.search` and ``build_query`` (``min_gpus``).
        kind: see :data:`Kind`.
        help: one line for ``--help``, the form and OpenAPI, with the unit (``minimum usable VRAM per GPU, GiB``).
        metavar: what ``--help`` shows the option takes, upper case, with the unit where the value has one
            (``GIB``, ``HOURS``, ``MS``) or else what to give (``NAME``, ``CODE``, ``AMOUNT``: a price is in the
            offer's own currency); None for a flag, which takes no value.
        default: the library's default (``search()``, ``build_query``).
        flag: the CLI option (``--min-gpus``; the default is the name with dashes); the URL parameter is the flag
            without its dashes (``min_gpus``, ``mode``, ``all_regions``).
        short: a one-letter CLI alias (``-g``), or None.
        cli_default: the CLI's and the API's default where it differs from the library's (``limit``: 20).
        inverted: the flag is the negation of the argument (``--all-regions`` is ``distinct=False``; so the CLI and
            the API are distinct by default, the library is not).
        allowed: the allowed values (a function of the installed providers and rankers), when they are a closed set;
            ``build_query`` enforces them and names them in its errors.
        page: the web page's form shows it (``group_by`` is for the API: the page's table shows offers).
        output: how the answer is shown, not which offers match (``columns``, ``wide``): the CLI, the page and the
            API take it; :func:`gpuhub.search` and ``build_query`` do not.
    """

    name: str
    kind: Kind
    help: str
    metavar: str | None = None
    default: Any = None
    flag: str | None = None
    short: str | None = None
    cli_default: Any = None
    inverted: bool = False
    allowed: Callable[[Choices], list[str]] | None = None
    page: bool = True
    output: bool = False

    @property
    def option(self) -> str:
        """The CLI option, ``--min-gpus``."""
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def url_name(self) -> str:
        """The URL (and form) parameter, ``min_gpus``."""
        return self.option.removeprefix("--").replace("-", "_")

    @property
    def flag_default(self) -> Any:
        """The default of the CLI option and the URL parameter (the flag's own value for an inverted flag)."""
        if self.cli_default is not None:
            return self.cli_default
        return False if self.kind == "flag" else self.default


def param(name: str, kind: Kind, help: str, **more: Any) -> SearchParam:
    """A :class:`SearchParam` (keyword arguments as its attributes); a flag's library default is False."""
    if kind == "flag":
        more.setdefault("default", False)
    return SearchParam(name, kind, help, **more)


def _purchase(_: Choices) -> list[str]:
    from gpuhub.purchase import known_purchase_models

    return list(known_purchase_models())


def _continents(_: Choices) -> list[str]:
    from gpuhub.facts.regions import CONTINENTS

    return list(CONTINENTS)


def _modes(_: Choices) -> list[str]:
    from gpuhub.facts.modelfit import MODES

    return list(MODES)


def _precisions(_: Choices) -> list[str]:
    from gpuhub.facts.modelfit import BYTES_PER_PARAMETER

    return list(BYTES_PER_PARAMETER)


def _workloads(c: Choices) -> list[str]:
    from gpuhub.answer.query import WORKLOADS

    return [w for w in WORKLOADS if w in c.rankers]


def _columns(_: Choices) -> list[str]:
    from gpuhub.answer.columns import column_names

    return column_names()


def _provider_kinds(_: Choices) -> list[str]:
    from gpuhub.answer.query import PROVIDER_KINDS

    return list(PROVIDER_KINDS)


SEARCH_PARAMS: tuple[SearchParam, ...] = (
    param("gpu", "list", "GPU name or alias, repeatable", metavar="NAME", flag="--gpu", short="-g"),
    param("min_gpus", "number", "minimum GPUs per instance", metavar="COUNT"),
    param("max_gpus", "number", "maximum GPUs per instance", metavar="COUNT"),
    param("min_vram", "number", "minimum usable VRAM per GPU, GiB", metavar="GIB"),
    param("min_total_vram", "number", "minimum VRAM of the instance, GiB", metavar="GIB"),
    param("min_vcpus", "number", "minimum vCPUs", metavar="COUNT"),
    param("min_memory", "number", "minimum host RAM, GiB", metavar="GIB"),
    param("provider", "list", "provider name(s)", metavar="NAME", short="-p", allowed=lambda c: sorted(c.providers)),
    param("instance_type", "list", "instance type name(s), exact", metavar="TYPE"),
    param("region", "list", "region or zone code(s)", metavar="CODE", short="-r"),
    param("country", "list", "ISO country code(s), e.g. US, DE", metavar="CODE"),
    param("continent", "list", "continent(s), e.g. Europe", metavar="NAME", allowed=_continents),
    param("purchase", "list", "on_demand, spot, low_priority, reserved_1y, ...", metavar="MODEL", allowed=_purchase),
    param("max_price", "text", "maximum price per instance-hour, in the offer's currency", metavar="AMOUNT"),
    param("max_price_per_gpu", "text", "maximum price per GPU-hour, in the offer's currency (instance price / GPUs, "
          "fractions included)", metavar="AMOUNT"),
    param("currency", "text", "only prices in this ISO 4217 currency", metavar="CODE"),
    param("exclude_fractional", "flag", "drop offers with part of one GPU"),
    param("include_accelerators", "flag", "keep non-GPU accelerators (Trainium, ...)"),
    param("provider_kind", "list", "hyperscaler, specialist, internal, other", metavar="KIND",
          allowed=_provider_kinds),
    param("mig_capable", "flag", "only MIG-capable GPUs", flag="--mig"),
    param("nvlink", "flag", "only multi-GPU instances linked by NVLink/NVSwitch"),
    param("available_only", "flag", "only offers launchable now", flag="--available"),
    param("max_interruption", "number",
          "spot: highest interruption bucket, percent (bucket upper bound from the source; unknown never passes)",
          metavar="PERCENT"),
    param("min_placement_score", "integer", "spot: lowest AWS placement score, 1-10", metavar="SCORE"),
    param("launchable", "flag", "only offers quota and capacity allow"),
    param("checkpoint_every", "number", "hours between checkpoints: spot expected cost (training preset)",
          metavar="HOURS"),
    param("min_compute_capability", "text", "CUDA compute capability at least, e.g. 8.0 (A100), 9.0 (Hopper)",
          metavar="VERSION"),
    param("feature", "list", "GPU feature, repeatable: fp8, transformer-engine, tensor-cores, mig", metavar="NAME"),
    param("cuda", "text", "only GPUs this CUDA release supports, e.g. 12.4", metavar="VERSION"),
    param("min_network_gbps", "number", "minimum baseline network bandwidth, Gbps", metavar="GBPS"),
    param("fabric", "list", "RDMA fabric between instances: efa, infiniband, roce, gpudirect, any", metavar="NAME",
          allowed=lambda _: ["efa", "infiniband", "roce", "gpudirect", "any"]),
    param("min_local_disk", "number", "minimum local (instance) disk, GiB", metavar="GIB", flag="--min-local-disk-gib"),
    param("local_nvme", "flag", "only instances with local NVMe disks"),
    param("nodes", "integer", "identical instances for one job (multi-node): only types with an RDMA fabric; "
          "cluster price = price x nodes", metavar="COUNT"),
    param("bare_metal", "flag", "only bare-metal instances"),
    param("dedicated", "flag", "only instances on a host of their own"),
    param("workload", "text", "training, inference, data-science, rendering or scientific", metavar="NAME",
          allowed=_workloads),
    param("model", "text", "model size to fit, e.g. 70b, 7B, 350m", metavar="SIZE"),
    param("precision", "text", "model precision: bf16 (default), fp16, fp8, int4", metavar="NAME", allowed=_precisions),
    param("mode", "text", "inference, fine-tuning or training (default: training with --workload training, else "
                          "inference)", metavar="MODE", allowed=_modes),
    param("near", "text", "city, country, region code or 'lat,lon' of users/data", metavar="PLACE"),
    param("max_rtt", "number", "longest estimated round trip from --near, ms", metavar="MS"),
    param("rtt_budget", "number",
          "--workload inference --near: real-time round-trip budget, ms (default 50); offers within it rank first",
          metavar="MS"),
    param("group_by", "list", "instance-type, gpu, provider, region (combinable: gpu,provider): one row per group",
          metavar="KEY", page=False),
    param("distinct", "flag", "every offer, not one row per instance type and purchase model", flag="--all-regions",
          inverted=True),
    param("max_carbon", "number", "highest grid intensity, gCO2e/kWh", metavar="GCO2E/KWH"),
    param("sort", "text", "price, price_per_gpu, price_per_vram, a workload, carbon, latency, or a plugin's ranker",
          metavar="RANKER", allowed=lambda c: list(c.rankers)),
    param("limit", "integer", "at most this many offers", metavar="COUNT", cli_default=20),
    param("columns", "list", "table columns, comma-separated, in this order: price, per_gpu, gpu, provider, "
          "instance_type, region, purchase, score, vram, avail, vcpus, ram, cpu, interruption, source, network, nodes "
          "(default: the most important that fit the terminal)", metavar="NAMES", allowed=_columns, output=True),
    param("wide", "flag", "every table column, whatever the terminal's width", output=True),
)
"""Every search parameter, in the order of ``gpuhub search --help`` and the API's description."""

FILTER_PARAMS: tuple[SearchParam, ...] = tuple(p for p in SEARCH_PARAMS if not p.output)
"""The parameters that choose and rank offers: the arguments of :func:`gpuhub.search` and ``build_query``."""
OUTPUT_PARAMS: tuple[SearchParam, ...] = tuple(p for p in SEARCH_PARAMS if p.output)
"""The parameters that choose how the answer is shown (table columns)."""


def filter_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """The filter parameters among ``values`` (e.g. a function's ``locals()``), by :attr:`SearchParam.name`.

    Raises:
        KeyError: a parameter of :data:`FILTER_PARAMS` is not in ``values``.
    """
    return {p.name: values[p.name] for p in FILTER_PARAMS}


def cli_option(name: str) -> str:
    """The ``gpuhub search`` option of the search parameter ``name`` (``available_only`` → ``--available``); for
    any other name (an argument of another command), the name with dashes."""
    spec = next((p for p in SEARCH_PARAMS if p.name == name), None)
    return spec.option if spec is not None else "--" + name.replace("_", "-")
