"""``gpuhub --help`` is read back from the help kept for this code and terminal (gpuhub.cli.helpcache), and reads
the same as the help typer builds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

FIRST = ("search", "--provider", "lambda", "--fetch", "replay", "--limit", "1")
ENTRY = "import sys; sys.argv[0] = \"gpuhub\"; from gpuhub._entry import main; main()"


def _run(store: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "GPUHUB_STORE")}
    return subprocess.run([sys.executable, "-c", ENTRY, *args], capture_output=True, text=True, check=True,
                          env={**environ, "GPUHUB_STORE": str(store), **env}, timeout=120)


def test_help_is_kept_per_terminal_width_and_reads_as_built(tmp_path: Path) -> None:
    store = tmp_path / "store"
    kept = store / "help"
    _run(store, *FIRST)  # writes the plugin index: no plugin adds a command, so help is gpuhub's own
    built = _run(store, "--help", COLUMNS="100").stdout
    assert built.startswith("Usage: gpuhub [OPTIONS] COMMAND [ARGS]...") and " search " in built
    [first] = list(kept.glob("*.txt"))
    assert first.read_text(encoding="utf-8") == built
    assert _run(store, "--help", COLUMNS="100").stdout == built  # read back
    uncached = _run(Path("off"), "--help", COLUMNS="100", GPUHUB_STORE="off").stdout
    assert uncached == built
    narrow = _run(store, "--help", COLUMNS="60").stdout  # another width: built and kept beside the first
    assert narrow != built and max(len(line) for line in narrow.splitlines()) <= 60
    assert len(list(kept.glob("*.txt"))) == 2
    assert _run(store, "--help", COLUMNS="60").stdout == narrow


def test_help_is_built_when_the_store_is_off_or_the_folder_is_not_writable(tmp_path: Path) -> None:
    off = _run(tmp_path / "unused", "--help", GPUHUB_STORE="off")
    assert off.stdout.startswith("Usage: gpuhub") and not (tmp_path / "unused").exists()
    store = tmp_path / "store"
    _run(store, *FIRST)
    (store / "help").write_text("a file where the folder would be", encoding="utf-8")
    blocked = _run(store, "--help")
    assert blocked.stdout == off.stdout and blocked.stderr == ""


def test_help_kept_for_one_program_name_is_not_shown_under_another(tmp_path: Path) -> None:
    store = tmp_path / "store"
    _run(store, *FIRST)
    assert _run(store, "--help").stdout.startswith("Usage: gpuhub ")
    other = subprocess.run([sys.executable, "-c", "import sys; sys.argv[0] = 'gh'; from gpuhub._entry import main; "
                            "main()", "--help"], capture_output=True, text=True, check=True, timeout=120,
                           env={**os.environ, "GPUHUB_STORE": str(store)})
    assert other.stdout.startswith("Usage: gh ")


def test_reading_the_help_back_imports_no_typer(tmp_path: Path) -> None:
    store = tmp_path / "store"
    _run(store, *FIRST)
    _run(store, "--help")  # built and kept
    probe = ("import sys; sys.argv[:] = ['gpuhub', '--help']; from gpuhub._entry import main; main(); "
             "print('typer' in sys.modules, 'rich' in sys.modules, file=sys.stderr)")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120,
                         env={**os.environ, "GPUHUB_STORE": str(store)})
    assert run.stdout.startswith("Usage: gpuhub ") and run.stderr.strip() == "False False"
