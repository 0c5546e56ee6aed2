"""gpuhub-slurm end to end: the bundled example cluster, live reads of a loopback slurmrestd that serves the same
answers (token in the X-SLURM-USER-TOKEN header, never in a recording or message), saved ``scontrol --json``
files, and GRES parsing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from gpuhub_slurm.gres import gpu_counts, mig_profile, split_items

from gpuhub.plugin import LoopbackJson, Offer, Registry, make_engine, network_facts, run_provider, search

RECORDING = Path(__file__).resolve().parents[1] / "gpuhub_slurm" / "recording"
SETTINGS = RECORDING / "settings.toml"
TOKEN = "eyJhbGciOiJIUzI1NiJ9.loopback-slurm-jwt.c2lnbmF0dXJl"


def _rows(offers: tuple[Offer, ...] | list[Offer]) -> dict[str, Offer]:
    return {o.instance_type: o for o in offers}


@pytest.fixture(scope="module")
def replayed() -> tuple[tuple[Offer, ...], Any]:
    engine = make_engine(Registry())
    try:
        return run_provider(engine, "slurm", mode="replay")
    finally:
        engine.shutdown()


# --- GRES -------------------------------------------------------------------------------------------------------
def test_gres_strings() -> None:
    assert gpu_counts("gpu:h100:8(S:0-1)") == {"h100": 8}
    assert gpu_counts("gpu:h100:3(IDX:0-1,5)") == {"h100": 3}  # a comma inside the detail is not an item
    assert gpu_counts("gpu:fake1:0(IDX:N/A),gpu:fake2:0(IDX:N/A)") == {"fake1": 0, "fake2": 0}  # slurmrestd(8)
    assert gpu_counts("gpu:4,shard:8(-/5,5/5,3/5,0/5)") == {"": 4}
    assert gpu_counts("N/A") == {} and gpu_counts("") == {}
    assert split_items("gpu:a100:1,gpu:a100_3g.20gb:2") == ["gpu:a100:1", "gpu:a100_3g.20gb:2"]
    with pytest.raises(ValueError):
        gpu_counts("gpu:h100:lots")
    with pytest.raises(ValueError):
        gpu_counts("gpu:h100:99999")


def test_mig_gres_types() -> None:
    typed = mig_profile("a100_3g.20gb")
    assert typed is not None and typed.card == "a100" and typed.profile == "3g.20gb" and typed.instances == 3
    bare = mig_profile("1g.10gb")
    assert bare is not None and bare.card is None and bare.compute_share == pytest.approx(1 / 7)
    assert mig_profile("h100") is None and mig_profile("") is None


# --- the bundled example cluster ---------------------------------------------------------------------------------
def test_free_gpus_follow_gres_used_and_node_state(replayed: tuple[tuple[Offer, ...], Any]) -> None:
    offers, status = replayed
    assert status.state == "ok", status.line()
    rows = _rows(offers)
    one = rows["gpu/h100x8:1gpu"]
    # h100-01 idle (8), h100-02 with 3 of 8 allocated (5), h100-03 drained (0), h100-04 allocated (0)
    assert one.available_count == 13 and one.provisionable_count == 0
    assert one.instance.gpu is not None and one.instance.gpu.name == "H100"
    assert one.price.amount == Decimal("2.10") and one.instance.vcpus == 28 and one.instance.memory_gib == 244.1
    node = rows["gpu/h100x8"]
    assert node.gpu_count == 8 and node.available_count == 1 and node.price.amount == Decimal("16.8")
    assert one.region.code == "hpc-west" and one.region.city == "Hillsboro" and one.instance.bare_metal is True


def test_typed_mig_gres(replayed: tuple[tuple[Offer, ...], Any]) -> None:
    rows = _rows(replayed[0])
    small = rows["mig/1g.10gbx7+3g.40gbx2:mig-1g.10gb"]
    assert small.instance.gpu is not None and small.instance.gpu.name == "A100-80GB"
    assert small.instance.fractional and small.gpu_count == pytest.approx(1 / 7)
    assert small.available_count == 5 and small.price.amount == Decimal("0.2")
    assert small.instance.gpu_memory_gib == 10.0
    assert rows["mig/1g.10gbx7+3g.40gbx2:mig-3g.40gb"].available_count == 2
    guide = rows["mig/a100x1+a100_3g.20gbx2:mig-3g.20gb"]  # Slurm's GRES guide: gpu:a100:1,gpu:a100_3g.20gb:2
    assert guide.instance.gpu is not None and guide.instance.gpu.name == "A100"
    assert guide.available_count == 2 and guide.price.amount == Decimal("0.471428571")
    assert rows["mig/a100x1+a100_3g.20gbx2:1gpu"].available_count == 1


def test_untyped_gres_and_down_partition(replayed: tuple[tuple[Offer, ...], Any]) -> None:
    rows = _rows(replayed[0])
    l4 = rows["inference/gpux4:1gpu"]
    assert l4.instance.gpu is not None and l4.instance.gpu.name == "L4" and l4.available_count == 3
    viz = rows["viz/l40sx4:1gpu"]  # partition DOWN: its idle node has nothing to give
    assert viz.available_count == 0 and viz.available is False
    assert not any(o.instance_type.startswith("cpu/") for o in replayed[0])


def test_powered_down_cloud_nodes_are_provisionable(replayed: tuple[tuple[Offer, ...], Any]) -> None:
    rows = _rows(replayed[0])
    cloud = rows["cloud/h100x8:1gpu"]
    # h100-c01 and -c02 are IDLE+CLOUD+POWERED_DOWN (8 each); h100-c03 is DOWN: not resumable
    assert cloud.available_count == 0 and cloud.provisionable_count == 16 and cloud.provision_wait_s == 300
    assert cloud.available is True and cloud.capacity_label == "+16 in ~5 min"
    assert rows["cloud/h100x8"].provisionable_count == 2
    assert rows["gpu/h100x8:1gpu"].capacity_label == "13 free"
    record = cloud.to_record()
    assert record["provisionable_count"] == 16 and record["provision_wait_s"] == 300


def test_cli_names_the_example_and_labels_capacity() -> None:
    from gpuhub.plugin import run_cli_json

    rows = run_cli_json("search", "--provider", "slurm", "--gpu", "H100", "--format", "json", "--limit", "20")
    by_type = {r["instance_type"]: r for r in rows}
    assert by_type["cloud/h100x8:1gpu"]["provisionable_count"] == 16
    assert by_type["gpu/h100x8:1gpu"]["available_count"] == 13


# --- live: a loopback slurmrestd ----------------------------------------------------------------------------------
class _Slurmrestd:
    """Serves the recording's answers at /slurm/v0.0.42/{nodes,partitions}/; 401 without the right token."""

    def __init__(self) -> None:
        self.bodies = {f"/slurm/v0.0.42/{kind}/": json.loads((RECORDING / f"{kind}.json").read_text())
                       for kind in ("nodes", "partitions")}
        self.loopback = LoopbackJson(self._answer)
        self.url = self.loopback.url

    def _answer(self, path: str, headers: Any) -> tuple[int, Any]:
        if headers.get("X-SLURM-USER-TOKEN") != TOKEN:
            return 401, {"errors": [{"error": "Authentication failure", "error_number": 1007,
                                     "description": "Authentication failure", "source": ""}]}
        body = self.bodies.get(path)
        return (200, body) if body is not None else (404, None)

    @property
    def seen(self) -> list[tuple[str, str]]:
        """(user, token) of each request."""
        return [(h.get("X-SLURM-USER-NAME", ""), h.get("X-SLURM-USER-TOKEN", "")) for _, h in self.loopback.requests]

    def stop(self) -> None:
        self.loopback.stop()


@pytest.fixture
def slurmrestd() -> Iterator[_Slurmrestd]:
    server = _Slurmrestd()
    try:
        yield server
    finally:
        server.stop()


def _environ(url: str, token: str = TOKEN) -> dict[str, str]:
    return {"GPUHUB_SLURM_URL": url, "SLURM_JWT": token, "GPUHUB_SLURM_USER": "gpuhub",
            "GPUHUB_SLURM_CLUSTER_NAME": "hpc-west", "GPUHUB_SLURM_SETTINGS": str(SETTINGS)}


def _facts(offers: tuple[Offer, ...]) -> dict[str, tuple[object, ...]]:
    return {o.instance_type: (o.price.amount, o.available_count, o.provisionable_count, o.gpu_count,
                              o.region.code, o.region.city) for o in offers}


def test_live_loopback_slurmrestd_equals_replay(slurmrestd: _Slurmrestd,
                                                 replayed: tuple[tuple[Offer, ...], Any]) -> None:
    engine = make_engine(Registry(), environ=_environ(slurmrestd.url))
    try:
        offers, status = run_provider(engine, "slurm", mode="live")
    finally:
        engine.shutdown()
    assert status.state == "ok" and status.mode == "live", status.line()
    assert _facts(offers) == _facts(replayed[0])
    assert set(slurmrestd.seen) == {("gpuhub", TOKEN)}


def test_live_reads_follow_a_new_allocation(slurmrestd: _Slurmrestd) -> None:
    engine = make_engine(Registry(), environ=_environ(slurmrestd.url))
    try:
        before, _ = run_provider(engine, "slurm", mode="live")
        node = next(n for n in slurmrestd.bodies["/slurm/v0.0.42/nodes/"]["nodes"] if n["name"] == "h100-01")
        node["gres_used"], node["state"] = "gpu:h100:4(IDX:0-3)", ["MIXED"]
        after, _ = run_provider(engine, "slurm", mode="live", refresh=True)
    finally:
        engine.shutdown()
    assert _rows(before)["gpu/h100x8:1gpu"].available_count == 13
    assert _rows(after)["gpu/h100x8:1gpu"].available_count == 9
    assert _rows(after)["gpu/h100x8"].available_count == 0


def test_saved_scontrol_json_files(tmp_path: Path, replayed: tuple[tuple[Offer, ...], Any]) -> None:
    nodes, partitions = tmp_path / "nodes.json", tmp_path / "partitions.json"
    nodes.write_text((RECORDING / "nodes.json").read_text())
    partitions.write_text((RECORDING / "partitions.json").read_text())
    engine = make_engine(Registry(), environ={
        "GPUHUB_SLURM_NODES_JSON": str(nodes), "GPUHUB_SLURM_PARTITIONS_JSON": str(partitions),
        "GPUHUB_SLURM_CLUSTER_NAME": "hpc-west", "GPUHUB_SLURM_SETTINGS": str(SETTINGS)})
    try:
        offers, status = run_provider(engine, "slurm", mode="live")
    finally:
        engine.shutdown()
    assert status.state == "ok", status.line()
    assert _facts(offers) == _facts(replayed[0])


def _from_nodes_file(tmp_path: Path, body: dict[str, Any]) -> tuple[tuple[Offer, ...], Any]:
    """The offers of ``body`` saved as a ``scontrol show nodes --json`` file (live mode, the example settings)."""
    nodes = tmp_path / "nodes.json"
    nodes.write_text(json.dumps(body))
    engine = make_engine(Registry(), environ={"GPUHUB_SLURM_NODES_JSON": str(nodes),
                                              "GPUHUB_SLURM_SETTINGS": str(SETTINGS)})
    try:
        offers, status = run_provider(engine, "slurm", mode="live")
    finally:
        engine.shutdown()
    assert status.state == "ok", status.line()
    return offers, status


def test_a_bad_node_is_skipped_and_counted(tmp_path: Path) -> None:
    body = json.loads((RECORDING / "nodes.json").read_text())
    body["nodes"].append({**body["nodes"][0], "name": "bad-1", "gres": "gpu:h100:99999999"})
    body["nodes"].append({**body["nodes"][0], "name": "bad-2", "real_memory": -5})
    offers, status = _from_nodes_file(tmp_path, body)
    assert sum(n for reason, n in status.skipped_reasons.items() if reason.startswith("node:")) == 2
    assert _rows(offers)["gpu/h100x8:1gpu"].available_count == 13


def test_the_token_never_reaches_a_recording_a_message_or_a_log(slurmrestd: _Slurmrestd, tmp_path: Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    engine = make_engine(Registry(), environ=_environ(slurmrestd.url))
    try:
        with caplog.at_level("DEBUG"):
            offers, status = run_provider(engine, "slurm", mode="record", record_dir=tmp_path / "rec")
    finally:
        engine.shutdown()
    assert status.state == "ok", status.line()
    written = "".join(p.read_text(errors="replace") for p in (tmp_path / "rec").rglob("*") if p.is_file())
    assert written and TOKEN not in written
    assert TOKEN not in caplog.text and TOKEN not in json.dumps(status.to_dict())
    assert TOKEN not in json.dumps([o.to_record() for o in offers])
    rejected = make_engine(Registry(), environ=_environ(slurmrestd.url, token="wrong-token-0123456789"))
    try:
        _, refused = run_provider(rejected, "slurm", mode="live")
    finally:
        rejected.shutdown()
    assert refused.state == "failed" and "SLURM_JWT" in (refused.reason or "")
    assert "wrong-token-0123456789" not in json.dumps(refused.to_dict())


def test_search_lists_the_example_only_when_named() -> None:
    general = search(gpu="H100", limit=200)
    assert not any(o.provider == "slurm" for o in general.offers)
    named = search(provider="slurm", gpu="H100", limit=50)
    assert {o.instance_type for o in named.offers} >= {"gpu/h100x8:1gpu", "cloud/h100x8:1gpu"}


def test_counts_survive_the_store(tmp_path: Path) -> None:
    """Served from a stored snapshot (the offers' columns and their extras), the counts are the fetched ones."""
    from gpuhub.plugin import run_cli_json

    env = {"GPUHUB_STORE": str(tmp_path / "store"), "GPUHUB_CACHE_DIR": str(tmp_path / "cache")}
    args = ("search", "--provider", "slurm", "--gpu", "H100", "--format", "json", "--limit", "20")
    first = {r["instance_type"]: r for r in run_cli_json(*args, env=env)}
    stored = {r["instance_type"]: r for r in run_cli_json(*args, env=env)}
    for rows in (first, stored):
        assert (rows["cloud/h100x8:1gpu"]["provisionable_count"], rows["cloud/h100x8:1gpu"]["provision_wait_s"]) \
            == (16, 300)
        assert rows["gpu/h100x8:1gpu"]["available_count"] == 13


def test_the_example_cluster_states_no_network_or_disk(replayed: Any) -> None:
    """Issue 28: the example cluster's nodes configure no TmpDisk (``temporary_disk`` 0) and Slurm states no network
    bandwidth or fabric (README): every offer leaves them unknown, with no source claimed."""
    offers = replayed[0]
    assert offers and [network_facts(o) for o in offers if network_facts(o)] == []


def test_a_configured_tmp_disk_is_the_whole_nodes_storage(tmp_path: Path) -> None:
    """Issue 28: where the nodes state a TmpDisk (``temporary_disk``, MiB), a whole node of the shape has the
    smallest of them as its storage, with its source; one-GPU slices and nodes without TmpDisk claim none."""
    body = json.loads((RECORDING / "nodes.json").read_text())
    sizes = {"h100-01": 7_340_032, "h100-02": 7_340_032, "h100-03": 3_670_016, "h100-04": 7_340_032}
    for node in body["nodes"]:
        node["temporary_disk"] = sizes.get(node["name"], 0)
    rows = _rows(_from_nodes_file(tmp_path, body)[0])
    assert network_facts(rows["gpu/h100x8"]) == {"storage_gib": 3584.0, "network_source": (
        "Slurm node TmpDisk (slurmrestd temporary_disk, MiB): the smallest of the shape's 4 nodes; Slurm states no "
        "network bandwidth or fabric")}
    assert network_facts(rows["gpu/h100x8:1gpu"]) == {} and network_facts(rows["cloud/h100x8"]) == {}
