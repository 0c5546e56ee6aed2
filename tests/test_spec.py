"""One parameter spec (issue 32): ``gpuhub search``'s options, :func:`gpuhub.search`, ``build_query``, the web form,
the API and the OpenAPI description all agree with :data:`gpuhub.answer.spec.SEARCH_PARAMS`."""

from __future__ import annotations

import inspect
import json
import re
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

import gpuhub
import gpuhub.cli.commands as commands
from gpuhub.answer.params import PAGE_EXCLUDED, query_kwargs, search_params
from gpuhub.answer.query import build_query
from gpuhub.answer.spec import FILTER_PARAMS, OUTPUT_PARAMS, SEARCH_PARAMS, Choices, SearchParam
from gpuhub.errors import QueryError

RUN_OPTIONS = {"fixtures_dir", "fetch", "refresh", "timeout", "engine", "max_age", "start"}
"""search()'s arguments about where data comes from (not search parameters)."""
CONTEXT = {"gpus", "providers", "sellers", "rankers"}
"""build_query's arguments that are the installation's, not the user's (GPU table, providers, sellers, rankers)."""
BY_NAME = {p.name: p for p in FILTER_PARAMS}
"""The filters: search() and build_query take each (the output parameters, columns and wide, they do not)."""


def test_names_flags_and_url_names_are_unique() -> None:
    for attribute in ("name", "option", "url_name"):
        values = [getattr(p, attribute) for p in SEARCH_PARAMS]
        assert len(values) == len(set(values)), attribute
    shorts = [p.short for p in SEARCH_PARAMS if p.short]
    assert shorts == ["-g", "-p", "-r"]


def test_search_takes_every_parameter_with_its_default() -> None:
    signature = inspect.signature(gpuhub.search).parameters
    assert set(signature) - RUN_OPTIONS == set(BY_NAME)
    assert {name: signature[name].default for name in BY_NAME} == {p.name: p.default for p in FILTER_PARAMS}


def test_build_query_takes_every_parameter_with_its_default() -> None:
    signature = inspect.signature(build_query).parameters
    assert set(signature) - CONTEXT == set(BY_NAME)
    assert {name: signature[name].default for name in BY_NAME} == {p.name: p.default for p in FILTER_PARAMS}


def test_search_docstring_describes_every_parameter() -> None:
    args = (gpuhub.search.__doc__ or "").split("Args:")[1].split("Returns:")[0]
    assert [p.name for p in FILTER_PARAMS if not re.search(rf"\b{p.name}\b", args)] == []


def _cli_options() -> dict[str, Any]:
    command = typer.main.get_command(commands.app).commands["search"]  # type: ignore[attr-defined]
    return {p.name: p for p in command.params}


@pytest.mark.parametrize("param", SEARCH_PARAMS, ids=lambda p: p.name)
def test_the_cli_option_is_the_spec(param: SearchParam) -> None:
    option = _cli_options()[param.name]
    assert option.opts == [param.option, *([param.short] if param.short else [])]
    assert (option.help, option.default, option.multiple) == (param.help, param.flag_default, param.kind == "list")
    assert option.is_flag == (param.kind == "flag")
    assert option.metavar == param.metavar  # what --help says to give (NAME, GIB, AMOUNT), from the spec


@pytest.mark.parametrize("param", SEARCH_PARAMS, ids=lambda p: p.name)
def test_every_option_with_a_value_names_it(param: SearchParam) -> None:
    """A value's metavar is upper case, click's style (``GIB``, ``GCO2E/KWH``); a flag takes no value, has none."""
    if param.kind == "flag":
        assert param.metavar is None
    else:
        assert param.metavar is not None and re.fullmatch(r"[A-Z][A-Z0-9]*(/[A-Z0-9]+)?", param.metavar)


def test_the_cli_passes_each_value_to_build_query(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def capture(**kwargs: Any) -> Any:
        seen.update(kwargs)
        raise QueryError("gpu", "captured")

    import gpuhub.answer.query

    monkeypatch.setattr(gpuhub.answer.query, "build_query", capture)  # read by gpuhub.cli.search.run_search
    run = CliRunner().invoke(commands.app, ["search", "-g", "H100", "--gpu", "A100", "--min-gpus", "8",
                                            "--all-regions", "--mode", "training", "--mig", "--limit", "3",
                                            "--max-price", "40.5", "-p", "aws"])
    assert run.exit_code == 2 and "--gpu: captured" in run.stderr
    given = {"gpu": ["H100", "A100"], "min_gpus": 8.0, "distinct": False, "mode": "training", "mig_capable": True,
             "limit": 3, "max_price": "40.5", "provider": ["aws"]}
    expected = {p.name: (not p.flag_default) if p.inverted else p.flag_default for p in FILTER_PARAMS} | given
    assert {k: v for k, v in seen.items() if k not in CONTEXT} == expected


def test_the_web_reads_the_spec() -> None:
    assert [(p.name, p.kind, p.help, p.argument, p.inverted) for p in search_params()] == [
        (s.url_name, s.kind, s.help, s.name, s.inverted) for s in SEARCH_PARAMS]
    assert {"group_by"} == PAGE_EXCLUDED
    values = {"all_regions": ["true"], "min_gpus": ["8"], "mode": ["training"], "gpu": ["H100,A100"]}
    assert query_kwargs(lambda name: values.get(name, [])) == {
        "gpu": ["H100,A100"], "min_gpus": "8", "mode": "training", "distinct": False, "limit": 20}


def test_columns_and_wide_are_output_parameters_of_the_cli_page_and_api() -> None:
    assert [p.name for p in OUTPUT_PARAMS] == ["columns", "wide"]
    assert BY_NAME.keys().isdisjoint({"columns", "wide"})
    assert {"columns", "wide"} <= {p.name for p in search_params()}
    assert SEARCH_PARAMS[-2].allowed(Choices())[:6] == [  # type: ignore[misc]
        "price", "per_gpu", "gpu", "provider", "instance_type", "region"]
    bad = CliRunner().invoke(commands.app, ["search", "--columns", "price,colour"])
    assert bad.exit_code == 2
    assert "--columns: 'colour' is not a column; allowed values: price, per_gpu, gpu," in bad.stderr


def test_allowed_values_come_from_the_facts_and_the_registry() -> None:
    choices = Choices(providers=["lambda", "aws"], rankers=["price", "training", "inference"])
    assert BY_NAME["provider"].allowed(choices) == ["aws", "lambda"]  # type: ignore[misc]
    assert BY_NAME["workload"].allowed(choices) == ["training", "inference"]  # type: ignore[misc]
    assert BY_NAME["mode"].allowed(choices) == ["inference", "fine-tuning", "training"]  # type: ignore[misc]
    assert BY_NAME["continent"].allowed(choices)[:2] == ["Africa", "Asia"]  # type: ignore[misc]
    assert {"on_demand", "spot", "capacity_block"} <= set(BY_NAME["purchase"].allowed(choices))  # type: ignore[misc]


def test_max_price_per_gpu_from_the_spec_alone_reaches_the_library_cli_and_api() -> None:
    """The filter added as one spec entry plus its implementation (build_query, Query, the catalog's mask): Lambda's
    bundled H100 prices (2.49, 3.29, 6.38 for 2, 12.36 for 4, 23.92 for 8 GPUs) at most 3 per GPU-hour; ``-p lambda``
    matches the seller too, so Lambda's machines through Shadeform (lambdalabs_H100 2.49, lambdalabs_H100-sxm5x8
    23.92) and Prime Intellect (8 x H100 23.92) are there, at the same prices (skypilot-catalog)."""
    result = gpuhub.search(gpu="H100", provider="lambda", max_price_per_gpu="3", fetch="replay", distinct=True)
    assert [(o.provider, o.instance_type, str(o.price.amount)) for o in result] == [
        ("lambda", "gpu_1x_h100_pcie", "2.49"), ("shadeform", "lambdalabs_H100", "2.49"),
        ("lambda", "gpu_8x_h100_sxm5", "23.92"), ("primeintellect", "lambdalabs__8xH100_80GB__208__1800", "23.92"),
        ("shadeform", "lambdalabs_H100-sxm5x8", "23.92")]
    assert {o.seller for o in result} == {"lambda"}
    assert result.removed_by["max_price_per_gpu"] == 58
    run = CliRunner().invoke(commands.app, ["search", "--gpu", "H100", "-p", "lambda", "--max-price-per-gpu",
                                            "3", "--fetch", "replay", "--format", "json"])
    assert run.exit_code == 0, run.stderr
    assert sorted((r["provider"], r["instance_type"]) for r in json.loads(run.stdout)) == [
        ("lambda", "gpu_1x_h100_pcie"), ("lambda", "gpu_8x_h100_sxm5"),
        ("primeintellect", "lambdalabs__8xH100_80GB__208__1800"), ("shadeform", "lambdalabs_H100"),
        ("shadeform", "lambdalabs_H100-sxm5x8")]
    assert query_kwargs(lambda name: ["3"] if name == "max_price_per_gpu" else []) == {
        "max_price_per_gpu": "3", "distinct": True, "limit": 20}
    with pytest.raises(QueryError, match="expected a number, got 'cheap'") as info:
        gpuhub.search(max_price_per_gpu="cheap", fetch="replay")
    assert info.value.argument == "max_price_per_gpu"
