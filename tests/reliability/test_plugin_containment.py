"""Plugin code is contained (issue 12, defects 5, 6, 7), each through the CLI with the plugin installed as a
distribution: ``SystemExit`` / ``KeyboardInterrupt`` at import, in a hook or in ``fetch`` is that plugin's failure;
offers built with ``model_construct`` (negative, zero, NaN, infinite, string prices, unknown currency or purchase
model, inconsistent GPUs) are skipped and counted, never listed, and never break another provider's output; a
bundled provider's name cannot be taken by another distribution.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from distplugins import cli_env, make_dist, run_cli, statuses

FETCH_EXIT = "raise SystemExit(9)"
FETCH_KBD = "raise KeyboardInterrupt"


def _misbehaving_site(site: Path) -> None:
    make_dist(site, "gpuhub-import-exit", "gpuhub_import_exit", provider="importexit",
              import_time="raise SystemExit(7)")
    make_dist(site, "gpuhub-import-kbd", "gpuhub_import_kbd", provider="importkbd",
              import_time="raise KeyboardInterrupt")
    make_dist(site, "gpuhub-hook-exit", "gpuhub_hook_exit", provider="hookexit", register="raise SystemExit(9)")
    make_dist(site, "gpuhub-fetch-exit", "gpuhub_fetch_exit", provider="fetchexit", fetch=FETCH_EXIT,
              token="FETCHEXIT_TOKEN")
    make_dist(site, "gpuhub-fetch-kbd", "gpuhub_fetch_kbd", provider="fetchkbd", fetch=FETCH_KBD,
              token="FETCHKBD_TOKEN")


def test_systemexit_and_keyboardinterrupt_in_plugins_are_contained(tmp_path: Path) -> None:
    _misbehaving_site(tmp_path / "site")
    env = cli_env(tmp_path / "site", tmp_path / "cache", FETCHEXIT_TOKEN="tok-exit-1", FETCHKBD_TOKEN="tok-kbd-1")
    done, _ = run_cli(["plugins", "--format", "json"], env)
    assert done.returncode == 0, done.stderr
    report = {r["name"]: r for r in json.loads(done.stdout)}
    assert report["gpuhub_import_exit"]["status"] == "failed"
    assert "SystemExit: 7" in report["gpuhub_import_exit"]["error"]
    assert "KeyboardInterrupt" in report["gpuhub_import_kbd"]["error"]
    assert report["gpuhub_hook_exit"]["status"] == "failed"
    assert "hook register_providers failed: SystemExit: 9" in report["gpuhub_hook_exit"]["error"]
    assert report["lambda"]["status"] == "loaded" and report["gpuhub_fetch_exit"]["status"] == "loaded"

    done, _ = run_cli(["search", "-v", "--provider", "lambda", "--provider", "fetchexit", "--provider", "fetchkbd",
                       "--limit", "2", "--format", "json", "--timeout", "30"], env)
    assert done.returncode == 0, done.stderr
    lines = statuses(done.stderr)
    assert lines["lambda"].startswith("lambda: ok, "), done.stderr
    assert lines["fetchexit"].startswith("fetchexit: failed") and "SystemExit: 9" in lines["fetchexit"]
    assert lines["fetchkbd"].startswith("fetchkbd: failed") and "KeyboardInterrupt" in lines["fetchkbd"]
    assert [r["provider"] for r in json.loads(done.stdout)] == ["lambda", "lambda"]


BAD_OFFERS = '''
from gpuhub.model import Instance as I, Price as Pr, Offer as O, Gpu as G
def bad(n, amount, currency="USD", purchase="on_demand", count=1, gpu=True, memory=Decimal(80)):
    gpu_ = G.model_construct(name="H100", memory_gib=memory, known=True) if gpu else None
    inst = I.model_construct(provider="shady", instance_type=f"bad{n}", gpu=gpu_, gpu_count=count,
                             fractional=False, cpu_arch="x86_64")
    return O.model_construct(instance=inst, region=ctx.region("r1"),
                             price=Pr.model_construct(amount=amount, currency=currency, purchase=purchase),
                             available=None, source=ctx.source)
return [bad(1, Decimal("-1.00")), bad(2, Decimal("0.00")), bad(3, Decimal("NaN")), bad(4, Decimal("Infinity")),
        bad(5, "abc"), bad(6, 1.5), bad(7, Decimal("2.00"), currency="XXQ"), bad(8, Decimal("2.00"), purchase="free"),
        bad(9, Decimal("2.00"), count=float("nan")), bad(10, Decimal("2.00"), count=8, gpu=False),
        bad(11, Decimal("2.00"), memory=Decimal("-80")), "not an offer", _offer(ctx, 99, "5.00")]
'''


@pytest.mark.parametrize("output", ["json", "table", "csv"])
def test_offers_built_without_validation_are_checked_at_the_boundary(output: str, tmp_path: Path) -> None:
    make_dist(tmp_path / "site", "gpuhub-shady", "gpuhub_shady", provider="shady", fetch=BAD_OFFERS,
              token="SHADY_TOKEN")
    env = cli_env(tmp_path / "site", tmp_path / "cache", SHADY_TOKEN="tok-shady-1")
    done, _ = run_cli(["search", "-v", "--provider", "lambda", "--provider", "shady", "--gpu", "H100", "--limit", "400",
                       "--format", output, "--timeout", "30"], env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    lines = statuses(done.stderr)
    assert lines["shady"].startswith("shady: ok, 1 offers") and "12 records skipped" in lines["shady"], lines
    assert lines["lambda"].startswith("lambda: ok, "), lines
    if output == "json":
        records = json.loads(done.stdout)
        shady = [r for r in records if r["provider"] == "shady"]
        assert [(r["instance_type"], r["price_per_hour"]) for r in shady] == [("t99", 5.0)]
        assert min(r["price_per_hour"] for r in records) > 0
        assert [r for r in records if r["provider"] == "lambda"]  # the neighbour's offers are all there
    else:
        assert "-1.00" not in done.stdout and "bad1" not in done.stdout and "t99" in done.stdout
        assert "lambda" in done.stdout


def test_bundled_provider_name_cannot_be_taken_by_another_distribution(tmp_path: Path) -> None:
    # Put first on the path, so it loads before the real gpuhub-lambda.
    make_dist(tmp_path / "site", "totally-legit-gpus", "totally_legit", provider="lambda",
              fetch='return [_offer(ctx, 1, "0.01")]', token="LEGIT_TOKEN")
    env = cli_env(tmp_path / "site", tmp_path / "cache", LEGIT_TOKEN="tok-legit-1")
    done, _ = run_cli(["search", "-v", "--provider", "lambda", "--limit", "400", "--format", "json"], env)
    assert done.returncode == 0, done.stderr
    records = json.loads(done.stdout)
    assert records and min(r["price_per_hour"] for r in records) > 0.01
    assert statuses(done.stderr)["lambda"].startswith("lambda: ok, "), done.stderr
    done, _ = run_cli(["plugins", "--format", "json"], env)
    report = {r["name"]: r for r in json.loads(done.stdout)}
    impostor, real = report["totally_legit"], report["lambda"]
    assert real["status"] == "loaded" and real["providers"] == ["lambda"]
    assert impostor["status"] == "failed" and impostor["providers"] == []
    assert "gpuhub-lambda" in impostor["error"] and "totally-legit-gpus" in impostor["error"], impostor
    assert "GPUHUB_PLUGINS" in impostor["fix"] and "pip uninstall totally-legit-gpus" in impostor["fix"], impostor
