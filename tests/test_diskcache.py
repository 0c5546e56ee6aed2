from __future__ import annotations

import logging
import os
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from gpuhub import Registry
from gpuhub.diskcache import DiskCache
from gpuhub.testing import make_engine, run_provider

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _key(offers):  # type: ignore[no-untyped-def]
    return sorted((o.instance_type, o.region.code, o.price.purchase, o.price.amount, o.price.currency,
                   o.instance.gpu_count, o.instance.gpu.name if o.instance.gpu else None, o.available)
                  for o in offers)


def test_second_process_reads_parsed_offers_from_disk(registry: Registry, tmp_path: Path) -> None:
    disk = DiskCache(tmp_path)
    first, status1 = run_provider(make_engine(registry, disk=disk), "fakecloud")
    [path] = tmp_path.glob("fakecloud-*.json")
    assert os.stat(path).st_mode & 0o077 == 0
    engine2 = make_engine(registry, disk=disk)
    second, status2 = run_provider(engine2, "fakecloud")
    assert engine2.fetch_count == {}  # nothing parsed again
    assert _key(first) == _key(second) and len(second) == 7
    assert (status2.skipped_records, status2.unknown_gpus, status2.source) == (
        status1.skipped_records, status1.unknown_gpus, status1.source)


def test_changed_recording_invalidates(registry: Registry, tmp_path: Path) -> None:
    recording = tmp_path / "rec"
    shutil.copytree(FIXTURES, recording)
    disk = DiskCache(tmp_path / "cache")
    engine = make_engine(registry, disk=disk)
    run_provider(engine, "fakecloud", fixtures_dir=recording)
    page = recording / "fakecloud" / "page1.json"
    page.write_text(page.read_text().replace('"2.99"', '"3.49"'))
    engine2 = make_engine(registry, disk=disk)
    offers, _ = run_provider(engine2, "fakecloud", fixtures_dir=recording)
    assert engine2.fetch_count == {"fakecloud": 1}
    assert {o.price_per_hour for o in offers if o.instance_type == "h100x8"} == {Decimal("27.92")}
    assert len(list((tmp_path / "cache").glob("fakecloud-*.json"))) == 1  # the stale file was replaced


@pytest.mark.parametrize("content", [b"{not json", b'{"format": 1}', b"", b'{"format": 1, "key": "x"}', b"[1, 2, 3]",
                                     b"null", b'"s"'])
def test_corrupt_cache_file_is_discarded_with_a_warning(registry: Registry, tmp_path: Path, content: bytes,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    disk = DiskCache(tmp_path)
    run_provider(make_engine(registry, disk=disk), "fakecloud")
    [path] = tmp_path.glob("fakecloud-*.json")
    path.write_bytes(content)
    with caplog.at_level(logging.WARNING, logger="gpuhub.diskcache"):
        engine = make_engine(registry, disk=disk)
        offers, status = run_provider(engine, "fakecloud")
    assert status.state == "ok" and len(offers) == 7 and engine.fetch_count == {"fakecloud": 1}
    assert "discarding unusable cache file" in caplog.text


def test_tampered_price_is_rejected_by_validation(registry: Registry, tmp_path: Path) -> None:
    disk = DiskCache(tmp_path)
    run_provider(make_engine(registry, disk=disk), "fakecloud")
    [path] = tmp_path.glob("fakecloud-*.json")
    path.write_text(path.read_text().replace('"amount":"1.29"', '"amount":"0"'))
    engine = make_engine(registry, disk=disk)
    offers, _ = run_provider(engine, "fakecloud")
    assert engine.fetch_count == {"fakecloud": 1}
    assert min(o.price_per_hour for o in offers) > 0


def test_disk_cache_can_be_turned_off() -> None:
    assert DiskCache.from_environ({"GPUHUB_NO_DISK_CACHE": "1"}).directory is None
    assert DiskCache.from_environ({"GPUHUB_CACHE_DIR": "/x"}).directory == Path("/x/parsed")
