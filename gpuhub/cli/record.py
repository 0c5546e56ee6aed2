"""``gpuhub record`` for a static provider (no API to record): write the price table it uses, or refuse."""

from __future__ import annotations

from pathlib import Path

from gpuhub.cli.table import TextConsole
from gpuhub.fetch.recording import atomic_write, load_manifest
from gpuhub.service.engine import Engine


def record_static(engine: Engine, provider: str, out: Path, err: TextConsole) -> int:
    """Copy the table a static provider's searches use (its manifest and data files) to ``out/<provider>/``.

    Returns the exit code: 0 when written (the copy replays with ``--fixtures OUT``), 1 when the provider has no
    table to copy or the table does not load (nothing is written then).
    """
    plugin = engine.registry.providers[provider]
    source = plugin.fixtures_dir()
    if source is None or not (source / "manifest.json").is_file():
        err.print(f"{provider} has no API to record and no bundled price table to copy: nothing written",
                  highlight=False)
        return 1
    [(offers, status)] = engine.collect([provider], mode="replay", refresh=True)
    if status.state != "ok":
        err.print(f"{status.line()}; nothing written", highlight=False)
        return 1
    target = out / provider
    files = sorted(f for f in source.iterdir() if f.is_file() and not f.name.startswith("."))
    for file in files:
        atomic_write(target / file.name, file.read_bytes())
    manifest = load_manifest(target)
    when = manifest.data_date.isoformat() if manifest.data_date else "unknown date"
    err.print(f"{provider} has no price API: nothing fetched live; wrote the static price table its searches use "
              f"({len(offers)} offers, data of {when}) to {target}/ ({', '.join(f.name for f in files)}); "
              f"replay it with --fixtures {out}", highlight=False)
    return 0
