"""A published catalog cannot lie to its readers or make them read outside it (issue 24, defects 4-6): a manifest
that does not fit the schema, a ``path`` outside the catalog, a file larger than allowed or a catalog rolled back
to an older version is rejected with a named reason, and the last good copy is served (memory stays bounded)."""

from __future__ import annotations

import json
import resource
import shutil
from pathlib import Path
from typing import Any

import pytest
from synth import T0, offer, put

from gpuhub.kit.testing import run_cli
from gpuhub.publish import fetch_catalog, publish
from gpuhub.store.sqlite import SqliteStore


def _gpus():  # type: ignore[no-untyped-def]
    from gpuhub.fetch.plugins import Registry

    return Registry(entry_points=[]).gpus


@pytest.fixture
def catalog(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A catalog published to ``pub/`` (version 1, lambda at 2.49 per GPU-hour) and read once by this reader."""
    store = SqliteStore(tmp_path / "store")
    put(store, "lambda", [offer("lambda", "gpu_1x_h100", "us-east-1", "2.49", count=1)], T0)
    publish(str(tmp_path / "pub"), store, gpus=_gpus(), now=T0)
    store.close()
    env = {"GPUHUB_CACHE_DIR": str(tmp_path / "cache")}
    assert fetch_catalog(str(tmp_path / "pub"), environ=env).state == "fresh"
    return tmp_path / "pub", env


def _edit(pub: Path, change: Any) -> None:
    manifest = json.loads((pub / "catalog.json").read_text())
    change(manifest)
    (pub / "catalog.json").write_text(json.dumps(manifest))


def _served(pub: Path, env: dict[str, str], reason: str) -> None:
    fetched = fetch_catalog(str(pub), environ=env)
    assert fetched.state == "stale" and fetched.version == 1, (fetched.state, fetched.reason)
    assert fetched.reason is not None and reason in fetched.reason, fetched.reason
    assert [str(o.price.amount) for o in fetched.columns["lambda"]] == ["2.49"]  # the last good copy


def _first_file(manifest: dict[str, Any]) -> dict[str, Any]:
    files: dict[str, Any] = manifest["providers"]["lambda"]["files"]
    return files[sorted(files)[0]]


def test_a_path_outside_the_catalog_is_never_read(catalog: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    pub, env = catalog
    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"secret" * 10)

    def escape(manifest: dict[str, Any]) -> None:
        _first_file(manifest)["path"] = "../outside.bin"

    _edit(pub, escape)
    _served(pub, env, "outside the catalog")
    for path in (str(outside), "/proc/self/environ", "v1/lambda/../../../outside.bin"):
        _edit(pub, lambda m, p=path: _first_file(m).update(path=p))  # type: ignore[misc]
        _served(pub, env, "path")


def test_a_symlink_out_of_the_catalog_is_refused(catalog: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    pub, env = catalog
    import hashlib

    (tmp_path / "outside.bin").write_bytes(b"secret")
    (pub / "v1" / "link.bin").symlink_to(tmp_path / "outside.bin")
    digest = hashlib.sha256(b"secret").hexdigest()  # a file this reader does not hold: it must be read
    _edit(pub, lambda m: _first_file(m).update(path="v1/link.bin", sha256=digest, size=6))
    _served(pub, env, "outside the catalog")


@pytest.mark.parametrize(("change", "reason"), [
    (lambda m: m["providers"]["lambda"].pop("files"), "files"),
    (lambda m: _first_file(m).pop("sha256"), "sha256"),
    (lambda m: m["providers"]["lambda"].update(offers=-3), "offers"),
    (lambda m: _first_file(m).update(size=-1), "size"),
    (lambda m: m.update(version="two"), "version"),
    (lambda m: m.update(providers=[]), "providers"),
])
def test_a_malformed_manifest_keeps_the_last_good_copy(catalog: tuple[Path, dict[str, str]], change: Any,
                                                       reason: str) -> None:
    pub, env = catalog
    _edit(pub, change)
    _served(pub, env, reason)
    shown = run_cli(["catalog", "show", str(pub)], env=env)
    assert shown.exit_code == 0 and json.loads(shown.stdout)["state"] == "stale", shown.output


def test_a_2_gib_file_is_refused_without_reading_it(catalog: tuple[Path, dict[str, str]]) -> None:
    pub, env = catalog
    big = pub / "v1" / "lambda" / "big.npy"
    with open(big, "wb") as fh:
        fh.truncate(2 * 1024**3)  # sparse: no disk used
    _edit(pub, lambda m: _first_file(m).update(path="v1/lambda/big.npy", size=2 * 1024**3))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
    _served(pub, env, "size")
    _edit(pub, lambda m: _first_file(m).update(size=1000))  # declared small, 2 GiB on disk: read with a cap
    _served(pub, env, "1000")
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown < 256 * 1024, f"{grown} KiB more at peak"


def test_a_rolled_back_catalog_is_refused_unless_allowed(catalog: tuple[Path, dict[str, str]],
                                                        tmp_path: Path) -> None:
    pub, env = catalog
    old = (pub / "catalog.json").read_bytes()
    store = SqliteStore(tmp_path / "store")
    put(store, "lambda", [offer("lambda", "gpu_1x_h100", "us-east-1", "2.59", count=1)], T0.replace(hour=1))
    publish(str(pub), store, gpus=_gpus(), now=T0.replace(hour=1))
    store.close()
    newer = fetch_catalog(str(pub), environ=env)
    assert newer.state == "fresh" and newer.version == 2
    (pub / "catalog.json").write_bytes(old)  # version 1 again: a replayed, older manifest
    kept = fetch_catalog(str(pub), environ=env)
    assert kept.state == "stale" and kept.version == 2 and "rollback" in (kept.reason or ""), kept.reason
    assert [str(o.price.amount) for o in kept.columns["lambda"]] == ["2.59"]
    shown = run_cli(["catalog", "show", str(pub)], env=env)
    assert "rollback" in json.loads(shown.stdout)["reason"]
    forced = run_cli(["catalog", "show", str(pub), "--allow-rollback"], env=env)
    assert forced.exit_code == 0, forced.output
    assert json.loads(forced.stdout)["version"] == 1
    assert fetch_catalog(str(pub), environ=env, allow_rollback=True).version == 1
    shutil.rmtree(pub / "v2")
