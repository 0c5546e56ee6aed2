"""Smaller wrong answers and outside checks of a first run (issue 23 items 6 and 7), each through the public CLI or
``gpuhub.search()``, each written to fail before its fix."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import gpuhub
from gpuhub.cli.commands import app
from gpuhub.errors import QueryError

runner = CliRunner()


def test_plugin_new_refuses_the_name_of_a_shipped_provider(tmp_path: Path) -> None:
    # Was: `gpuhub plugin new aws` wrote gpuhub-aws/ (package gpuhub_aws), the real AWS plugin's names, silently.
    run = runner.invoke(app, ["plugin", "new", "aws", "--dir", str(tmp_path)])
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr == ("error: NAME: 'aws' is the provider of the existing plugin gpuhub-aws (a second package of "
                          "that name would be refused as an impostor or shadow it): choose another name, e.g. myaws\n")
    assert list(tmp_path.iterdir()) == []
    ok = runner.invoke(app, ["plugin", "new", "mycloud", "--dir", str(tmp_path)])
    assert ok.exit_code == 0 and (tmp_path / "gpuhub-mycloud" / "gpuhub_mycloud" / "__init__.py").is_file()


def test_cuda_accepts_only_real_releases() -> None:
    # Was: --cuda 99.9 and --cuda 12.7 (NVIDIA went from 12.6 to 12.8) were accepted and filtered by them.
    for version in ("99.9", "12.7", "13.9"):
        run = runner.invoke(app, ["search", "--cuda", version, "--fetch", "replay"])
        assert run.exit_code == 2 and run.stdout == "", version
        gap = "NVIDIA went from 12.6 to 12.8; " if version == "12.7" else ""  # said only where it applies
        assert run.stderr.startswith(f"error: --cuda: '{version}' is not a CUDA release ({gap}the newest gpuhub "
                                     "knows is 13.5); allowed values: 7.0, 7.5, 8.0,"), run.stderr
    with pytest.raises(QueryError, match="is not a CUDA release") as info:
        gpuhub.search(cuda="12.7", fetch="replay")
    assert info.value.argument == "cuda"
    v100 = gpuhub.search(gpu="V100", cuda="12.8", provider="aws", fetch="replay", limit=None)
    assert v100.offers and not gpuhub.search(gpu="V100", cuda="13.0", provider="aws", fetch="replay", limit=None)


def test_a_catalog_reader_keeps_the_partial_status_and_the_price_dates(tmp_path: Path) -> None:
    """GCP's bundled catalog is partial (machine types without a price are counted): a reader of the published
    catalog says so too (was: a plain ``gcp: ok``), with the publisher's price dates."""
    import os
    import subprocess
    import sys

    base = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "GOOGLE_", "GPUHUB_"))}

    def gpuhub_run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "gpuhub.cli", *args], capture_output=True, text=True,
                              env=base | env, timeout=300, check=False)

    publisher = {"GPUHUB_STORE": str(tmp_path / "store"), "GPUHUB_CACHE_DIR": str(tmp_path / "pub-cache")}
    direct = gpuhub_run("search", "-p", "gcp", "--gpu", "H100", "-v", "--fetch", "replay", env=publisher)
    line = next(x for x in direct.stderr.splitlines() if x.startswith("gcp: "))
    dates = re.search(r"prices of [0-9-]+ … [0-9-]+", line)
    assert line.startswith("gcp: ok (partial: ") and dates, line
    done = gpuhub_run("catalog", "publish", str(tmp_path / "catalog"), "--provider", "gcp", "--fetch", "replay",
                      "--allow-unknown-gpu", "*", env=publisher)
    assert done.returncode == 0, done.stderr
    reader = {"GPUHUB_CATALOG_URL": str(tmp_path / "catalog"), "GPUHUB_STORE": "off",
              "GPUHUB_CACHE_DIR": str(tmp_path / "reader-cache")}
    read = gpuhub_run("search", "-p", "gcp", "--gpu", "H100", "-v", env=reader)
    assert read.returncode == 0, read.stderr
    served = next(x for x in read.stderr.splitlines() if x.startswith("gcp: "))
    assert served.startswith(line.split(", ")[0] + ", ") and "published catalog version 1" in served, served
    assert dates.group(0) in served


SCRIPT = '''
from decimal import Decimal

import gpuhub
from gpuhub import Engine, Instance, Offer, Price, Provider
from gpuhub.kit.testing import registry_of


class Lab(Provider):
    name = "lab"
    kind = "internal"

    def fetch(self, ctx):
        inst = Instance(provider="lab", instance_type="a100-80x1", gpu=ctx.gpu("A100-80GB"), gpu_count=1)
        yield Offer(instance=inst, region=ctx.region("lab-eu"), source=ctx.source,
                    price=Price(amount=Decimal("1.10"), currency="EUR", purchase="on_demand"))


result = gpuhub.search(engine=Engine(registry_of(Lab())), fetch="live")
print([(s.state, s.reason) for s in result.statuses], [(o.instance_type, str(o.price.amount)) for o in result])
'''


def test_a_provider_defined_in_a_script_or_notebook_fetches(tmp_path: Path) -> None:
    # Was: every fetch of a provider whose class lives in __main__ failed with "ValueError: __main__.__spec__ is
    # None" (the store's key fingerprints the provider's code by its module's import spec).
    import os
    import subprocess
    import sys

    script = tmp_path / "lab.py"
    script.write_text(SCRIPT, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUHUB_")} | {
        "GPUHUB_STORE": str(tmp_path / "store"), "GPUHUB_CACHE_DIR": str(tmp_path / "cache")}
    for args in ([str(script)], ["-"]):  # a script file, and code without a file (as a notebook cell has)
        done = subprocess.run([sys.executable, *args], input=SCRIPT if args == ["-"] else None, capture_output=True,
                              text=True, env=env, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        assert done.stdout == "[('ok', None)] [('a100-80x1', '1.10')]\n", (args, done.stdout, done.stderr)


def test_one_install_seen_through_a_lib64_link_is_not_installed_twice(tmp_path: Path) -> None:
    # Was: a virtualenv whose lib64 links to lib lists each plugin under both paths; the check compared the paths as
    # text, reported "installed twice", advised uninstalling the only copy, and strict mode refused to start.
    import sys
    import types
    from importlib import metadata

    from gpuhub import Registry
    from gpuhub.fetch.hookspecs import hookimpl

    (tmp_path / "lib" / "site-packages").mkdir(parents=True)
    (tmp_path / "lib64").symlink_to(tmp_path / "lib")

    class Dist:
        version = "1.0"
        metadata = {"Name": "gpuhub-labcloud"}  # noqa: RUF012

        def __init__(self, path: Path) -> None:
            self.path = path

        def locate_file(self, _: str) -> str:
            return str(self.path)

    class Lab:
        @hookimpl
        def register_providers(self, register: object) -> None:
            return None

    module = types.ModuleType("gpuhub_test_labcloud")
    module.register_providers = Lab().register_providers  # type: ignore[attr-defined]
    sys.modules["gpuhub_test_labcloud"] = module
    try:
        eps = []
        for lib in ("lib", "lib64"):
            ep = metadata.EntryPoint("labcloud", "gpuhub_test_labcloud", "gpuhub")
            object.__setattr__(ep, "dist", Dist(tmp_path / lib / "site-packages"))
            eps.append(ep)
        registry = Registry(entry_points=eps, strict=True)  # strict: a duplicate would raise PluginError
        assert [r.status for r in registry.reports if r.name == "labcloud"] == ["loaded"]
    finally:
        del sys.modules["gpuhub_test_labcloud"]


def test_gpus_and_feature_fp8_agree_with_the_fp8_prices() -> None:
    # Was: `gpuhub gpus` showed FP8 "-" for the MI300X (and --feature fp8 left it out) while its offers carried a
    # price per FP8 TFLOP-hour from its 2614.9 FP8 TFLOPS (AMD's data sheet, the GPU table).
    import json

    rows = {r["name"]: r for r in json.loads(runner.invoke(app, ["gpus", "--format", "json"]).stdout)}
    assert rows["MI300X"]["fp8"] is True and rows["H100"]["fp8"] is True and rows["A100"]["fp8"] is False
    mi300x = gpuhub.search(gpu="MI300X", fetch="replay", limit=1)
    assert mi300x.details(0)["usd_per_fp8_tflop_hour"] is not None
    assert gpuhub.search(gpu="MI300X", feature="fp8", fetch="replay", limit=1).offers
    assert not gpuhub.search(gpu="A100", feature="fp8", fetch="replay", limit=1).offers


def test_an_emptied_replay_serves_the_last_good_data_as_stale(tmp_path: Path) -> None:
    # Was: a --fixtures recording edited to hold no offers gave "lambda: ok, 0 offers" although a good snapshot of
    # the same recording was stored (an empty live refresh already served the last good data as stale).
    import os
    import shutil
    import subprocess
    import sys

    recording = Path(__file__).resolve().parents[1] / "plugins" / "gpuhub-lambda" / "gpuhub_lambda" / "recording"
    if not recording.is_dir():
        pytest.skip("the Lambda plugin's recording is not in this checkout")
    shutil.copytree(recording, tmp_path / "fx" / "lambda")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LAMBDA_", "GPUHUB_"))} | {
        "GPUHUB_STORE": str(tmp_path / "store"), "GPUHUB_CACHE_DIR": str(tmp_path / "cache")}
    args = [sys.executable, "-m", "gpuhub.cli", "search", "-v", "-p", "lambda", "--fixtures", str(tmp_path / "fx"),
            "--fetch", "replay", "--instance-type", "gpu_1x_h100_pcie", "--region", "us-east-1", "--format", "json"]
    good = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert good.returncode == 0 and "lambda: ok, 340 offers" in good.stderr, good.stderr
    (tmp_path / "fx" / "lambda" / "instance-types.json").write_text('{"data": {}}', encoding="utf-8")
    empty = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert empty.returncode == 0, empty.stderr
    line = next(x for x in empty.stderr.splitlines() if x.startswith("lambda: "))
    assert line.startswith("lambda: stale, 340 offers") and "the recording gave no offers" in line, line
    assert [(r["instance_type"], r["price_per_hour"]) for r in json.loads(empty.stdout)] == [
        ("gpu_1x_h100_pcie", 2.49)]


def test_an_aws_product_listed_twice_with_the_same_price_is_kept_once(tmp_path: Path) -> None:
    # Was: two identical on-demand rows for one type in an AWS offer file dropped that type entirely (its spot
    # prices too), while the status said ok. Real rows: g4dn.12xlarge in af-south-1, 5.19 USD on demand.
    import os
    import shutil
    import subprocess
    import sys

    recording = Path(__file__).resolve().parents[1] / "plugins" / "gpuhub-aws" / "gpuhub_aws" / "recording"
    if not recording.is_dir():
        pytest.skip("the AWS plugin's recording is not in this checkout")
    shutil.copytree(recording, tmp_path / "fx" / "aws")
    offers = tmp_path / "fx" / "aws" / "offers-af-south-1.json"
    data = json.loads(offers.read_text())
    sku = next(s for s, p in data["products"].items() if p["attributes"]["instanceType"] == "g4dn.12xlarge")
    twin = "TWIN" + sku[4:]
    data["products"][twin] = {**data["products"][sku], "sku": twin}
    data["terms"]["OnDemand"][twin] = {f"{twin}.JRTCKXETXF": {
        **data["terms"]["OnDemand"][sku][f"{sku}.JRTCKXETXF"], "sku": twin}}
    offers.write_text(json.dumps(data))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "GPUHUB_"))} | {
        "GPUHUB_STORE": "off", "GPUHUB_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-m", "gpuhub.cli", "search", "-v", "-p", "aws", "--fixtures",
                           str(tmp_path / "fx"), "--fetch", "replay", "--region", "af-south-1", "--instance-type",
                           "g4dn.12xlarge", "--all-regions", "--format", "json"],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    records = json.loads(done.stdout)
    assert ("on_demand", 5.19) in {(r["purchase"], r["price_per_hour"]) for r in records}
    assert "spot" in {r["purchase"] for r in records}
    line = next(x for x in done.stderr.splitlines() if x.startswith("aws: "))
    assert line.startswith("aws: ok") and " records skipped" in line, line
    bundled = subprocess.run([sys.executable, "-m", "gpuhub.cli", "search", "-p", "aws", "--fetch", "replay",
                              "--region", "af-south-1", "--format", "json", "-v"],
                             capture_output=True, text=True, env=env, timeout=300, check=False)
    before = next(x for x in bundled.stderr.splitlines() if x.startswith("aws: "))
    skipped = [int(x.split(" records skipped")[0].rsplit(" ", 1)[1]) for x in (before, line)]
    assert skipped[1] == skipped[0] + 1  # the twin row, counted


def test_a_mig_slice_without_its_memory_label_has_unknown_vram(tmp_path: Path) -> None:
    # Was: a 1g.10gb slice of an A100-80GB whose node lacks GFD's nvidia.com/mig-1g.10gb.memory label was given
    # 80 GiB x 1/7 = 11.43 GiB (MIG splits memory in eighths: the profile holds 9.5 GiB), so --min-vram 10 kept it.
    import os
    import shutil
    import subprocess
    import sys

    recording = (Path(__file__).resolve().parents[1] / "plugins" / "gpuhub-kubernetes" / "gpuhub_kubernetes"
                 / "recording")
    if not recording.is_dir():
        pytest.skip("the Kubernetes plugin's recording is not in this checkout")
    shutil.copytree(recording, tmp_path / "fx" / "kubernetes")
    nodes = tmp_path / "fx" / "kubernetes" / "gpu-east-nodes.json"
    text = nodes.read_text()
    assert '"nvidia.com/mig-1g.10gb.memory": "9728",' in text
    nodes.write_text(text.replace('"nvidia.com/mig-1g.10gb.memory": "9728",', ""))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KUBE", "GPUHUB_"))} | {
        "GPUHUB_STORE": "off", "GPUHUB_CACHE_DIR": str(tmp_path / "cache"), "HOME": str(tmp_path)}

    def search(*more: str) -> list[dict[str, object]]:
        done = subprocess.run([sys.executable, "-m", "gpuhub.cli", "search", "-p", "kubernetes", "--fixtures",
                               str(tmp_path / "fx"), "--fetch", "replay", "--all-regions", "--limit", "100",
                               "--format", "json", *more], capture_output=True, text=True, env=env, timeout=120,
                              check=False)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)  # type: ignore[no-any-return]

    slices = [r for r in search() if r["instance_type"] == "hgx-a100-2:mig-1g.10gb"]
    assert slices and {(r["gpu_memory_gib"], r["price_per_hour"]) for r in slices} == {(None, 0.2)}
    assert "hgx-a100-2:mig-1g.10gb" not in {r["instance_type"] for r in search("--min-vram", "10")}
    assert "hgx-a100-2:mig-3g.40gb" in {r["instance_type"] for r in search("--min-vram", "10")}  # labelled
