"""Published catalogs: checks before publishing, a directory and a loopback S3 bucket (moto), an HTTP reader with
ETags, and the last good copy kept when a file in the bucket is corrupted or truncated."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
import servers
from synth import T0, offer, put

from gpuhub.publish import CatalogCheckError, fetch_catalog, publish
from gpuhub.publish.remote import TargetError
from gpuhub.store.sqlite import SqliteStore

H = dt.timedelta(hours=1)


def _store(tmp_path: Path, lambda_offers: int = 5) -> SqliteStore:
    store = SqliteStore(tmp_path / "store")
    put(store, "lambda", [offer("lambda", f"gpu_{n}x_h100", "us-east-1", f"{2.49 * n:.2f}", count=n)
                          for n in range(1, lambda_offers + 1)], T0)
    put(store, "aws", [offer("aws", "p5.48xlarge", "us-east-1", "55.04"),
                       offer("aws", "g6.xlarge", "eu-west-1", "0.8048", gpu="L4", count=1, purchase="spot")], T0)
    return store


def _gpus():  # type: ignore[no-untyped-def]
    from gpuhub.fetch.plugins import Registry

    return Registry(entry_points=[]).gpus


def test_publish_to_a_directory_writes_a_manifest_with_checksums(tmp_path: Path) -> None:
    store = _store(tmp_path)
    report = publish(str(tmp_path / "pub"), store, gpus=_gpus(), now=T0)
    manifest = json.loads((tmp_path / "pub" / "catalog.json").read_text())
    assert report.version == manifest["version"] == 1 and manifest["previous"] is None
    assert {name: e["offers"] for name, e in manifest["providers"].items()} == {"aws": 2, "lambda": 5}
    files = manifest["providers"]["aws"]["files"]
    assert set(files) == {"instance.npy", "region.npy", "terms.npy", "amount.npy", "source.npy", "extra.npy",
                          "price.npy", "available.npy", "tables.json"}
    import hashlib

    for info in files.values():
        data = (tmp_path / "pub" / info["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == info["sha256"] and len(data) == info["size"]
    assert manifest["providers"]["lambda"]["status"]["state"] == "ok"
    assert manifest["providers"]["lambda"]["data_date"] == "2026-11-01"
    fetched = fetch_catalog(str(tmp_path / "pub"), environ={"GPUHUB_CACHE_DIR": str(tmp_path / "cache")})
    assert fetched.state == "fresh" and fetched.version == 1
    assert sorted(str(o.price.amount) for o in fetched.columns["lambda"]) == ["12.45", "2.49", "4.98", "7.47",
                                                                             "9.96"]
    store.close()


def test_a_failed_check_publishes_nothing(tmp_path: Path) -> None:
    store = _store(tmp_path)
    publish(str(tmp_path / "pub"), store, gpus=_gpus())
    before = (tmp_path / "pub" / "catalog.json").read_bytes()
    # lambda now answers with 2 of its 5 offers (60 % lost) and aws with an unknown GPU
    put(store, "lambda", [offer("lambda", "gpu_1x_h100", "us-east-1", "2.49", count=1),
                          offer("lambda", "gpu_2x_h100", "us-east-1", "4.98", count=2)], T0 + H)
    from gpuhub import Gpu

    odd = offer("aws", "dl2q.24xlarge", "us-west-2", "8.92")
    odd = odd.model_copy(update={"instance": odd.instance.model_copy(update={"gpu": Gpu(name="Qualcomm AI100",
                                                                                        known=False)})})
    put(store, "aws", [offer("aws", "p5.48xlarge", "us-east-1", "55.04"), odd], T0 + H)
    with pytest.raises(CatalogCheckError) as caught:
        publish(str(tmp_path / "pub"), store, gpus=_gpus())
    assert caught.value.problems == [
        "aws: unknown GPU names Qualcomm AI100 (allow them with --allow-unknown-gpu NAME once checked)",
        "lambda: 2 offers, 3 fewer than the last catalog's 5 (60% lost; at most 20% allowed)"]
    assert (tmp_path / "pub" / "catalog.json").read_bytes() == before
    assert not (tmp_path / "pub" / "v2").exists()
    # allowed explicitly, with a looser loss bound: version 2
    report = publish(str(tmp_path / "pub"), store, gpus=_gpus(), max_loss=0.7, allow_unknown_gpus=["qualcomm ai100"])
    assert report.version == 2
    store.close()


def test_s3_publish_and_http_etag_reader_keep_the_last_good_catalog(tmp_path: Path, s3_endpoint: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import boto3

    monkeypatch.setenv("GPUHUB_S3_ENDPOINT_URL", s3_endpoint)
    s3 = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1")
    s3.create_bucket(Bucket="team-catalog")
    store = _store(tmp_path)
    publish("s3://team-catalog/gpuhub", store, gpus=_gpus())
    env = {"GPUHUB_CACHE_DIR": str(tmp_path / "cache")}
    first = fetch_catalog("s3://team-catalog/gpuhub", environ=env)
    assert first.state == "fresh" and first.version == 1
    again = fetch_catalog("s3://team-catalog/gpuhub", environ=env)
    assert again.state == "unchanged"  # If-None-Match answered 304
    # version 2 changes aws's price; then a data file of version 2 is truncated in the bucket
    put(store, "aws", [offer("aws", "p5.48xlarge", "us-east-1", "49.50"),
                       offer("aws", "g6.xlarge", "eu-west-1", "0.8048", gpu="L4", count=1, purchase="spot")], T0 + H)
    publish("s3://team-catalog/gpuhub", store, gpus=_gpus())
    key = "gpuhub/v2/aws/tables.json"
    body = s3.get_object(Bucket="team-catalog", Key=key)["Body"].read()
    s3.put_object(Bucket="team-catalog", Key=key, Body=body[: len(body) // 2])
    stale = fetch_catalog("s3://team-catalog/gpuhub", environ=env)
    assert stale.state == "stale" and stale.version == 1
    assert "v2/aws/tables.json: checksum mismatch" in (stale.reason or "")
    assert sorted(str(o.price.amount) for o in stale.columns["aws"]) == ["0.8048", "55.04"]
    # repaired: the reader moves on to version 2
    s3.put_object(Bucket="team-catalog", Key=key, Body=body)
    fixed = fetch_catalog("s3://team-catalog/gpuhub", environ=env)
    assert fixed.state == "fresh" and fixed.version == 2
    assert sorted(o.price.amount for o in fixed.columns["aws"]) == [Decimal("0.8048"), Decimal("49.50")]
    store.close()


def test_http_reader_uses_etags_and_survives_a_corrupted_file(tmp_path: Path) -> None:
    store = _store(tmp_path)
    publish(str(tmp_path / "pub"), store, gpus=_gpus())
    env = {"GPUHUB_CACHE_DIR": str(tmp_path / "cache")}
    with servers.http_directory(tmp_path / "pub") as (url, log):
        assert fetch_catalog(url, environ=env).state == "fresh"
        files = len(log)
        assert files == 1 + 2 * 9  # the manifest and 9 parts per provider
        assert fetch_catalog(url, environ=env).state == "unchanged"
        assert log[-1] == ("/catalog.json", 304) and len(log) == files + 1
        # version 2 with new lambda prices, and a flipped byte in one of its files (same size): detected, the
        # last good copy served
        put(store, "lambda", [offer("lambda", f"gpu_{n}x_h100", "us-east-1", f"{2.29 * n:.2f}", count=n)
                              for n in range(1, 6)], T0 + H)
        publish(str(tmp_path / "pub"), store, gpus=_gpus())
        manifest = json.loads((tmp_path / "pub" / "catalog.json").read_text())
        target = tmp_path / "pub" / manifest["providers"]["lambda"]["files"]["price.npy"]["path"]
        data = bytearray(target.read_bytes())
        data[-1] ^= 0xFF
        target.write_bytes(bytes(data))
        kept = fetch_catalog(url, environ=env)
        assert kept.state == "stale" and kept.version == 1 and "price.npy: checksum mismatch" in (kept.reason or "")
    # the server is gone: still the last good copy
    gone = fetch_catalog(url, environ=env)
    assert gone.state == "stale" and gone.version == 1
    with pytest.raises(TargetError):
        fetch_catalog(url, environ={"GPUHUB_CACHE_DIR": str(tmp_path / "empty-cache")})
    store.close()


def _gpuhub(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gpuhub.cli", *args], capture_output=True, text=True, env=env,
                          timeout=300, check=False)


def test_a_fresh_process_with_only_the_catalog_url_gives_the_publishers_answer(
        tmp_path: Path, s3_endpoint: str) -> None:
    import boto3

    s3 = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1")
    s3.create_bucket(Bucket="published")
    # a public bucket: anyone may read, only the team's job writes (readers send unsigned requests)
    s3.put_bucket_policy(Bucket="published", Policy=json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::published/*"}]}))
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GPUHUB_", "AWS_", "LAMBDA_", "AZURE_",
                                                                      "GOOGLE_"))}
    s3_env = {"GPUHUB_S3_ENDPOINT_URL": s3_endpoint, "AWS_ACCESS_KEY_ID": "testing",
              "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}
    publisher = {**base, **s3_env, "GPUHUB_STORE": str(tmp_path / "team-store"),
                 "GPUHUB_CACHE_DIR": str(tmp_path / "publisher-cache")}
    # The bucket key would switch the aws provider to live (no internet here): the publisher replays.
    published = _gpuhub(["catalog", "publish", "s3://published/gpuhub", "--allow-unknown-gpu", "*", "--fetch",
                         "replay"], publisher)
    assert published.returncode == 0, published.stderr
    assert json.loads(published.stdout)["version"] == 1
    query = ["search", "-v", "--gpu", "H100", "--limit", "8", "--format", "json"]
    expected = _gpuhub([*query, "--fetch", "replay"], publisher)
    assert expected.returncode == 0, expected.stderr
    # the reader: no store of its own, no provider credentials, only the catalog's address (and the S3 endpoint)
    reader = {**base, "GPUHUB_CATALOG_URL": "s3://published/gpuhub", "GPUHUB_S3_ENDPOINT_URL": s3_endpoint,
              "GPUHUB_STORE": "off", "GPUHUB_CACHE_DIR": str(tmp_path / "reader-cache")}
    answer = _gpuhub(query, reader)
    assert answer.returncode == 0, answer.stderr
    assert json.loads(answer.stdout) == json.loads(expected.stdout)
    assert "published catalog version 1" in answer.stderr
    # version 2 (lambda's 8x H100 at 21.50 instead of 23.92), then one of its files is truncated in the bucket
    recording = tmp_path / "fixtures" / "lambda"
    shutil.copytree(Path(__file__).resolve().parents[2] / "plugins/gpuhub-lambda/gpuhub_lambda/recording", recording)
    body = recording / "instance-types.json"
    body.write_text(body.read_text().replace('"price_cents_per_hour": 2392', '"price_cents_per_hour": 2150'))
    assert _gpuhub(["search", "--provider", "lambda", "--fixtures", str(tmp_path / "fixtures"), "--fetch", "replay"],
                   publisher).returncode == 0
    second = _gpuhub(["catalog", "publish", "s3://published/gpuhub", "--no-refresh", "--allow-unknown-gpu", "*"],
                     publisher)
    assert second.returncode == 0, second.stderr
    manifest = json.loads(s3.get_object(Bucket="published", Key="gpuhub/catalog.json")["Body"].read())
    key = "gpuhub/" + manifest["providers"]["lambda"]["files"]["tables.json"]["path"]
    data = s3.get_object(Bucket="published", Key=key)["Body"].read()
    s3.put_object(Bucket="published", Key=key, Body=data[:100])
    kept = _gpuhub(query, reader)
    assert kept.returncode == 0, kept.stderr
    assert json.loads(kept.stdout) == json.loads(expected.stdout)  # the last good catalog (version 1)
    assert "checksum mismatch" in kept.stderr and "last good copy" in kept.stderr
