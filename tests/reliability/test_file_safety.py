"""Every file gpuhub reads is contained (issue 12, defects 2, 3, 4, 10, 11): caches, manifests, body files.

Each test reproduces the audit's input: an unreadable cache directory, a deeply nested / huge / re-priced cache
file, a JSON bomb in ``--fixtures DIR/manifest.json``, ``body_file`` values escaping the recording (``../``,
absolute paths, ``/dev/zero``, a FIFO), temporary debris of killed writers, and the skip reason of a provider that
needs no credentials. Through the CLI (a real process) where the audit used it, else through the API.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from harness import offer_keys

from gpuhub import Registry
from gpuhub.fetch.diskcache import DiskCache
from gpuhub.kit.testing import make_engine, run_provider

PROVIDER = "fakecloud"
REPO = Path(__file__).resolve().parents[2]
FAKE_FIXTURES = REPO / "fixtures"


def _cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120,
         **kwargs: Any) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GPUHUB_", "LAMBDA_", "AWS_", "AZURE_",
                                                                        "GOOGLE_"))}
    return subprocess.run([sys.executable, "-m", "gpuhub.cli", *args], env={**base, **(env or {})},
                          capture_output=True, text=True, timeout=timeout, **kwargs)


def _replay(registry: Registry, cache_dir: Path) -> tuple[Any, Any]:
    engine = make_engine(registry, disk=DiskCache(cache_dir))
    try:
        return run_provider(engine, PROVIDER, mode="replay")
    finally:
        engine.shutdown()


def _statuses(stderr: str) -> dict[str, str]:
    return {line.split(":", 1)[0]: line for line in stderr.splitlines() if line.startswith(("lambda:", "coreweave:"))}


# --- defect 2: an unusable store directory or file (the store replaced the parsed-recordings cache) ----------
@pytest.mark.parametrize("what", ["directory-is-a-file", "database-is-a-fifo", "database-is-a-symlink"])
def test_unusable_store_is_a_miss_with_one_warning(what: str, tmp_path: Path) -> None:
    store = tmp_path / "store"
    if what == "directory-is-a-file":
        store.write_text("not a directory")  # every read and write under it fails
    else:
        store.mkdir()
        if what == "database-is-a-fifo":
            os.mkfifo(store / "store.sqlite")
        else:
            (store / "store.sqlite").symlink_to("/dev/zero")
    done = _cli("search", "-v", "--provider", "lambda", "--provider", "coreweave", "--format", "json",
                env={"GPUHUB_STORE": str(store)}, timeout=60)
    assert done.returncode == 0, done.stderr
    statuses = _statuses(done.stderr)
    assert statuses["lambda"].startswith("lambda: ok, "), done.stderr
    assert statuses["coreweave"].startswith("coreweave: ok, "), done.stderr
    assert done.stderr.count("not usable") == 1 and "could not write" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    prices = {r["instance_type"]: r["price_per_hour"] for r in json.loads(done.stdout) if r["provider"] == "lambda"}
    assert prices  # the offers are there


def test_permission_denied_store_dir_is_a_miss_with_one_warning() -> None:
    """The audit's case: ``chmod 000`` on the store directory (as root, run the CLI as user nobody)."""
    as_nobody: dict[str, Any] = {"user": 65534, "group": 65534} if os.geteuid() == 0 else {}
    if as_nobody:
        try:
            usable = subprocess.run([sys.executable, "-c", "import gpuhub.cli"], capture_output=True, cwd="/",
                                    **as_nobody).returncode == 0
        except OSError:
            usable = False
        if not usable:
            pytest.skip("the interpreter is not usable by user nobody here")
    top = Path(tempfile.mkdtemp(prefix="gpuhub-rel-"))
    try:
        top.chmod(0o755)
        (top / "store").mkdir(mode=0o000)
        (top / "store").chmod(0o000)
        done = _cli("search", "-v", "--provider", "lambda", "--provider", "coreweave", "--limit", "1",
                    env={"GPUHUB_CACHE_DIR": str(top), "HOME": str(top)}, cwd=str(top), **as_nobody)
        assert done.returncode == 0, done.stderr
        statuses = _statuses(done.stderr)
        assert statuses["lambda"].startswith("lambda: ok, "), done.stderr
        assert statuses["coreweave"].startswith("coreweave: ok, "), done.stderr
        assert done.stderr.count("not usable") == 1 and "Permission denied" in done.stderr, done.stderr
    finally:
        (top / "store").chmod(0o700)
        shutil.rmtree(top)


# --- defect 3: damaged or re-priced stored offers --------------------------------------------------------------
def test_stored_offers_with_changed_prices_are_rejected(rel_registry: Registry, tmp_path: Path,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    """Every price changed in the stored column, still a valid NPY array of the right shape: the content hash
    does not match, so the snapshot is discarded and the recording parsed again."""
    import sqlite3

    import numpy as np

    offers, status = _replay(rel_registry, tmp_path)
    assert status.state == "ok" and offers
    with sqlite3.connect(tmp_path / "store.sqlite") as db:
        [(blob,)] = db.execute("SELECT data FROM blob WHERE hash IN (SELECT blob FROM part WHERE name = "
                               "'price.npy')").fetchall()
        buffer = io.BytesIO()
        np.save(buffer, np.full(len(offers), 0.01), allow_pickle=False)
        assert len(buffer.getvalue()) == len(blob)
        db.execute("UPDATE blob SET data = ? WHERE hash IN (SELECT blob FROM part WHERE name = 'price.npy')",
                   (buffer.getvalue(),))
    caplog.set_level(logging.WARNING)
    again, status = _replay(rel_registry, tmp_path)
    assert status.state == "ok" and offer_keys(again) == offer_keys(offers)
    assert str(min(o.price.amount for o in again)) != "0.01"
    assert any("does not match its hash" in r.getMessage() for r in caplog.records)


# --- defect 4: a JSON bomb in --fixtures DIR/manifest.json ----------------------------------------------------
@pytest.mark.parametrize("where", ["DIR/manifest.json", "DIR/lambda/manifest.json"])
def test_json_bomb_manifest_is_a_clear_error_without_traceback(where: str, tmp_path: Path) -> None:
    target = tmp_path / where.replace("DIR/", "")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b'{"exchanges": ' + b"[" * 1_000_000 + b"]" * 1_000_000 + b"}")
    done = _cli("search", "-v", "--provider", "lambda", "--fixtures", str(tmp_path),
                env={"GPUHUB_CACHE_DIR": str(tmp_path / "cache")})
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr, done.stderr[-2000:]
    assert done.returncode == 1, done.stderr
    assert "nested deeper than 64 levels" in done.stderr and str(target) in done.stderr, done.stderr


# --- defect 10: body_file values escaping the recording -------------------------------------------------------
LAMBDA_RECORDING = REPO / "plugins" / "gpuhub-lambda" / "gpuhub_lambda" / "recording"


def _lambda_copy(tmp_path: Path, body_file: str) -> Path:
    if not LAMBDA_RECORDING.is_dir():
        pytest.skip("gpuhub-lambda's recording is not in this checkout")
    rec = tmp_path / "fx" / "lambda"
    shutil.copytree(LAMBDA_RECORDING, rec)
    manifest = json.loads((rec / "manifest.json").read_text())
    for exchange in manifest["exchanges"]:
        exchange["response"]["body_file"] = body_file
    (rec / "manifest.json").write_text(json.dumps(manifest))
    return rec


@pytest.mark.parametrize("body_file", ["../../../../../../../../etc/passwd", "/etc/passwd", "/dev/zero", "fifo",
                                       "link-out", "huge.json", "sub"])
def test_body_file_must_be_a_regular_file_inside_the_recording(body_file: str, tmp_path: Path) -> None:
    rec = _lambda_copy(tmp_path, body_file)
    os.mkfifo(rec / "fifo")  # with no writer: an open() without O_NONBLOCK would hang forever
    (rec / "link-out").symlink_to("/etc/passwd")
    (rec / "sub").mkdir()
    with (rec / "huge.json").open("wb") as fh:
        fh.truncate(300 * 1024 * 1024)  # over the 256 MiB body limit (sparse)
    done = _cli("search", "-v", "--provider", "lambda", "--fixtures", str(tmp_path / "fx"),
                env={"GPUHUB_CACHE_DIR": str(tmp_path / "cache")}, timeout=60)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.returncode == 1, done.stderr
    assert "lambda: failed" in done.stderr and "cannot be served" in done.stderr, done.stderr
    assert "root:" not in done.stdout + done.stderr  # /etc/passwd was never served


# --- defect 11: debris of killed writers; the skip reason of a provider that needs no credentials ------------
def test_store_leaves_no_debris(tmp_path: Path) -> None:
    """The store (which replaced the parsed-recordings cache and its temporary files) is one SQLite file, its
    journal, and one lock file per provider the search asked; a search leaves nothing else. ``--provider lambda``
    asks Lambda and the aggregators that resell Lambda's machines (Spheron, Shadeform, Prime Intellect)."""
    done = _cli("search", "-v", "--provider", "lambda", "--limit", "1", env={"GPUHUB_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    store = tmp_path / "store"
    assert {p.name for p in store.iterdir()} <= {"store.sqlite", "store.sqlite-wal", "store.sqlite-shm", "locks"}
    asked = {line.split(": ", 1)[0] for line in done.stderr.splitlines() if re.match(r"[a-z][a-z0-9_-]*: ok", line)}
    assert "lambda" in asked, done.stderr
    assert {p.name for p in (store / "locks").iterdir()} == {f"{name}.lock" for name in asked}
    assert (store / "store.sqlite").stat().st_size > 0, "the snapshot was written"


def test_provider_without_credentials_or_recording_says_how_to_use_it() -> None:
    from gpuhub import Provider, hookimpl

    class Public(Provider):
        name = "publiccloud"

        def fetch(self, ctx: Any) -> list[Any]:
            return []

    class Plugin:
        @hookimpl
        def register_providers(self, register: Any) -> None:
            register(Public())

    engine = make_engine(Registry(entry_points=[], extra_plugins=[("public", Plugin())]))
    try:
        [(_, status)] = engine.collect(["publiccloud"])
    finally:
        engine.shutdown()
    assert status.state == "skipped"
    assert "no credentials configured" not in (status.reason or "")
    assert "needs no credentials" in (status.reason or "") and "--fetch live" in (status.reason or ""), status.reason


# --- defect 8: a failed or empty recording never replaces a good one ------------------------------------------
def _record(registry: Registry, provider: str, out: Path, fault: Any, match: str) -> Any:
    from faultserver import Fault  # noqa: F401  (the fault kinds live there)
    from harness import LoopbackOnly, live_engine, live_env, serving
    from provider_cases import BY_NAME

    case = BY_NAME[provider]
    transport = LoopbackOnly()
    try:
        with serving(registry, case) as server:
            env = live_env(registry, case, server)
            engine = live_engine(registry, env, transport)
            try:
                if fault is not None:
                    server.inject(fault, match=match)
                [(offers, status)] = engine.collect([provider], mode="record", record_dir=out)
            finally:
                engine.shutdown()
        return offers, status, env
    finally:
        transport.shutdown()


def _tree(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


@pytest.mark.parametrize(("provider", "fault", "match", "words"), [
    ("fakecloud", "http_400", "page=2", "HTTP 400"),  # page 2 fails: the audit's GCP case, on the core's provider
    ("lambda", "empty_answer", "/api/v1/instance-types", "no offers"),  # the audit's empty Lambda answer
])
def test_failed_or_empty_recording_keeps_the_good_one(provider: str, fault: str, match: str, words: str,
                                                      rel_registry: Registry, tmp_path: Path) -> None:
    from faultserver import Fault

    if provider not in rel_registry.providers:
        pytest.skip(f"{provider} is not installed")
    offers, status, env = _record(rel_registry, provider, tmp_path, None, match)  # replay matches this host
    assert status.state == "ok" and offers, status.line()
    good = _tree(tmp_path / provider)
    bad = Fault.http_status(400) if fault == "http_400" else Fault.json_transform(
        lambda data, url: {"data": {}})
    _, status2, _ = _record(rel_registry, provider, tmp_path, bad, match)
    assert status2.state == "failed" and words in (status2.reason or ""), status2.line()
    assert _tree(tmp_path / provider) == good, "a failed recording changed the good one"
    assert [p.name for p in tmp_path.iterdir()] == [provider], "staging debris left behind"
    replayed = make_engine(rel_registry, environ={k: v for k, v in env.items() if k.startswith("GPUHUB_")})
    try:
        [(again, status3)] = replayed.collect([provider], fixtures_dir=tmp_path)
    finally:
        replayed.shutdown()
    assert status3.state == "ok" and offer_keys(again) == offer_keys(offers), status3.line()
