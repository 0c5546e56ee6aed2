"""`gpuhub store`, `history` and `serve` on a store a search just filled, every plugin installed (fresh processes,
each test with a store of its own: the session's is shared with searches of other recordings)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .conftest import Run


def _own(tmp_path: Path) -> Run:
    """``gpuhub_cli`` with a home (and store) of this test's own."""
    from .conftest import _command, _environ

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([*_command(), *args], capture_output=True, text=True, timeout=300,
                              env=_environ(tmp_path, {}), cwd=tmp_path)
        assert not check or done.returncode == 0, done.stderr
        return done

    return run


def test_store_show_lists_what_the_search_stored_and_names_a_provider_it_lacks(tmp_path: Path) -> None:
    gpuhub_cli = _own(tmp_path)
    gpuhub_cli("search", "--gpu", "H100", "--provider", "lambda", "--provider", "coreweave")
    shown = json.loads(gpuhub_cli("store", "show", "--provider", "lambda", "--format", "json").stdout)
    [lambda_snapshot] = shown["snapshots"][:1]
    assert lambda_snapshot["provider"] == "lambda" and lambda_snapshot["complete"] is True
    assert lambda_snapshot["offers"] == 340 and lambda_snapshot["source_kind"] == "reconstructed"
    missing = gpuhub_cli("store", "show", "--provider", "nosuch", check=False)
    assert missing.returncode == 2
    assert "--provider: no snapshot of 'nosuch' is stored" in missing.stderr
    assert "coreweave" in missing.stderr and "lambda" in missing.stderr


def test_serve_on_a_port_in_use_is_a_usage_error_before_it_claims_to_serve(gpuhub_cli: Run) -> None:
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        done = gpuhub_cli("serve", "--port", str(port), check=False)
    assert done.returncode == 2
    assert f"--host/--port: cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "serving on" not in done.stderr


def test_prune_older_than_alone_removes_every_older_snapshot_but_the_newest_complete(tmp_path: Path) -> None:
    from .conftest import _command, _environ

    env = _environ(tmp_path, {})

    def run(*args: str) -> str:
        done = subprocess.run([*_command(), *args], capture_output=True, text=True, timeout=300, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout + done.stderr

    for _ in range(3):  # Lambda and the aggregators that resell its machines, each refreshed three times
        run("search", "--provider", "lambda", "--refresh")

    def snapshots() -> dict[str, list[dict[str, object]]]:
        done = subprocess.run([*_command(), "store", "show", "--format", "json"], capture_output=True, text=True,
                              timeout=300, env=env)
        by: dict[str, list[dict[str, object]]] = {}
        for snap in json.loads(done.stdout)["snapshots"]:
            by.setdefault(str(snap["provider"]), []).append(snap)
        return by

    before = snapshots()
    assert "lambda" in before and {len(s) for s in before.values()} == {3}, before
    # every snapshot but each provider's newest complete one: 2 per provider
    assert f"removed {2 * len(before)} snapshots" in run("store", "prune", "--older-than", "0")
    left = snapshots()
    assert set(left) == set(before) and all(len(s) == 1 and s[0]["complete"] for s in left.values())
    assert [(s["offers"], s["complete"]) for s in left["lambda"]] == [(340, True)]
    assert all(left[p][0]["id"] == max(int(str(s["id"])) for s in before[p]) for p in left)  # the newest kept


def test_history_of_a_provider_never_stored_is_an_error_naming_the_stored_ones(tmp_path: Path) -> None:
    gpuhub_cli = _own(tmp_path)
    gpuhub_cli("search", "--provider", "lambda")
    done = gpuhub_cli("history", "--provider", "nope", check=False)
    assert done.returncode == 2
    assert "--provider: nothing is stored for nope; stored providers:" in done.stderr and "lambda" in done.stderr
    listed = json.loads(gpuhub_cli("history", "--provider", "lambda", "--format", "json").stdout)
    assert listed["series"] and {s["provider"] for s in listed["series"]} == {"lambda"}
