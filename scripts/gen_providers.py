"""Write ``docs/providers.md``, the coverage page, from the installed provider plugins.

Usage (from the repository root, with every plugin installed): ``python scripts/gen_providers.py [--check]``.
``--check`` writes nothing and exits 1 when the page differs from what the installed plugins give.

Each provider's section is computed, never typed: its bundled data is replayed (no network) and the page lists
what the offers say (regions, instance types, GPU models, purchase models, where availability comes from) and what
the provider and its recording declare (live API root and the credentials it reads, the bundled data's kind,
source and date; "unknown" when the source has no date). ``tests/test_providers_page.py`` regenerates the section
of every installed plugin and fails when the page has drifted.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from gpuhub import Engine, Offer, Registry
from gpuhub.plugin import Provider, ProviderStatus, load_manifest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "providers.md"
HEADER = """# Providers

What each provider plugin covers, generated from the installed plugins by `python scripts/gen_providers.py`
(do not edit by hand: `tests/test_providers_page.py` fails when a section no longer matches its plugin). Figures
come from each plugin's bundled data (a recording or a static table, replayed offline); live answers can hold more.

| provider | kind | regions | instance types | GPU models | purchase models | live API | bundled data |
|---|---|---|---|---|---|---|---|
"""
SECTION = "## "
_MAX_REGIONS = 12


def _join(items: Iterable[str], limit: int | None = None) -> str:
    names = sorted(set(items))
    if limit is not None and len(names) > limit:
        return ", ".join(names[:limit]) + f", … (+{len(names) - limit})"
    return ", ".join(names) or "none"


def _live(provider: Provider) -> str:
    if provider.static:
        return "none: static table"
    secrets = [name for credential in provider.credentials for name in credential.env]
    auth = ", ".join(f"`{name}`" for name in secrets) if secrets else "no key (public)"
    return f"`{provider.base_url or '(settings)'}`; {auth}"


def _dates(offers: Sequence[Offer]) -> str:
    """The dates of the bundled prices (each offer's own ``data_date``): one date, a range, or "unknown"."""
    dated = sorted(d for d in (o.data_date for o in offers) if d is not None)
    if not dated:
        return "data date unknown"
    undated = len(offers) - len(dated)
    span = dated[0].isoformat() if dated[0] == dated[-1] else f"{dated[0].isoformat()} … {dated[-1].isoformat()}"
    return f"data date {span}" + (f" ({undated} prices undated)" if undated else "")


def _bundled(provider: Provider, offers: Sequence[Offer]) -> tuple[str, str]:
    """The bundled data's kind and the dates of its prices ("unknown" when its source has none), and its source."""
    directory = provider.fixtures_dir()
    if directory is None or not (directory / "manifest.json").is_file():
        return "none", "no bundled data"
    manifest = load_manifest(directory)
    return f"{manifest.kind}, {_dates(offers)}", manifest.source


def _period(seconds: float) -> str:
    hours = seconds / 3600
    return f"{hours / 24:g} days" if hours >= 48 else f"{hours:g} hours"


def _availability(offers: Sequence[Offer]) -> str:
    said = {o.available for o in offers}
    if said <= {None}:
        return "not in the bundled data (`available` is unknown)"
    return "the provider's capacity answer (`available` true/false per offer)"


def section(provider: Provider, offers: Sequence[Offer], status: ProviderStatus) -> tuple[str, str]:
    """The summary-table row and the section of one provider, from its replayed offers and its declarations."""
    regions = [o.region.code for o in offers]
    gpus = [o.instance.gpu.name for o in offers if o.instance.gpu is not None and o.instance.gpu.known]
    unknown = sorted(status.unknown_gpus)
    purchases = [o.price.purchase for o in offers]
    types = {o.instance_type for o in offers}
    kind, source = _bundled(provider, offers)
    sellers = sorted({o.seller for o in offers if o.seller and o.seller != provider.name})
    name = provider.display_name or provider.name
    row = (f"| [{name}](#{provider.name}) | {provider.kind} | {len(set(regions))} | {len(types)} | "
           f"{len(set(gpus))} | {_join(purchases)} | {'static' if provider.static else 'yes'} | {kind} |\n")
    lines = [
        f"{SECTION}{provider.name}\n", "\n",
        f"- **Provider**: {name} (`{provider.name}`, {provider.kind})\n",
        f"- **Regions** ({len(set(regions))}): {_join(regions, _MAX_REGIONS)}\n",
        f"- **Instance types**: {len(types)}; offers in the bundled data: {len(offers)}"
        + (f"; rows skipped as invalid: {status.skipped_records}" if status.skipped_records else "") + "\n",
        f"- **GPU models** ({len(set(gpus))}): {_join(gpus)}"
        + (f"; not in the GPU table: {', '.join(unknown)}" if unknown else "") + "\n",
        f"- **Purchase models**: {_join(purchases)}\n",
        f"- **Availability**: {_availability(offers)}\n",
        f"- **Live API**: {_live(provider)}\n",
        f"- **Bundled data**: {kind}; source: {source}\n",
        f"- **Prices change** (declared): about every {_period(provider.price_change_period_s)}\n",
    ]
    if sellers:
        lines.append(f"- **Sellers** (machines resold through it): {', '.join(sellers)}\n")
    return row, "".join(lines) + "\n"


def sections(registry: Registry | None = None) -> dict[str, tuple[str, str]]:
    """Provider name -> (summary row, section) for every provider the registry loads, in name order."""
    registry = registry or Registry()
    engine = Engine(registry, environ={"GPUHUB_NO_DISK_CACHE": "1"})
    names = sorted(registry.providers)
    results = engine.collect(names, mode="replay")
    return {name: section(registry.providers[name], tuple(offers), status)
            for name, (offers, status) in zip(names, results, strict=True)}


def render(parts: dict[str, tuple[str, str]]) -> str:
    """The whole page from :func:`sections`."""
    return HEADER + "".join(row for row, _ in parts.values()) + "\n" + "".join(text for _, text in parts.values())


def main(argv: list[str]) -> int:
    text = render(sections())
    if "--check" in argv:
        same = PAGE.is_file() and PAGE.read_text(encoding="utf-8") == text
        print("docs/providers.md is up to date" if same else "docs/providers.md differs from the installed plugins")
        return 0 if same else 1
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
