"""Issue 26: ``gpuhub catalog publish`` succeeds with the bundled plugins and leaves an example recording (the
Kubernetes demo clusters) out unless it is named."""

from __future__ import annotations

import json
from pathlib import Path

from gpuhub.kit.testing import reset_state, run_cli


def _publish(tmp_path: Path, *extra: str) -> tuple[int, str, dict[str, object]]:
    env = {"GPUHUB_STORE": str(tmp_path / "store"), "GPUHUB_PLUGINS": "lambda,coreweave,kubernetes"}
    reset_state()
    try:
        done = run_cli(["catalog", "publish", str(tmp_path / "out"), "--fetch", "replay", *extra], env=env)
    finally:
        reset_state()
    manifest = json.loads((tmp_path / "out" / "catalog.json").read_text()) if done.exit_code == 0 else {}
    return done.exit_code, done.output, manifest


def test_the_example_recording_is_left_out_unless_named(tmp_path: Path) -> None:
    code, output, manifest = _publish(tmp_path)
    assert code == 0, output
    assert "kubernetes: left out: its bundled data is an example" in output
    assert sorted(manifest["providers"]) == ["coreweave", "lambda"]  # type: ignore[call-overload]
    code, output, manifest = _publish(tmp_path / "named", "--provider", "kubernetes")
    assert code == 0, output
    assert sorted(manifest["providers"]) == ["kubernetes"]  # type: ignore[call-overload]
