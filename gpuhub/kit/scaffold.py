"""``gpuhub plugin new NAME``: write a provider plugin package that installs, is listed by ``gpuhub plugins``,
bundles a recording and passes the conformance kit (:mod:`gpuhub.kit.testing`) unchanged.

The package (``gpuhub-NAME/``)::

    pyproject.toml                entry point in the "gpuhub" group; the recording shipped as package data
    README.md                     what to change first
    gpuhub_NAME/__init__.py       the Provider, its regions (register_regions: city, country, continent,
                                  coordinates, grid carbon) and the hooks
    gpuhub_NAME/recording/        manifest.json + offers.json: the replayable answer of the API (the core finds
                                  it there by itself: Provider.fixtures_dir's default)
    tests/test_conformance.py     the conformance kit, subclassed
"""

from __future__ import annotations

import json
import re
from pathlib import Path

__all__ = ["new_plugin"]

_NAME = re.compile(r"^[a-z][a-z0-9]*$")

_MODULE = '''"""The {name} provider: GPU offers of an internal cloud, from its ``GET /v1/offers`` API.

Answer shape: a JSON list of ``{{"type", "gpu", "gpus", "vcpus", "ram_gib", "region", "usd_per_hour", "available"}}``.
Replays ``recording/`` (bundled) when ``{env}`` is not set; goes live when it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from gpuhub.plugin import Credential, Instance, Offer, Price, Provider, ProviderContext, RegionFacts, hookimpl


class {cls}(Provider):
    name = "{name}"
    kind = "internal"
    base_url = "https://gpus.{name}.example"
    credentials = (Credential(("{env}",), "an API token of the {name} GPU API"),)

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        token = ctx.require_secret("{env}")  # None when replaying the bundled recording
        headers = {{"Authorization": f"Bearer {{token.get_secret_value()}}"}} if token else {{}}
        items: Any = ctx.get_json(f"{{ctx.base_url()}}/v1/offers", headers=headers)
        for item in items:
            with ctx.guard("offer"):  # a malformed record is skipped and counted, not raised
                instance = Instance(provider=self.name, instance_type=item["type"], gpu=ctx.gpu(item["gpu"]),
                                    gpu_count=item["gpus"], vcpus=item.get("vcpus"),
                                    memory_gib=item.get("ram_gib"))
                price = Price(amount=Decimal(str(item["usd_per_hour"])), currency="USD",
                              purchase="on_demand")
                yield Offer(instance=instance, region=ctx.region(item["region"]), price=price,
                            available=item.get("available"), source=ctx.source)


@hookimpl
def register_providers(register: Callable[[Provider], None]) -> None:
    register({cls}())


@hookimpl
def register_regions(register: Callable[[RegionFacts], None]) -> None:
    # Where the regions are: --near, --max-rtt, --continent, --country and carbon ranking use these facts.
    register(RegionFacts(provider="{name}", region="{name}-fra", city="Frankfurt", country="DE",
                         continent="Europe", lat=50.11, lon=8.68, carbon_gco2e_per_kwh=276.0,
                         carbon_year="2024", carbon_source="your facilities team's figure"))
    register(RegionFacts(provider="{name}", region="{name}-iad", city="Ashburn", country="US",
                         continent="North America", lat=39.04, lon=-77.49))
'''

_PYPROJECT = '''[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "gpuhub-{name}"
version = "0.1.0"
description = "gpuhub provider plugin for the {name} GPU cloud"
readme = "README.md"
requires-python = ">=3.10"
dependencies = ["gpuhub-core>=0.1,<0.2"]

[project.optional-dependencies]
test = ["pytest>=8"]

[project.entry-points.gpuhub]
{name} = "gpuhub_{name}"

[tool.setuptools]
packages = ["gpuhub_{name}"]

[tool.setuptools.package-data]
gpuhub_{name} = ["recording/*"]
'''

_TEST = '''from gpuhub.plugin import ProviderConformance


class Test{cls}Conformance(ProviderConformance):
    provider_name = "{name}"
    empty_body = b"[]"
'''

_README = '''# gpuhub-{name}

A gpuhub provider plugin written by `gpuhub plugin new {name}`.

```bash
pip install -e ".[test]"        # into the environment gpuhub is in
gpuhub plugins                  # lists {name}
gpuhub search --provider {name} --near Frankfurt
python -m pytest tests          # the conformance kit
```

Change first: `base_url` and `fetch()` in `gpuhub_{name}/__init__.py` (how your API answers), the regions in
`register_regions` (city, country, continent, coordinates, grid carbon), and the recording in
`gpuhub_{name}/recording/` (`gpuhub record {name}` replaces it with a live capture, secrets scrubbed; `{env}`
set means live). Then fill in the sections below; every one is a question a user (and a reviewer) asks.

**Coverage.** Which instance types, GPU models, purchase models and regions, and how many offers the bundled
recording gives; what is left out and why.

**Live API.** Endpoints, auth, paging, price unit; where their shape is documented. No API whose answer shape you
can establish? Make the plugin a dated static price table (`static = True`, no HTTP; `plugins/gpuhub-nebius` is
one) and say so here and in a `ctx.warn`, never an invented shape.

**Credentials and settings.** `{env}` and every other variable the code reads (also one line in gpuhub's README
table). An internal cloud whose API knows no prices or places (a scheduler, a cluster manager) reads them from the
settings file every internal plugin shares: `site_settings_path("{name}", environ)` and `load_site_settings` from
`gpuhub.plugin` give `[rates]` per GPU-hour, `[gpu_names]` and a `[clusters.<region>]` place per cluster
(`site_region` turns it into a region); gpuhub-kubernetes and gpuhub-slurm use it.

**Data source and date.** Where the recording comes from, the script that rebuilds it, and the date of the prices
themselves (`data_date` in `recording/manifest.json`; `null` with a `data_date_note` when unknown, never the build
date). Declare how often prices change (`price_change_period_s` on the provider).

**Checks on every record.** Skip and count (`ctx.guard`, `ctx.skip`) CPU-only rows, placeholder prices
(`placeholder_price`), unknown region names; read prices with `decimal_amount` and GPU memory with `checked_gpu`
(MiB for GB, a total for per-GPU: warned, not trusted). All from `gpuhub.plugin`.
'''


def _offers(name: str) -> list[dict[str, object]]:
    return [
        {"type": "a100.1", "gpu": "A100-80GB", "gpus": 1, "vcpus": 16, "ram_gib": 120, "region": f"{name}-fra",
         "usd_per_hour": "1.10", "available": True},
        {"type": "h100.8", "gpu": "H100", "gpus": 8, "vcpus": 192, "ram_gib": 1800, "region": f"{name}-fra",
         "usd_per_hour": "18.40", "available": False},
        {"type": "a100.1", "gpu": "A100-80GB", "gpus": 1, "vcpus": 16, "ram_gib": 120, "region": f"{name}-iad",
         "usd_per_hour": "0.95", "available": True},
    ]


def new_plugin(name: str, directory: Path) -> Path:
    """Write the plugin package ``gpuhub-<name>`` under ``directory``; returns its path.

    Raises:
        ValueError: ``name`` is not lower-case letters and digits starting with a letter, names a provider this
            project ships (``aws``: its plugin is ``gpuhub-aws``) or a distribution already installed, or the
            target exists.
    """
    if not _NAME.match(name):
        raise ValueError(f"plugin name {name!r}: use lower-case letters and digits, starting with a letter "
                         "(it becomes the provider name and the package gpuhub_<name>)")
    from importlib import metadata

    from gpuhub.bundled import BUNDLED_PROVIDERS

    owner = BUNDLED_PROVIDERS.get(name)
    if owner is not None:
        raise ValueError(f"{name!r} is the provider of the existing plugin {owner} (a second package of that name "
                         f"would be refused as an impostor or shadow it): choose another name, e.g. my{name}")
    try:
        installed = metadata.distribution(f"gpuhub-{name}")
    except metadata.PackageNotFoundError:
        installed = None
    if installed is not None:
        raise ValueError(f"a distribution named gpuhub-{name} is already installed ({installed.version}): choose "
                         "another name")
    root = directory / f"gpuhub-{name}"
    if root.exists():
        raise ValueError(f"{root} already exists")
    cls = name.capitalize() + "Cloud"
    env = f"{name.upper()}_TOKEN"
    values = {"name": name, "cls": cls, "env": env}
    package = root / f"gpuhub_{name}"
    (package / "recording").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text(_PYPROJECT.format(**values), encoding="utf-8")
    (root / "README.md").write_text(_README.format(**values), encoding="utf-8")
    (package / "__init__.py").write_text(_MODULE.format(**values), encoding="utf-8")
    (root / "tests" / "test_conformance.py").write_text(_TEST.format(**values), encoding="utf-8")
    manifest = {"format": 1, "provider": name, "recorded_at": "2026-12-01", "data_date": "2026-12-01",
                "data_date_note": "example offers: put the date of your prices here (null when unknown)",
                "kind": "reconstructed",
                "source": "example offers written by gpuhub plugin new", "notes": "replace with gpuhub record",
                "exchanges": [{"request": {"method": "GET", "url": f"https://gpus.{name}.example/v1/offers",
                                           "body": None},
                               "response": {"status": 200, "headers": {"content-type": "application/json"},
                                            "body_file": "offers.json"}}]}
    (package / "recording" / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    (package / "recording" / "offers.json").write_text(json.dumps(_offers(name), indent=1) + "\n", encoding="utf-8")
    return root
