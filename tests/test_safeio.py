"""gpuhub.fetch.safeio: containment, file kinds, size and nesting limits, atomic writes and debris cleanup."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gpuhub.fetch import safeio


def test_reads_a_regular_file_inside_its_root(tmp_path: Path) -> None:
    (tmp_path / "0001.json").write_bytes(b'{"price": "1.23"}')
    assert safeio.read_bytes(Path("0001.json"), root=tmp_path) == b'{"price": "1.23"}'
    assert safeio.read_json(Path("0001.json"), root=tmp_path) == {"price": "1.23"}


@pytest.mark.parametrize("name", ["../outside.json", "/etc/passwd", "sub/../../outside.json", "", "/dev/zero"])
def test_paths_outside_the_root_are_refused(tmp_path: Path, name: str) -> None:
    root = tmp_path / "rec"
    root.mkdir()
    (tmp_path / "outside.json").write_text("{}")
    with pytest.raises(safeio.UnsafeFileError):
        safeio.read_bytes(Path(name), root=root)


def test_symlink_out_of_the_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("s3cr3t")
    (root / "link.json").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(safeio.UnsafeFileError, match="outside"):
        safeio.read_bytes(Path("link.json"), root=root)


def test_devices_fifos_and_directories_are_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    started = time.monotonic()
    for name in ("fifo", "dir"):
        with pytest.raises(OSError):
            safeio.read_bytes(Path(name), root=tmp_path)
    with pytest.raises(safeio.UnsafeFileError, match="not a regular file"):
        safeio.read_bytes(Path("/dev/zero"))
    assert time.monotonic() - started < 30  # a FIFO with no writer never blocks the read


def test_size_limit(tmp_path: Path) -> None:
    (tmp_path / "big").write_bytes(b"x" * 1001)
    with pytest.raises(safeio.UnsafeFileError, match="over the limit of 1000"):
        safeio.read_bytes(tmp_path / "big", limit=1000)
    assert len(safeio.read_bytes(tmp_path / "big", limit=1001)) == 1001


def test_nesting_limit_before_parsing() -> None:
    bomb = b"[" * 200_000 + b"]" * 200_000
    with pytest.raises(safeio.JsonLimitError, match="deeper than 64"):
        safeio.loads_json(bomb)
    assert safeio.loads_json(b"[" * 64 + b"]" * 64) == eval("[" * 64 + "]" * 64)
    # Brackets inside strings do not count.
    assert safeio.loads_json('{"a": "' + "[" * 500 + '"}') == {"a": "[" * 500}
    with pytest.raises(ValueError):
        safeio.loads_json(b"{not json")


def test_atomic_write_and_debris_cleanup(tmp_path: Path) -> None:
    safeio.atomic_write(tmp_path / "cache.json", b"{}")
    assert (tmp_path / "cache.json").read_bytes() == b"{}"
    assert oct((tmp_path / "cache.json").stat().st_mode & 0o777) == "0o600"
    old = tmp_path / ".cache.json.abc123.tmp"  # what a writer killed mid-write leaves
    old.write_bytes(b"{half")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    young = tmp_path / ".cache.json.def456.tmp"
    young.write_bytes(b"{in progress")
    assert safeio.clean_debris(tmp_path, older_than_s=600) == 1
    assert not old.exists() and young.exists() and (tmp_path / "cache.json").exists()
