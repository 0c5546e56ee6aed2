"""The Kubernetes provider: free GPUs and MIG slices of a team's clusters as offers at the team's internal rates.

Per cluster (kube context = region) it reads ``GET /api/v1/nodes`` and ``GET /api/v1/pods`` (and, where the
cluster serves Dynamic Resource Allocation, ``resource.k8s.io/v1`` ResourceSlices and ResourceClaims). Nodes of
the same shape (GPU, GPUs per node, vCPUs, RAM, architecture, instance-type label, zone) become offers:

- ``<shape>``: the whole node (all its GPUs); ``available_count`` = nodes of the shape with every GPU free;
- ``<shape>:1gpu``: one GPU on such a node, with the node's vCPUs and RAM divided by its GPU count;
  ``available_count`` = free GPUs on the shape;
- ``<shape>:mig-<profile>``: one MIG slice (fractional GPU: compute share GPU instances / 7, VRAM of the slice as
  GFD reports it); ``available_count`` = free slices;
- ``<shape>:dra``: one DRA-published GPU, free unless a ResourceClaim holds it.

``available`` is True when at least one is free now, False when none is. Prices come from the settings file
(:mod:`gpuhub_kubernetes.settings`); a GPU without a rate is left out and named in the status.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from decimal import Decimal
from typing import Any, ClassVar

import httpx

from gpuhub.plugin import (
    Credential,
    CredentialsError,
    Gpu,
    Instance,
    Obtainability,
    Offer,
    Price,
    Provider,
    ProviderContext,
    ProviderError,
    ProviderKind,
    Region,
    site_region,
    site_settings,
)
from gpuhub_kubernetes.clusters import HELP, Cluster, clusters_from_recording, live_clusters
from gpuhub_kubernetes.parse import (
    GPU_RESOURCE,
    Capacity,
    NodeFacts,
    NodeHardware,
    Slice,
    dra_devices,
    node_facts,
    requested_by_node,
)
from gpuhub_kubernetes.pools import (
    NodeGroup,
    QueueRoom,
    autoscaler_groups,
    flavor_matches,
    nodepool_facts,
    queue_rooms,
    summed,
)
from gpuhub_kubernetes.settings import ClusterPlace, Settings

__all__ = ["KubernetesProvider"]

PODS_PATH = "/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed"
NODEPOOLS_PATH = "/apis/karpenter.sh/v1/nodepools"
AUTOSCALER_STATUS_PATH = "/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status"
KUEUE_PATH = "/apis/kueue.x-k8s.io/v1beta1"
DRA_PATHS = ("/apis/resource.k8s.io/v1/resourceslices", "/apis/resource.k8s.io/v1/resourceclaims")
_ENV = ("GPUHUB_KUBERNETES_BASE_URL", "KUBECONFIG", "GPUHUB_KUBERNETES_CONTEXTS", "KUBERNETES_SERVICE_HOST",
        "KUBERNETES_SERVICE_PORT", "GPUHUB_KUBERNETES_CLUSTER_NAME", "GPUHUB_KUBERNETES_SETTINGS", "HOME")


@dataclass(frozen=True)
class _Shape(NodeHardware):
    """Nodes (or a node pool's or DRA's devices) offered as one: ``base`` is the offer's instance type."""

    product: str
    context: str
    zone: str | None
    base: str


class KubernetesProvider(Provider):
    """Kubernetes clusters (internal cloud): whole GPUs and MIG slices free now, priced at internal rates.

    Live: ``KUBECONFIG`` (contexts from ``GPUHUB_KUBERNETES_CONTEXTS``, default the current context) or the
    in-cluster service account. Without either, the bundled two-cluster recording replays.
    """

    name: ClassVar[str] = "kubernetes"
    example_recording: ClassVar[bool] = True
    display_name: ClassVar[str] = "Kubernetes clusters"
    kind: ClassVar[ProviderKind] = "internal"
    price_change_period_s: ClassVar[float] = 30 * 86400.0  # internal rates set by the operator
    base_url: ClassVar[str] = ""
    credentials: ClassVar[tuple[Credential, ...]] = (
        Credential(("KUBECONFIG",), "a kubeconfig whose contexts reach the clusters"),
        Credential(("GPUHUB_KUBERNETES_BASE_URL",), "one API server, e.g. kubectl proxy's (token: "
                                                    "KUBERNETES_TOKEN)"),
        Credential(("KUBERNETES_SERVICE_HOST",), "the in-cluster service account (set inside every pod)"),
    )

    def credentials_help(self) -> str:
        return f"to read clusters live, {HELP}"

    def error_from_response(self, response: httpx.Response) -> ProviderError | None:
        """A Kubernetes ``Status`` answer (``{"kind": "Status", "reason", "message"}``) as the failure."""
        try:
            body = response.json()
        except ValueError:
            body = {}
        reason = body.get("reason") if isinstance(body, dict) else None
        message = body.get("message") if isinstance(body, dict) else None
        detail = f"{reason}: {message}" if reason else (message or response.reason_phrase)
        if response.status_code in (401, 403):
            return CredentialsError(f"the API server refused the request ({response.status_code} {detail}); "
                                    f"check the kube context's token or RBAC (list nodes and pods); {HELP}")
        return None

    # --- fetching ------------------------------------------------------------------------------------------
    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Yield the offers of every configured cluster.

        Raises:
            CredentialsError: no cluster configured (live), or the API server refused the token.
            ProviderError: a cluster answered with something other than a NodeList/PodList, or the settings file
                cannot be used.
        """
        environ = {name: value for name in _ENV if (value := ctx.env(name)) is not None}
        if ctx.recording is not None:
            clusters = clusters_from_recording(ctx.recording)
        else:
            token = ctx.secret("KUBERNETES_TOKEN")
            clusters = live_clusters(environ, token.get_secret_value() if token else None)
            ctx.secrets_seen.extend(c.token for c in clusters if c.token)
        settings = site_settings(ctx)
        missing_rates: dict[str, int] = defaultdict(int)
        for cluster in clusters:
            yield from self._cluster_offers(ctx, cluster, settings, missing_rates)
        for gpu, count in sorted(missing_rates.items()):
            ctx.skip(f"no internal rate for {gpu}", count)
            ctx.warn(settings.missing_rate_warning(gpu, count, "GPUHUB_KUBERNETES_SETTINGS"))

    def _list(self, ctx: ProviderContext, cluster: Cluster, path: str, kind: str) -> list[dict[str, Any]]:
        body = ctx.get_json(f"{cluster.server}{path}", headers=cluster.headers())
        if not isinstance(body, dict) or not isinstance(body.get("items"), list):
            raise ProviderError(f"{cluster.context}: {path.split('?')[0]} did not answer with a {kind}")
        if body.get("metadata", {}).get("continue"):
            # A paged list that was not asked for: the cluster capped the answer; a partial list must not pass.
            raise ProviderError(f"{cluster.context}: {path.split('?')[0]} answered with a partial {kind}")
        return [item for item in body["items"] if isinstance(item, dict)]

    def _cluster_offers(self, ctx: ProviderContext, cluster: Cluster, settings: Settings,
                        missing_rates: dict[str, int]) -> Iterator[Offer]:
        nodes = self._list(ctx, cluster, "/api/v1/nodes", "NodeList")
        pods = self._list(ctx, cluster, PODS_PATH, "PodList")
        if not nodes:
            ctx.warn(f"cluster {cluster.context}: the API server listed no nodes")
        held, bad_pods = requested_by_node(pods)
        if bad_pods:
            ctx.skip("malformed pod", bad_pods)
        shapes: dict[_Shape, list[NodeFacts]] = defaultdict(list)
        for node in nodes:
            with ctx.guard("node"):
                facts = node_facts(node, held)
                if not facts.slices:
                    continue  # a CPU-only node
                if facts.product is None:
                    ctx.skip("GPU node without GFD's nvidia.com/gpu.product label")
                    continue
                shapes[_shape(cluster.context, facts)].append(facts)
        place = settings.clusters.get(cluster.context, ClusterPlace())
        region = _region(self.name, cluster.context, place)
        offers: list[Offer] = []
        groups = self._autoscaler_groups(ctx, cluster)
        labels: dict[tuple[str, str | None], list[Mapping[str, str]]] = {
            (shape.base, shape.zone): [m.labels for m in members] for shape, members in shapes.items()}
        for shape, members in sorted(shapes.items(), key=lambda item: item[0].base):
            gpu = ctx.gpu(shape.product.replace("-", " "), shape.gpu_memory_gib)
            offers.extend(self._shape_offers(ctx, shape, members, gpu, region, place, settings, missing_rates,
                                             groups))
        offers.extend(self._dra_offers(ctx, cluster, region, place, settings, missing_rates))
        offers.extend(self._pool_offers(ctx, cluster, region, place, settings, missing_rates, labels))
        flavors = self._queue_flavors(ctx, cluster, place)
        if not flavors:
            yield from offers
            return
        for offer in offers:
            nodes = labels.get((offer.instance_type.split(":", 1)[0], offer.region.zone), [])
            matched = [rooms for rooms, flavor in flavors if nodes and all(flavor_matches(n, flavor) for n in nodes)]
            yield _with_quota(offer, matched, place.queue or "") if matched else offer

    def _optional_list(self, ctx: ProviderContext, cluster: Cluster, path: str,
                       kind: str) -> list[dict[str, Any]] | None:
        """A list from an API the cluster may not serve (Karpenter, Kueue): None when it answers 404, or when the
        recording being replayed was made of a cluster without it."""
        if ctx.recording is not None and not any(f"{cluster.server}{path}" == str(e.get("request", {}).get("url"))
                                                 for e in ctx.recording.exchanges):
            return None
        try:
            return self._list(ctx, cluster, path, kind)
        except ProviderError as exc:
            if "404" in str(exc):
                return None
            raise

    def _pool_offers(self, ctx: ProviderContext, cluster: Cluster, region: Region, place: ClusterPlace,
                     settings: Settings, missing_rates: dict[str, int],
                     labels: dict[tuple[str, str | None], list[Mapping[str, str]]]) -> Iterator[Offer]:
        """Karpenter NodePools with a GPU limit: offers of capacity that can be provisioned (``provisionable_count``
        = GPUs, or whole nodes, that fit under the limit; nothing free now)."""
        pools = self._optional_list(ctx, cluster, NODEPOOLS_PATH, "NodePoolList")
        for item in pools or []:
            with ctx.guard("node pool"):
                pool = nodepool_facts(item)
                if pool is None:
                    continue
                if pool.product is None:
                    ctx.skip("GPU node pool that names no GPU model")
                    continue
                gpu = ctx.gpu(pool.product.replace("-", " "), pool.gpu_memory_gib)
                per_node = pool.gpus_per_node or 1
                shape = _Shape(product=pool.product, gpu_memory_gib=pool.gpu_memory_gib, gpu_count=per_node,
                               vcpus=None, memory_gib=None, cpu_arch="x86_64", instance_type=None,
                               context=cluster.context, zone=None, base=f"karpenter-{pool.name}")
                labels[(shape.base, None)] = [pool.node_labels]
                what = (f"Karpenter NodePool {pool.name}: {pool.in_use} of {pool.limit} {GPU_RESOURCE} in use "
                        f"(spec.limits); new nodes" + (f" are {pool.instance_type}" if pool.instance_type else "")
                        + (f" with {per_node} GPUs" if pool.gpus_per_node else ""))
                if per_node > 1:
                    yield from self._offer(ctx, shape, gpu, region, place, settings, missing_rates,
                                           instance_type=shape.base, gpu_count=per_node, vcpus=None,
                                           memory_gib=None, free=0, provisionable=pool.room // per_node,
                                           note=f"whole node; {what}")
                yield from self._offer(ctx, shape, gpu, region, place, settings, missing_rates,
                                       instance_type=f"{shape.base}:1gpu", gpu_count=1, vcpus=None, memory_gib=None,
                                       free=0, provisionable=pool.room, note=f"one GPU on a new node; {what}")

    def _autoscaler_groups(self, ctx: ProviderContext, cluster: Cluster) -> list[NodeGroup]:
        """cluster-autoscaler's node groups (its status ConfigMap), [] when the cluster runs none."""
        config_map = self._optional_object(ctx, cluster, AUTOSCALER_STATUS_PATH)
        if config_map is None:
            return []
        try:
            return autoscaler_groups(str((config_map.get("data") or {})["status"]))
        except (KeyError, TypeError, ValueError) as exc:
            ctx.warn(f"cluster {cluster.context}: cluster-autoscaler's status not read ({exc}); node groups that "
                     "can grow are not shown")
            return []

    def _queue_flavors(self, ctx: ProviderContext, cluster: Cluster,
                       place: ClusterPlace) -> list[tuple[dict[str, QueueRoom], dict[str, Any] | None]]:
        """Per flavor of the ClusterQueue behind the user's Kueue LocalQueue (``queue = "namespace/name"`` in the
        cluster's settings): the quota left per GPU resource and the ResourceFlavor (None when it cannot be read);
        [] when no queue is set or the cluster serves no Kueue."""
        if not place.queue:
            return []
        namespace, _, name = place.queue.partition("/")
        if not namespace or not name:
            ctx.warn(f"cluster {cluster.context}: queue = {place.queue!r} in the settings is not namespace/name")
            return []
        local = self._optional_object(ctx, cluster, f"{KUEUE_PATH}/namespaces/{namespace}/localqueues/{name}")
        if local is None:
            ctx.warn(f"cluster {cluster.context}: Kueue LocalQueue {place.queue} not found; quotas not applied")
            return []
        target = str((local.get("spec") or {}).get("clusterQueue") or "")
        cluster_queue = self._optional_object(ctx, cluster, f"{KUEUE_PATH}/clusterqueues/{target}") if target else None
        if cluster_queue is None:
            ctx.warn(f"cluster {cluster.context}: the ClusterQueue of {place.queue} ({target or 'none'}) not found")
            return []
        try:
            rooms = queue_rooms(cluster_queue)
        except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
            ctx.skip(f"malformed ClusterQueue: {exc}")
            return []
        out = []
        for flavor_name, by_resource in sorted(rooms.items()):
            flavor = self._optional_object(ctx, cluster, f"{KUEUE_PATH}/resourceflavors/{flavor_name}")
            if flavor is None:
                ctx.warn(f"cluster {cluster.context}: ResourceFlavor {flavor_name} not found; its quota is not "
                         "applied")
            out.append((by_resource, flavor))
        return out

    def _optional_object(self, ctx: ProviderContext, cluster: Cluster, path: str) -> dict[str, Any] | None:
        if ctx.recording is not None and not any(f"{cluster.server}{path}" == str(e.get("request", {}).get("url"))
                                                 for e in ctx.recording.exchanges):
            return None
        try:
            body = ctx.get_json(f"{cluster.server}{path}", headers=cluster.headers())
        except ProviderError as exc:
            if "404" in str(exc):
                return None
            raise
        if not isinstance(body, dict):
            raise ProviderError(f"{cluster.context}: {path} did not answer with an object")
        return body

    def _shape_offers(self, ctx: ProviderContext, shape: _Shape, members: list[NodeFacts], gpu: Gpu,
                      region: Region, place: ClusterPlace, settings: Settings,
                      missing_rates: dict[str, int], groups: list[NodeGroup]) -> Iterator[Offer]:
        totals: dict[Slice, Capacity] = {}
        whole_nodes_free = 0
        # Nodes of this shape cluster-autoscaler may still add: per managed pool of its nodes, the pool's group's
        # room (max size - target), with the units one such node has.
        addable_nodes = 0
        addable: dict[Slice, int] = defaultdict(int)
        for pool in sorted({n.pool for n in members if n.pool}):
            group = next((g for g in groups if g.holds(pool)), None)
            if group is None or not group.room:
                continue
            sample = next(n for n in members if n.pool == pool)
            addable_nodes += group.room
            for unit, cap in sample.slices.items():
                addable[unit] += group.room * cap.allocatable
        for node in members:
            for unit, cap in node.slices.items():
                total = totals.setdefault(unit, Capacity(0, 0))
                total.allocatable += cap.allocatable
                total.free += cap.free
            whole = node.slices.get(_whole(node))
            if whole is not None and whole.allocatable == node.gpu_count and whole.free == whole.allocatable:
                whole_nodes_free += 1
        node_note = f"{len(members)} node{'s' if len(members) != 1 else ''} of this shape in {shape.context}"
        if addable_nodes:
            node_note += f"; cluster-autoscaler may add {addable_nodes} more (its node group's max size)"
        for unit, cap in sorted(totals.items(), key=lambda item: (item[0].profile or "", item[0].resource)):
            if unit.profile is None:
                if shape.gpu_count > 1:
                    yield from self._offer(ctx, shape, gpu, region, place, settings, missing_rates,
                                           instance_type=shape.base, gpu_count=shape.gpu_count,
                                           vcpus=shape.vcpus, memory_gib=shape.memory_gib,
                                           free=whole_nodes_free, note=f"whole node; {node_note}",
                                           provisionable=addable_nodes)
                share = 1 / shape.gpu_count if shape.gpu_count else 1.0
                yield from self._offer(ctx, shape, gpu, region, place, settings, missing_rates,
                                       instance_type=f"{shape.base}:1gpu", gpu_count=1,
                                       vcpus=_part(shape.vcpus, share), memory_gib=_part(shape.memory_gib, share),
                                       free=cap.free, note=f"one GPU ({GPU_RESOURCE}: 1); {node_note}",
                                       provisionable=addable[unit])
            else:
                # A slice's VRAM is its profile's (MIG splits memory in eighths, compute in sevenths): without
                # GFD's per-profile memory label it is unknown, never the card's memory x the compute share.
                sliced = gpu if unit.memory_gib is not None else gpu.model_copy(update={"memory_gib": None})
                yield from self._offer(ctx, shape, sliced, region, place, settings, missing_rates,
                                       instance_type=f"{shape.base}:mig-{unit.profile}", gpu_count=unit.compute_share,
                                       vcpus=None, memory_gib=None, free=cap.free, slice_memory_gib=unit.memory_gib,
                                       provisionable=addable[unit],
                                       note=f"MIG {unit.profile} slice ({unit.resource}: 1, "
                                            f"{round(unit.compute_share * 7)}/7 of the GPU's compute); {node_note}")

    def _offer(self, ctx: ProviderContext, shape: _Shape, gpu: Gpu, region: Region, place: ClusterPlace,
               settings: Settings, missing_rates: dict[str, int], *, instance_type: str, gpu_count: float,
               vcpus: float | None, memory_gib: float | None, free: int, note: str,
               slice_memory_gib: float | None = None, provisionable: int = 0) -> Iterator[Offer]:
        amount = self._price(shape, gpu, settings, gpu_count, whole=instance_type == shape.base)
        if amount is None:
            missing_rates[gpu.name] += 1
            return
        instance = Instance(
            provider=self.name, instance_type=instance_type, gpu=gpu, gpu_count=gpu_count,
            fractional=gpu_count < 1, vcpus=vcpus, memory_gib=memory_gib, cpu_arch=shape.cpu_arch,
            bare_metal=place.bare_metal, slice_memory_gib=slice_memory_gib, note=note,
            control_source=f"bare_metal of [clusters.{region.code}] in {settings.path}"
            if place.bare_metal is not None and settings.path else None)
        price = Price(amount=amount, currency=settings.currency, purchase="on_demand")
        yield Offer(instance=instance, region=region.model_copy(update={"zone": shape.zone}), price=price,
                    available=free > 0 or provisionable > 0, available_count=free,
                    provisionable_count=provisionable,
                    provision_wait_s=place.provision_wait_s if provisionable else None, source=ctx.source)

    @staticmethod
    def _price(shape: _Shape, gpu: Gpu, settings: Settings, gpu_count: float, *, whole: bool) -> Decimal | None:
        if shape.instance_type and shape.instance_type in settings.node_rates:
            node_rate = settings.node_rates[shape.instance_type]
            share = node_rate / shape.gpu_count * Decimal(str(gpu_count))
            return node_rate if whole else share.quantize(Decimal("0.000000001")).normalize()
        rate = settings.rates.get(gpu.name)
        if rate is None:
            return None
        return (rate * Decimal(str(gpu_count))).quantize(Decimal("0.000000001")).normalize()

    def _dra_offers(self, ctx: ProviderContext, cluster: Cluster, region: Region, place: ClusterPlace,
                    settings: Settings, missing_rates: dict[str, int]) -> Iterator[Offer]:
        if ctx.recording is not None and not any(DRA_PATHS[0] in str(e.get("request", {}).get("url", ""))
                                                 for e in ctx.recording.exchanges):
            return  # the recording was made of a cluster that serves no DRA API
        try:
            slices = self._list(ctx, cluster, DRA_PATHS[0], "ResourceSliceList")
            claims = self._list(ctx, cluster, DRA_PATHS[1], "ResourceClaimList")
        except ProviderError as exc:
            if "404" in str(exc):
                return  # the cluster has no resource.k8s.io/v1: device plugins only
            raise
        devices = []
        for item in slices:
            with ctx.guard("resource slice"):
                devices.extend(dra_devices([item], claims))
        groups: dict[tuple[str, float | None], list[bool]] = defaultdict(list)
        for device in devices:
            if device.kind == "gpu" and device.product:
                groups[(device.product, device.memory_gib)].append(not device.allocated)
        for (product, memory), free_flags in sorted(groups.items(), key=lambda item: item[0][0]):
            gpu = ctx.gpu(product, memory)
            shape = _Shape(product=product, gpu_memory_gib=memory, gpu_count=1, vcpus=None, memory_gib=None,
                           cpu_arch="x86_64", instance_type=None, context=cluster.context, zone=None,
                           base=f"dra-{gpu.name.lower()}")
            yield from self._offer(ctx, shape, gpu, region, place, settings, missing_rates,
                                   instance_type=f"{shape.base}:dra", gpu_count=1, vcpus=None, memory_gib=None,
                                   free=sum(free_flags),
                                   note=f"one GPU through DRA (driver gpu.nvidia.com); {len(free_flags)} devices")


def _with_quota(offer: Offer, flavors: list[dict[str, QueueRoom]], queue: str) -> Offer:
    """``offer`` with what the user's queue can still be admitted for on its nodes (``flavors``: the rooms of the
    queue's flavors whose node labels its nodes have): ``obtain.quota_instances`` (how many of this offer fit in
    the quota left) and a note with the queue's figures. DRA devices are not in Kueue's resources: left as they
    are."""
    inst = offer.instance
    if inst.instance_type.endswith(":dra"):
        return offer
    mig = inst.instance_type.rsplit(":mig-", 1)
    resource = f"nvidia.com/mig-{mig[1]}" if len(mig) == 2 else GPU_RESOURCE
    found = [rooms[resource] for rooms in flavors if resource in rooms]
    if not found:
        return offer
    room = summed(found)
    units = 1 if len(mig) == 2 else max(1, round(inst.gpu_count))
    borrow = "" if room.borrowing_limit == 0 else (
        f", may borrow up to {room.borrowing_limit} more" if room.borrowing_limit is not None
        else ", may borrow from its cohort")
    note = (f"{inst.note}; " if inst.note else "") + (
        f"queue {queue}: {room.left} of {room.nominal} {resource} quota left ({room.used} in use{borrow})")
    obtain = (offer.obtain or Obtainability()).model_copy(update={"quota_instances": room.left // units})
    return offer.model_copy(update={"obtain": obtain, "instance": inst.model_copy(update={"note": note})})


def _whole(node: NodeFacts) -> Slice:
    return Slice(GPU_RESOURCE, None, node.gpu_memory_gib, 1.0)


def _part(value: float | None, share: float) -> float | None:
    return None if value is None else round(value * share, 1)


def _shape(context: str, facts: NodeFacts) -> _Shape:
    assert facts.product is not None
    gpus = max(facts.gpu_count, 1)
    base = facts.instance_type or f"{facts.product.lower()}-x{gpus}"
    hardware = {f.name: getattr(facts, f.name) for f in fields(NodeHardware)}
    return _Shape(**{**hardware, "gpu_count": gpus}, context=context, zone=facts.zone, base=base)


def _region(provider: str, context: str, place: ClusterPlace) -> Region:
    return site_region(provider, context, place)
