"""Signed published catalogs (issue 24, defect 6): a publisher makes a key pair (``gpuhub catalog keygen``) and
publishes with ``--sign-key``; a reader that sets ``GPUHUB_CATALOG_PUBLIC_KEY`` requires the signature. A good
signature is accepted and says who published; a tampered file, a tampered manifest, a signature by another key and
an unsigned catalog are each rejected with their reason while the last good copy (lambda at 2.49) is served.

Through the public CLI (``catalog keygen``, ``catalog publish``, ``catalog show``, ``search``) in this process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from synth import T0, offer, put

from gpuhub.kit.testing import reset_state, run_cli
from gpuhub.store.sqlite import SqliteStore

pytest.importorskip("cryptography", reason="catalog signatures need the sign extra (pip install 'gpuhub-core[sign]')")


def _keygen(path: Path) -> str:
    made = run_cli(["catalog", "keygen", str(path)])
    assert made.exit_code == 0, made.output
    public = Path(f"{path}.pub").read_text().strip()
    assert made.stdout.strip() == public and public.startswith("ed25519:"), made.stdout
    assert path.stat().st_mode & 0o777 == 0o600
    return public


def _publish(pub: Path, store: Path, price: str, hour: int, *extra: str) -> Any:
    db = SqliteStore(store)
    put(db, "lambda", [offer("lambda", "gpu_1x_h100", "us-east-1", price, count=1)], T0.replace(hour=hour))
    db.close()
    done = run_cli(["catalog", "publish", str(pub), "--no-refresh", "--provider", "lambda", *extra],
                   env={"GPUHUB_STORE": str(store)})
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


def _show(pub: Path, env: dict[str, str]) -> dict[str, Any]:
    shown = run_cli(["catalog", "show", str(pub)], env=env)
    assert shown.exit_code == 0, shown.output
    answer: dict[str, Any] = json.loads(shown.stdout)
    return answer


def _key_id(public: str) -> str:
    import base64
    import hashlib

    return hashlib.sha256(base64.b64decode(public.removeprefix("ed25519:"))).hexdigest()[:16]


@pytest.fixture
def signed(tmp_path: Path) -> tuple[Path, Path, dict[str, str], str]:
    """Version 1 (lambda gpu_1x_h100 at 2.49) published with the team's key and read once by a reader that requires
    the team's signature. Returns the catalog, the private key, the reader's environment and the key id."""
    key = tmp_path / "keys" / "team.key"
    key.parent.mkdir()
    public = _keygen(key)
    report = _publish(tmp_path / "pub", tmp_path / "store", "2.49", 0, "--sign-key", str(key))
    assert report["signed_by"] == _key_id(public) and report["version"] == 1
    manifest = json.loads((tmp_path / "pub" / "catalog.json").read_text())
    assert manifest["signed_by"] == {"algorithm": "ed25519", "key_id": _key_id(public), "public_key": public}
    assert (tmp_path / "pub" / "v1" / "catalog.json.sig").is_file()
    env = {"GPUHUB_CACHE_DIR": str(tmp_path / "cache"), "GPUHUB_CATALOG_PUBLIC_KEY": public}
    first = _show(tmp_path / "pub", env)
    assert (first["state"], first["version"], first["signed_by"], first["signature_verified"]) == \
        ("fresh", 1, _key_id(public), True), first
    return tmp_path / "pub", key, env, _key_id(public)


def _rejected(pub: Path, env: dict[str, str], reason: str) -> None:
    """The newest version is refused naming ``reason``; version 1 (2.49, still signed) is served."""
    from gpuhub.publish import fetch_catalog

    shown = _show(pub, env)
    assert (shown["state"], shown["version"]) == ("stale", 1), shown
    assert reason in (shown["reason"] or ""), shown["reason"]
    kept = fetch_catalog(str(pub), environ=env)
    assert kept.state == "stale" and kept.signed_by is not None
    assert [str(o.price.amount) for o in kept.columns["lambda"]] == ["2.49"]


def test_a_good_signature_is_accepted_and_served_by_a_search(signed: tuple[Path, Path, dict[str, str], str],
                                                            tmp_path: Path) -> None:
    pub, key, env, key_id = signed
    _publish(pub, tmp_path / "store", "2.59", 1, "--sign-key", str(key))
    by_file = {**env, "GPUHUB_CATALOG_PUBLIC_KEY": f"{key}.pub"}  # the .pub file's path works as well
    shown = _show(pub, by_file)
    assert (shown["state"], shown["version"], shown["signed_by"]) == ("fresh", 2, key_id), shown
    reset_state()
    try:
        found = run_cli(["search", "-v", "--provider", "lambda", "--format", "json", "--all-regions"],
                        env={**env, "GPUHUB_CATALOG_URL": str(pub), "GPUHUB_CATALOG_TTL": "0", "GPUHUB_STORE": "off",
                             "GPUHUB_CACHE_DIR": str(tmp_path / "search-cache")})
    finally:
        reset_state()
    assert found.exit_code == 0, found.output
    rows = [r for r in json.loads(found.stdout) if r["provider"] == "lambda"]  # not resold through others
    assert [(r["instance_type"], r["price_per_hour"]) for r in rows] == [("gpu_1x_h100", 2.59)]
    assert f"published catalog version 2 ({pub}), published" in found.stderr
    assert f"signed by key {key_id}" in found.stderr, found.stderr


def test_a_tampered_file_is_rejected(signed: tuple[Path, Path, dict[str, str], str], tmp_path: Path) -> None:
    pub, key, env, _ = signed
    old = json.loads((pub / "catalog.json").read_text())["providers"]["lambda"]["files"]
    assert _publish(pub, tmp_path / "store", "2.59", 1, "--sign-key", str(key))["version"] == 2
    new = json.loads((pub / "catalog.json").read_text())["providers"]["lambda"]["files"]
    # a part the reader does not hold yet (the prices changed), so it is downloaded
    changed = sorted(info["path"] for part, info in new.items() if info["sha256"] != old[part]["sha256"])[0]
    data = pub / changed
    raw = bytearray(data.read_bytes())
    raw[-1] ^= 0x01  # one bit of a signed catalog's data file
    data.write_bytes(bytes(raw))
    _rejected(pub, env, "checksum mismatch")


def test_a_tampered_manifest_is_rejected(signed: tuple[Path, Path, dict[str, str], str], tmp_path: Path) -> None:
    pub, key, env, key_id = signed
    _publish(pub, tmp_path / "store", "2.59", 1, "--sign-key", str(key))
    manifest = json.loads((pub / "catalog.json").read_text())
    manifest["providers"]["lambda"]["offers"] = 7  # any change after signing, however small
    (pub / "catalog.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
    _rejected(pub, env, f"signature invalid: the manifest or its signature was changed after signing (key {key_id})")


def test_a_signature_by_another_key_is_rejected(signed: tuple[Path, Path, dict[str, str], str],
                                                tmp_path: Path) -> None:
    pub, _, env, key_id = signed
    other = tmp_path / "keys" / "intruder.key"
    other_id = _key_id(_keygen(other))
    _publish(pub, tmp_path / "store", "2.59", 1, "--sign-key", str(other))
    _rejected(pub, env, f"signature by key {other_id}, which GPUHUB_CATALOG_PUBLIC_KEY does not trust "
                        f"(trusted: {key_id})")


def test_a_missing_signature_is_rejected_when_required(signed: tuple[Path, Path, dict[str, str], str],
                                                       tmp_path: Path) -> None:
    pub, _, env, key_id = signed
    _publish(pub, tmp_path / "store", "2.59", 1)  # no --sign-key
    assert "signed_by" not in json.loads((pub / "catalog.json").read_text())
    _rejected(pub, env, f"signature missing: the catalog is not signed, and GPUHUB_CATALOG_PUBLIC_KEY requires a "
                        f"signature by key {key_id} (no v2/catalog.json.sig)")
    # A reader that requires no signature takes the unsigned version 2.
    open_env = {"GPUHUB_CACHE_DIR": env["GPUHUB_CACHE_DIR"]}
    shown = _show(pub, open_env)
    assert (shown["state"], shown["version"], shown["signed_by"], shown["signature_verified"]) == \
        ("fresh", 2, None, False), shown


def test_an_unsigned_copy_kept_before_a_key_was_required_is_not_served(tmp_path: Path) -> None:
    _publish(tmp_path / "pub", tmp_path / "store", "2.49", 0)
    env = {"GPUHUB_CACHE_DIR": str(tmp_path / "cache")}
    assert _show(tmp_path / "pub", env)["state"] == "fresh"
    public = _keygen(tmp_path / "team.key")
    refused = run_cli(["catalog", "show", str(tmp_path / "pub")], env={**env, "GPUHUB_CATALOG_PUBLIC_KEY": public})
    assert refused.exit_code == 1 and "signature missing" in refused.output, refused.output


@pytest.mark.parametrize(("value", "words"), [
    ("ed25519:not-base64!", "is not base64"),
    ("ed25519:AAAA", "32 bytes"),
    ("/nonexistent/team.key.pub", "cannot be read"),
])
def test_a_bad_public_key_setting_is_a_clear_error(value: str, words: str, tmp_path: Path) -> None:
    _publish(tmp_path / "pub", tmp_path / "store", "2.49", 0)
    done = run_cli(["catalog", "show", str(tmp_path / "pub")],
                   env={"GPUHUB_CACHE_DIR": str(tmp_path / "cache"), "GPUHUB_CATALOG_PUBLIC_KEY": value})
    assert done.exit_code == 1 and "GPUHUB_CATALOG_PUBLIC_KEY" in done.output and words in done.output, done.output
    assert "Traceback" not in done.output


def test_keygen_never_overwrites_and_a_bad_sign_key_publishes_nothing(tmp_path: Path) -> None:
    key = tmp_path / "team.key"
    _keygen(key)
    again = run_cli(["catalog", "keygen", str(key)])
    assert again.exit_code == 2 and "exists already" in again.output, again.output
    (tmp_path / "not-a-key").write_text("hello")
    db = SqliteStore(tmp_path / "store")
    put(db, "lambda", [offer("lambda", "gpu_1x_h100", "us-east-1", "2.49", count=1)], T0)
    db.close()
    done = run_cli(["catalog", "publish", str(tmp_path / "pub"), "--no-refresh", "--provider", "lambda",
                    "--sign-key", str(tmp_path / "not-a-key")], env={"GPUHUB_STORE": str(tmp_path / "store")})
    assert done.exit_code == 2 and "--sign-key" in done.output and "not an unencrypted PEM private key" in \
        done.output, done.output
    assert not (tmp_path / "pub").exists()
