"""Plugins installed as real distributions for CLI subprocess tests: a directory on ``PYTHONPATH`` holding the
module and its ``.dist-info`` (``METADATA`` + ``entry_points.txt`` in the ``gpuhub`` group), which
``importlib.metadata`` finds exactly like a pip-installed plugin."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

PROVIDER_TEMPLATE = '''
import os, time, threading
from decimal import Decimal
import gpuhub
from gpuhub import Instance, Offer, Price, Region, Gpu

{import_time}

def _offer(ctx, n=0, amount="1.00"):
    return Offer(instance=Instance(provider="{provider}", instance_type=f"t{{n}}", gpu=Gpu(name="H100",
                 memory_gib=Decimal(80)), gpu_count=1), region=ctx.region("r1"),
                 price=Price(amount=Decimal(amount), currency="USD", purchase="on_demand"), source=ctx.source)

class P(gpuhub.Provider):
    name = "{provider}"
    kind = "internal"
    credentials = (gpuhub.Credential(("{token}",), "a token"),)

    def fetch(self, ctx):
{fetch}

class Plugin:
    @gpuhub.hookimpl
    def register_providers(self, register):
{register}

PLUGIN = Plugin()
'''


def make_dist(site: Path, dist: str, module: str, *, provider: str = "evil", fetch: str = "return [_offer(ctx)]",
              import_time: str = "", register: str = "register(P())", entry: str | None = None,
              token: str = "EVIL_TOKEN") -> None:
    """Write distribution ``dist`` (module ``module``, entry point ``entry`` = ``module:PLUGIN``) into ``site``."""
    site.mkdir(parents=True, exist_ok=True)
    source = PROVIDER_TEMPLATE.format(provider=provider, import_time=import_time, token=token,
                                      fetch=textwrap.indent(textwrap.dedent(fetch).strip(), " " * 8),
                                      register=textwrap.indent(textwrap.dedent(register).strip(), " " * 8))
    (site / f"{module}.py").write_text(source)
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[gpuhub]\n{entry or module} = {module}:PLUGIN\n")


def cli_env(site: Path | None, cache: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GPUHUB_", "LAMBDA_", "AWS_", "AZURE_",
                                                                        "GOOGLE_", "PYTHONPATH"))}
    if site is not None:
        base["PYTHONPATH"] = str(site)
    return {**base, "GPUHUB_CACHE_DIR": str(cache), **extra}


def run_cli(args: list[str], env: dict[str, str], timeout: float = 120) -> tuple[subprocess.CompletedProcess[str],
                                                                                  float]:
    """Run ``gpuhub ARGS`` as a fresh process; returns the result and the wall time until the process exited."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "gpuhub.cli", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)
    return done, time.monotonic() - started


def statuses(stderr: str) -> dict[str, str]:
    """Provider status lines of a search's stderr by provider name."""
    out: dict[str, str] = {}
    for line in stderr.splitlines():
        name, sep, _ = line.partition(":")
        if sep and name.isidentifier() and name.islower():
            out.setdefault(name, line)
    return out


def popen_cli(args: list[str], env: dict[str, str]) -> subprocess.Popen[Any]:
    return subprocess.Popen([sys.executable, "-m", "gpuhub.cli", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
