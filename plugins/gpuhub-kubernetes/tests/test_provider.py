"""gpuhub-kubernetes end to end: the bundled two-cluster recording, live reads of a loopback API server that
speaks the same endpoints, and free counts that follow the pods."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from gpuhub_kubernetes.parse import node_facts, parse_cpu, parse_memory_gib, quantity, requested_by_node

from gpuhub.plugin import Offer, Registry, make_engine, run_provider

RECORDING = Path(__file__).resolve().parents[1] / "gpuhub_kubernetes" / "recording"
SETTINGS = RECORDING / "settings.toml"


def _by_type(offers: tuple[Offer, ...] | list[Offer]) -> dict[tuple[str, str], Offer]:
    return {(o.region.code, o.instance_type): o for o in offers}


@pytest.fixture(scope="module")
def replayed() -> tuple[tuple[Offer, ...], Any]:
    engine = make_engine(Registry())
    try:
        return run_provider(engine, "kubernetes", mode="replay")
    finally:
        engine.shutdown()


# --- parsing ----------------------------------------------------------------------------------------------------
def test_quantities() -> None:
    assert parse_cpu("95500m") == 95.5 and parse_cpu("224") == 224.0
    assert parse_memory_gib("2Ti") == 2048.0 and parse_memory_gib("30Gi") == 30.0
    assert quantity("1e3") == Decimal(1000) and quantity("64G") == Decimal(64 * 10**9)
    with pytest.raises(ValueError):
        quantity("lots")


def test_finished_and_unbound_pods_hold_nothing() -> None:
    pods = json.loads((RECORDING / "gpu-east-pods.json").read_text())["items"]
    held, bad = requested_by_node(pods)
    assert bad == 0
    assert held["h100-b"]["nvidia.com/gpu"] == 2  # the Succeeded sweep's 4 GPUs are free again
    assert held["h100-a"]["nvidia.com/gpu"] == 8 and "" not in held  # the Pending pod is bound to no node


def test_single_strategy_node_is_slices_of_the_card() -> None:
    nodes = json.loads((RECORDING / "lab-eu-nodes.json").read_text())["items"]
    facts = node_facts(next(n for n in nodes if n["metadata"]["name"] == "a100-single-1"), {})
    assert facts.product == "NVIDIA-A100-SXM4-40GB" and facts.gpu_memory_gib is None
    [(unit, cap)] = facts.slices.items()
    assert unit.profile == "1g.5gb" and unit.memory_gib == 4.75 and cap.allocatable == cap.free == 14


# --- the bundled recording --------------------------------------------------------------------------------------
def test_recording_whole_gpus_and_free_counts(replayed: tuple[tuple[Offer, ...], Any]) -> None:
    offers, status = replayed
    assert status.state == "ok", status.line()
    rows = _by_type(offers)
    node = rows[("gpu-east", "dgx-h100")]
    assert node.instance.gpu is not None and node.instance.gpu.name == "H100" and node.gpu_count == 8
    assert node.price.amount == Decimal("16.80") and node.price.currency == "USD"
    assert node.available is False and node.available_count == 0  # neither node has all 8 GPUs free
    one = rows[("gpu-east", "dgx-h100:1gpu")]
    assert one.available_count == 6 and one.available is True  # 16 GPUs, 8 + 2 held by running pods
    assert one.price.amount == Decimal("2.10") and one.instance.vcpus == 28
    assert one.region.zone == "east-a" and one.region.country == "US" and one.region.city == "Ashburn"
    assert one.instance.bare_metal is True and rows[("lab-eu", "g2-l4-8:1gpu")].instance.bare_metal is False
    l4 = rows[("lab-eu", "g2-l4-8:1gpu")]
    assert l4.available_count == 1 and l4.price.amount == Decimal("0.45") and l4.region.continent == "Europe"
    cordoned = rows[("gpu-east", "l40s-4:1gpu")]
    assert cordoned.available is False and cordoned.available_count == 0


def test_recording_mig_slices(replayed: tuple[tuple[Offer, ...], Any]) -> None:
    offers, _ = replayed
    rows = _by_type(offers)
    small = rows[("gpu-east", "hgx-a100-2:mig-1g.10gb")]
    assert small.instance.fractional and small.gpu_count == pytest.approx(1 / 7)
    assert small.instance.gpu is not None and small.instance.gpu.name == "A100-80GB"
    assert small.instance.gpu_memory_gib == 9.5  # the slice's memory as GFD labels it, not 80 GiB / 7
    assert small.available_count == 5 and small.price.amount == Decimal("0.2")
    big = rows[("gpu-east", "hgx-a100-2:mig-3g.40gb")]
    assert big.available_count == 2 and big.price.amount == Decimal("0.6")
    single = rows[("lab-eu", "a100-40-x2:mig-1g.5gb")]
    assert single.instance.gpu is not None and single.instance.gpu.name == "A100"
    assert single.available_count == 11 and single.instance.gpu_memory_gib == 4.75


def test_recording_dra_and_missing_rates(replayed: tuple[tuple[Offer, ...], Any]) -> None:
    offers, status = replayed
    dra = _by_type(offers)[("gpu-east", "dra-b200:dra")]
    assert dra.instance.gpu is not None and dra.instance.gpu.name == "B200"
    assert dra.available_count == 1 and dra.price.amount == Decimal("3.9")  # gpu-0 is held by a ResourceClaim
    assert status.skipped_reasons == {"no internal rate for T4": 1}
    assert any("T4" in w and "[rates]" in w for w in status.warnings), status.warnings
    assert not any(o.instance.gpu and o.instance.gpu.name == "T4" for o in offers)


# --- live, against a loopback API server -------------------------------------------------------------------------
class _FakeApiServer:
    """Serves the recording's answers for two contexts under path prefixes; pods can be added."""

    def __init__(self) -> None:
        self.bodies: dict[str, Any] = {}
        for context in ("gpu-east", "lab-eu"):
            for kind in ("nodes", "pods"):
                self.bodies[f"/{context}/{kind}"] = json.loads((RECORDING / f"{context}-{kind}.json").read_text())
        self.bodies["/gpu-east/resourceslices"] = json.loads((RECORDING / "gpu-east-resourceslices.json").read_text())
        self.bodies["/gpu-east/resourceclaims"] = json.loads((RECORDING / "gpu-east-resourceclaims.json").read_text())
        self.tokens: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.tokens.append(self.headers.get("Authorization", ""))
                context, _, rest = self.path.lstrip("/").partition("/")
                kind = rest.split("?")[0].rstrip("/").rsplit("/", 1)[-1]
                body = server.bodies.get(f"/{context}/{kind}")
                status = 200 if body is not None else 404
                payload = json.dumps(body if body is not None else {"kind": "Status", "code": 404,
                                                                    "reason": "NotFound"}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[_FakeApiServer, Path]]:
    server = _FakeApiServer()
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "gpu-east",
        "clusters": [{"name": c, "cluster": {"server": f"{server.url}/{c}"}} for c in ("gpu-east", "lab-eu")],
        "users": [{"name": "reader", "user": {"token": "live-test-token-abcdef123456"}}],
        "contexts": [{"name": c, "context": {"cluster": c, "user": "reader"}} for c in ("gpu-east", "lab-eu")],
    }))
    try:
        yield server, kubeconfig
    finally:
        server.stop()


def _live_environ(kubeconfig: Path) -> dict[str, str]:
    return {"KUBECONFIG": str(kubeconfig), "GPUHUB_KUBERNETES_CONTEXTS": "gpu-east,lab-eu",
            "GPUHUB_KUBERNETES_SETTINGS": str(SETTINGS)}


def test_live_equals_replay(api: tuple[_FakeApiServer, Path], replayed: tuple[tuple[Offer, ...], Any]) -> None:
    server, kubeconfig = api
    engine = make_engine(Registry(), environ=_live_environ(kubeconfig))
    try:
        offers, status = run_provider(engine, "kubernetes", mode="live")
    finally:
        engine.shutdown()
    assert status.state == "ok" and status.mode == "live", status.line()
    live = {k: (o.price.amount, o.available_count, o.gpu_count, o.region.city) for k, o in _by_type(offers).items()}
    bundled = {k: (o.price.amount, o.available_count, o.gpu_count, o.region.city)
               for k, o in _by_type(replayed[0]).items()}
    assert live == bundled
    assert set(server.tokens) == {"Bearer live-test-token-abcdef123456"}


def test_a_new_pod_changes_the_free_count_on_refresh(api: tuple[_FakeApiServer, Path]) -> None:
    server, kubeconfig = api
    engine = make_engine(Registry(), environ=_live_environ(kubeconfig))
    try:
        before, _ = run_provider(engine, "kubernetes", mode="live")
        pods = server.bodies["/gpu-east/pods"]["items"]
        pods.append({"metadata": {"name": "new-job"}, "status": {"phase": "Running"},
                     "spec": {"nodeName": "h100-b", "containers": [
                         {"name": "main", "resources": {"limits": {"nvidia.com/gpu": "4"}}}]}})
        after, _ = run_provider(engine, "kubernetes", mode="live", refresh=True)
    finally:
        engine.shutdown()
    assert _by_type(before)[("gpu-east", "dgx-h100:1gpu")].available_count == 6
    assert _by_type(after)[("gpu-east", "dgx-h100:1gpu")].available_count == 2


def test_cli_search_provider_kubernetes(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "gpuhub.cli", "search", "-v", "--provider", "kubernetes", "--format", "json",
         "--limit", "100"], capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GPUHUB_CACHE_DIR": str(tmp_path / "cache"),
             "GPUHUB_STORE": str(tmp_path / "store")})
    assert out.returncode == 0, out.stderr
    rows = {(r["region"], r["instance_type"]): r for r in json.loads(out.stdout)}
    assert rows[("gpu-east", "dgx-h100:1gpu")]["available_count"] == 6
    assert rows[("lab-eu", "a100-40-x2:mig-1g.5gb")]["gpu_memory_gib"] == 4.75
    assert rows[("gpu-east", "hgx-a100-2:mig-1g.10gb")]["price_per_hour"] == 0.2


def test_example_clusters_never_pose_as_offers_in_a_general_search(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GPUHUB_CACHE_DIR": str(tmp_path / "cache"),
           "GPUHUB_STORE": str(tmp_path / "store")}
    out = subprocess.run([sys.executable, "-m", "gpuhub.cli", "search", "-v", "--gpu", "H100", "--min-gpus", "8",
                          "--format", "json", "--limit", "50"], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert not any(r["provider"] == "kubernetes" for r in json.loads(out.stdout))
    assert "kubernetes: skipped: its bundled data is an example" in out.stderr
    assert "KUBECONFIG" in out.stderr
