"""The search form's controls, one per parameter of :func:`gpuhub.answer.params.search_params`, grouped in
fieldsets; a parameter no group names (a filter added later) lands in "More" with a control for its kind."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gpuhub.answer.params import PAGE_EXCLUDED, Param, search_params
from gpuhub.answer.spec import SEARCH_PARAMS, Choices
from gpuhub.fetch.plugins import Registry

__all__ = ["Field", "form_fields"]

GROUPS = (
    ("GPU", ("gpu", "min_gpus", "max_gpus", "min_vram", "min_total_vram", "exclude_fractional",
             "include_accelerators", "mig", "nvlink", "instance_type")),
    ("Host", ("min_vcpus", "min_memory")),
    ("Price and purchase", ("max_price", "currency", "purchase", "available")),
    ("Where", ("provider", "provider_kind", "region", "country", "continent", "near", "max_rtt", "max_carbon")),
    ("Workload and ranking", ("workload", "model", "precision", "mode", "sort", "all_regions", "limit")),
    ("Table", ("columns", "wide")),
)


@dataclass
class Field:
    """One control: the parameter, its widget (``checkbox``, ``checkboxes``, ``select``, ``number``, ``text``),
    choices, the values the request gave, and a datalist of suggestions."""

    param: Param
    widget: str
    choices: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)

    @property
    def value(self) -> str:
        """The request's values for this control, comma-separated."""
        return ",".join(self.values)


def _choices(registry: Registry) -> dict[str, list[str]]:
    """URL name -> allowed values, for the parameters whose values are a closed set
    (:attr:`gpuhub.answer.spec.SearchParam.allowed`)."""
    given = Choices(providers=sorted(registry.providers), rankers=list(registry.rankers))
    return {p.url_name: p.allowed(given) for p in SEARCH_PARAMS if p.allowed is not None}


def form_fields(registry: Registry, values: Callable[[str], Sequence[str]]) -> list[tuple[str, list[Field]]]:
    """(legend, fields) per fieldset, filled with the request's values."""
    choices = _choices(registry)
    fields: dict[str, Field] = {}
    for param in search_params():
        if param.name in PAGE_EXCLUDED:
            continue
        raw = [v.strip() for v in values(param.name) if v.strip()]
        given = [part.strip() for v in raw for part in v.split(",") if part.strip()] if param.kind == "list" else raw
        options = choices.get(param.name, [])
        if param.kind == "flag":
            widget = "checkbox"
        elif options:
            widget = "checkboxes" if param.kind == "list" else "select"
        else:
            widget = "number" if param.kind in ("number", "integer") else "text"
        suggestions = [s.name for s in registry.gpus.specs] if param.name == "gpu" else []
        fields[param.name] = Field(param, widget, options, given, suggestions)
    groups = [(legend, [fields.pop(n) for n in names if n in fields]) for legend, names in GROUPS]
    if fields:
        groups.append(("More", list(fields.values())))
    return [(legend, group) for legend, group in groups if group]
