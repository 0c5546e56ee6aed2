"""The README stays true: every environment variable the code reads is in its settings table (like datasette's
``test_docs.py``), and the commands it shows with their output still print that output."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
_ENV = re.compile(r"[\"'](?P<name>(?:GPUHUB|AWS|AZURE|GOOGLE|LAMBDA|COREWEAVE|KUBERNETES)_[A-Z0-9_]+|KUBECONFIG)[\"']")
_SETTING = re.compile(r"\.setting\(\s*[\"'](?P<name>[A-Z0-9_]+)[\"']")


def _table_names() -> set[str]:
    section = README.split("## Credentials and settings", 1)[1].split("\n## ", 1)[0]
    return {name for line in section.splitlines() if line.startswith("|") for name in re.findall(r"`([A-Z0-9_]+)`",
                                                                                                    line)}


def _read_in_code() -> dict[str, str]:
    """Every variable name the core and the bundled plugins read: literal names, and ``ctx.setting("X")`` as
    ``GPUHUB_<PROVIDER>_X``."""
    found: dict[str, str] = {}
    sources = [(p, None) for p in (ROOT / "gpuhub").rglob("*.py")]
    for plugin in sorted((ROOT / "plugins").glob("gpuhub-*")):
        provider = plugin.name.removeprefix("gpuhub-").upper().replace("-", "_")
        sources += [(p, provider) for p in plugin.glob("gpuhub_*/**/*.py")]
    for path, provider in sources:
        text = path.read_text(encoding="utf-8")
        for m in _ENV.finditer(text):
            found.setdefault(m.group("name"), str(path.relative_to(ROOT)))
        if provider is not None:
            for m in _SETTING.finditer(text):
                found.setdefault(f"GPUHUB_{provider}_{m.group('name')}", str(path.relative_to(ROOT)))
    return found


def test_every_environment_variable_read_is_documented() -> None:
    documented = _table_names()
    read = _read_in_code()
    assert {"GPUHUB_CACHE_DIR", "GPUHUB_NO_DISK_CACHE", "AZURE_SUBSCRIPTION_ID", "GPUHUB_AZURE_REGIONS"} <= set(read)
    missing = {name: where for name, where in read.items() if name not in documented}
    assert not missing, f"add these to the README's 'Credentials and settings' table: {missing}"


def test_azure_readme_names_the_real_flag() -> None:
    text = (ROOT / "plugins" / "gpuhub-azure" / "README.md").read_text(encoding="utf-8")
    assert "--mode live" not in text and "--fetch live" in text


def test_fine_tuning_is_said_to_mean_adapters() -> None:
    assert "LoRA-style adapters" in README


def _shown_commands() -> list[tuple[str, list[str]]]:
    """``$ gpuhub search|estimate|plan ...`` blocks of the README (answers from the bundled recordings, reproducible):
    the command and the output lines it shows (``...`` cuts)."""
    blocks = re.findall(r"```\n\$ gpuhub ((?:search|estimate|plan) .+?)\n(.*?)```", README, re.S)
    return [(command, [line for line in output.splitlines() if line.strip() and line != "..."])
            for command, output in blocks]


def _norm(line: str) -> str:
    return " ".join(line.split())


def test_readme_commands_print_what_the_readme_shows(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    commands = _shown_commands()
    assert len(commands) >= 6 and any("--near" in c for c, _ in commands) and any(
        "--group-by" in c for c, _ in commands) and any("--available" in c for c, _ in commands)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "AZURE_", "GOOGLE_", "LAMBDA_",
                                                                     "KUBE", "GPUHUB_"))}
    env |= {"GPUHUB_CACHE_DIR": str(tmp_path), "COLUMNS": "240"}
    for command, shown in commands:
        run = subprocess.run([sys.executable, "-c", "from gpuhub.cli.commands import main; main()", *command.split()],
                             capture_output=True, text=True, env=env, timeout=120)
        printed = {_norm(line) for line in (run.stdout + run.stderr).splitlines()}
        missing = [line for line in shown if _norm(line) not in printed]
        assert not missing, f"README shows lines that 'gpuhub {command}' no longer prints: {missing[:3]}"
