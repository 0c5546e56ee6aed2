"""The core's conformance kit against gpuhub-kubernetes."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from gpuhub.plugin import ProviderConformance

KUBECONFIG = Path(__file__).resolve().parent / "data" / "kubeconfig-bundled.yaml"
SETTINGS = Path(__file__).resolve().parents[1] / "gpuhub_kubernetes" / "recording" / "settings.toml"


class TestKubernetesConformance(ProviderConformance):
    provider_name = "kubernetes"
    min_offers = 9
    empty_body = b'{"kind": "List", "apiVersion": "v1", "metadata": {}, "items": []}'
    live_environ: ClassVar[dict[str, str] | None] = {
        "KUBECONFIG": str(KUBECONFIG), "GPUHUB_KUBERNETES_CONTEXTS": "gpu-east,lab-eu",
        "GPUHUB_KUBERNETES_SETTINGS": str(SETTINGS)}
