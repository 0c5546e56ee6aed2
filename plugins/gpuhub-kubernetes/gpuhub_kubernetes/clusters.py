"""Which clusters to read: kube contexts from a kubeconfig (live), the in-cluster service account, or a recording.

A kube context is a gpuhub region. Live access reads the kubeconfig with the official ``kubernetes`` client's
loader (``pip install 'gpuhub-kubernetes[live]'``): server URL and bearer token per context. Requests then go
through gpuhub's own HTTP client (so they are retried, recorded and replayed like every provider's), which
verifies TLS against the system's CA store or ``SSL_CERT_FILE``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from gpuhub.plugin import CredentialsError, Manifest, remember_secret

__all__ = ["IN_CLUSTER_TOKEN", "Cluster", "clusters_from_recording", "live_clusters"]

IN_CLUSTER_TOKEN = Path("/var/run/secrets/kubernetes.io/serviceaccount/token")
NODES_PATH = "/api/v1/nodes"
HELP = ("set GPUHUB_KUBERNETES_BASE_URL to an API server (e.g. kubectl proxy), or point KUBECONFIG at a "
        "kubeconfig whose contexts reach your clusters (GPUHUB_KUBERNETES_CONTEXTS=a,b picks contexts; "
        "default: the current one), or run inside a cluster (KUBERNETES_SERVICE_HOST)")


@dataclass(frozen=True)
class Cluster:
    """One cluster: its kube context (the region code), API server URL and bearer token (None: no token)."""

    context: str
    server: str
    token: str | None = None

    def headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers


def _wanted(environ: Mapping[str, str]) -> list[str]:
    return [c.strip() for c in environ.get("GPUHUB_KUBERNETES_CONTEXTS", "").split(",") if c.strip()]


def live_clusters(environ: Mapping[str, str], token: str | None = None) -> list[Cluster]:
    """The clusters to read live: one API server at ``GPUHUB_KUBERNETES_BASE_URL`` (``kubectl proxy``'s
    ``http://127.0.0.1:8001``, a mirror; bearer ``token`` if given, named ``GPUHUB_KUBERNETES_CLUSTER_NAME``), else
    the contexts of ``KUBECONFIG`` (named by ``GPUHUB_KUBERNETES_CONTEXTS``, else the current context), else, inside
    a pod, the service account.

    Raises:
        CredentialsError: no kubeconfig and not in a cluster, a named context that does not exist, or a kubeconfig
            the client cannot load (the message says how to configure access).
    """
    base_url = environ.get("GPUHUB_KUBERNETES_BASE_URL")
    if base_url:
        return [Cluster(environ.get("GPUHUB_KUBERNETES_CLUSTER_NAME", "kubernetes"), base_url.rstrip("/"), token)]
    kubeconfig = environ.get("KUBECONFIG")
    if kubeconfig:
        return _from_kubeconfig(kubeconfig, _wanted(environ))
    host, port = environ.get("KUBERNETES_SERVICE_HOST"), environ.get("KUBERNETES_SERVICE_PORT", "443")
    if host:
        try:
            token = IN_CLUSTER_TOKEN.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise CredentialsError(f"in-cluster: the service account token cannot be read ({exc}); {HELP}") from None
        remember_secret(token)
        name = environ.get("GPUHUB_KUBERNETES_CLUSTER_NAME", "in-cluster")
        return [Cluster(name, f"https://{host}:{port}", token)]
    raise CredentialsError(f"no cluster configured: {HELP}")


def _from_kubeconfig(path: str, wanted: list[str]) -> list[Cluster]:
    try:
        from kubernetes import config as kube_config
        from kubernetes.client import Configuration
    except ImportError:
        raise CredentialsError("reading a kubeconfig needs the official client: "
                               "pip install 'gpuhub-kubernetes[live]'") from None
    try:
        contexts, current = kube_config.list_kube_config_contexts(config_file=path)
    except Exception as exc:  # the client raises ConfigException, OSError, yaml errors, ...
        raise CredentialsError(f"KUBECONFIG {path} cannot be loaded: {exc}; {HELP}") from None
    known = [c["name"] for c in contexts or []]
    names = wanted or ([current["name"]] if current else known[:1])
    missing = [n for n in names if n not in known]
    if missing:
        raise CredentialsError(f"GPUHUB_KUBERNETES_CONTEXTS names {', '.join(missing)}, not in {path} "
                               f"(contexts: {', '.join(known) or 'none'})")
    out = []
    for name in names:
        configuration = Configuration()
        try:
            kube_config.load_kube_config(config_file=path, context=name, client_configuration=configuration,
                                         persist_config=False)
        except Exception as exc:
            raise CredentialsError(f"kube context {name!r} in {path} cannot be used: {exc}") from None
        keys = {k.lower(): v for k, v in (configuration.api_key or {}).items()}  # "BearerToken" in client 37
        auth = str(keys.get("bearertoken") or keys.get("authorization") or "")
        token = auth.split(" ", 1)[1] if auth.lower().startswith("bearer ") else None
        if token:
            remember_secret(token)
        out.append(Cluster(name, str(configuration.host).rstrip("/"), token))
    return out


def clusters_from_recording(manifest: Manifest) -> list[Cluster]:
    """The clusters a recording holds: its ``clusters.json`` (``[{"context", "server"}]``) when present, else one
    per API server that answered ``/api/v1/nodes`` (named after the server's first host label)."""
    directory = manifest.directory
    listed = directory / "clusters.json" if directory is not None else None
    if listed is not None and listed.is_file():
        data = json.loads(listed.read_text(encoding="utf-8"))
        return [Cluster(str(item["context"]), str(item["server"]).rstrip("/")) for item in data]
    seen: dict[str, Cluster] = {}
    for exchange in manifest.exchanges:
        url = str(exchange.get("request", {}).get("url", ""))
        parts = urlsplit(url)
        if parts.path.endswith(NODES_PATH):
            server = url[: url.index(NODES_PATH)]
            seen.setdefault(server, Cluster((parts.hostname or "cluster").split(".")[0], server))
    return list(seen.values())
