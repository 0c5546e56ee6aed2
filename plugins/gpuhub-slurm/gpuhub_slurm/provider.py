"""The Slurm provider: free and power-saved GPUs of a Slurm cluster's partitions, priced at internal rates.

Reads slurmrestd (``GET /slurm/<version>/nodes/`` and ``/partitions/``, token auth with the ``X-SLURM-USER-NAME``
and ``X-SLURM-USER-TOKEN`` headers) through gpuhub's HTTP client, or the same answers saved by
``scontrol show nodes --json`` / ``scontrol show partitions --json`` for clusters without the REST daemon. The
cluster is one region. Nodes of one shape in one partition (GRES, CPUs, memory, architecture) give:

- ``<partition>/<gres>``: the whole node (``gpu/h100x8``); ``available_count`` = nodes with every GPU free;
- ``<partition>/<gres>:1gpu``: one GPU with the node's CPUs and memory divided by its GPU count; ``available_count``
  = free GPUs (configured − allocated on nodes that are up and not drained);
- ``<partition>/<gres>:mig-<profile>``: one MIG slice (a typed GRES naming a MIG profile: ``gpu:a100_3g.20gb:2``,
  ``gpu:1g.10gb:7``), a fractional GPU of GPU instances / 7;

and ``provisionable_count``: what powered-down cloud / power-saving nodes of the shape add when Slurm resumes them
(``provision_wait_s``: the settings' figure, else the partition's ``ResumeTimeout``, an upper bound). A partition
that is not ``UP`` has nothing free or provisionable.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, ClassVar

import httpx

from gpuhub.plugin import (
    ClusterPlace,
    Credential,
    CredentialsError,
    Gpu,
    Instance,
    Offer,
    Price,
    Provider,
    ProviderContext,
    ProviderError,
    ProviderKind,
    Region,
    SiteSettings,
    read_json,
    site_region,
    site_settings,
)
from gpuhub_slurm.gres import MigProfile, mig_profile
from gpuhub_slurm.nodes import NodeFacts, node_facts

__all__ = ["API_VERSION", "SlurmProvider"]

API_VERSION = "v0.0.42"
"""slurmrestd's API version read by default (Slurm 24.11 and later serve it; ``GPUHUB_SLURM_API_VERSION`` picks
another of v0.0.41 .. v0.0.44, whose node and partition fields used here are the same)."""
_VERSIONS = ("v0.0.41", "v0.0.42", "v0.0.43", "v0.0.44")
HELP = ("set GPUHUB_SLURM_URL to slurmrestd (e.g. http://127.0.0.1:6820) with SLURM_JWT (`scontrol token`) and "
        "GPUHUB_SLURM_USER, or GPUHUB_SLURM_NODES_JSON to a file saved by `scontrol show nodes --json`")
_ENV = ("GPUHUB_SLURM_URL", "GPUHUB_SLURM_USER", "GPUHUB_SLURM_CLUSTER_NAME", "GPUHUB_SLURM_API_VERSION",
        "GPUHUB_SLURM_NODES_JSON", "GPUHUB_SLURM_PARTITIONS_JSON")
MAX_JSON_BYTES = 256 << 20


@dataclass(frozen=True)
class _Shape:
    partition: str
    gres: str
    """The node's GPU GRES as one word: ``h100x8``, ``a100x1+a100_3g.20gbx2``."""
    cpus: int | None
    memory_gib: float | None
    cpu_arch: str

    @property
    def base(self) -> str:
        return f"{self.partition}/{self.gres}"


@dataclass(frozen=True)
class _Partition:
    up: bool
    resume_timeout_s: int | None
    """Slurm's ResumeTimeout for the partition: the longest a powered-down node may take to come up."""


@dataclass
class _Unit:
    """One GRES type on the nodes of a shape: counts summed over the nodes."""

    gres_type: str
    per_node: int
    free: int = 0
    provisionable: int = 0


class SlurmProvider(Provider):
    """A Slurm cluster (internal cloud): free GPUs and MIG slices per partition, plus powered-down cloud nodes
    that can be resumed, priced at the team's internal rates.

    Live: ``GPUHUB_SLURM_URL`` (slurmrestd) or ``GPUHUB_SLURM_NODES_JSON`` (saved ``scontrol`` output). Without
    either, the bundled example recording replays (shown only with ``--provider slurm``).
    """

    name: ClassVar[str] = "slurm"
    example_recording: ClassVar[bool] = True
    display_name: ClassVar[str] = "Slurm clusters"
    kind: ClassVar[ProviderKind] = "internal"
    price_change_period_s: ClassVar[float] = 30 * 86400.0  # internal rates set by the operator
    base_url: ClassVar[str] = ""
    credentials: ClassVar[tuple[Credential, ...]] = (
        Credential(("GPUHUB_SLURM_URL",), "slurmrestd's URL (token: SLURM_JWT, user: GPUHUB_SLURM_USER)"),
        Credential(("GPUHUB_SLURM_NODES_JSON",), "a file saved by `scontrol show nodes --json`"),
    )

    def credentials_help(self) -> str:
        return f"to read a Slurm cluster live, {HELP}"

    def error_from_response(self, response: httpx.Response) -> ProviderError | None:
        """slurmrestd's error list (``{"errors": [{"error", "description", "error_number"}]}``) as the failure;
        401/403 as a credentials error that says how to get a token."""
        detail = response.reason_phrase
        try:
            body = response.json()
        except ValueError:
            body = None
        if isinstance(body, dict) and isinstance(body.get("errors"), list) and body["errors"]:
            first = body["errors"][0]
            if isinstance(first, dict):
                detail = str(first.get("description") or first.get("error") or detail)[:200]
        if response.status_code in (401, 403):
            return CredentialsError(f"slurmrestd at GPUHUB_SLURM_URL refused the request ({response.status_code} "
                                    f"{detail}); set SLURM_JWT to a token from `scontrol token` and "
                                    f"GPUHUB_SLURM_USER to its user")
        return None

    # --- fetching ------------------------------------------------------------------------------------------
    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Yield the offers of the configured cluster.

        Raises:
            CredentialsError: live without a URL or JSON file, or slurmrestd refused the token.
            ProviderError: an answer that is not slurmrestd's nodes/partitions shape, slurmrestd's own errors, an
                unusable settings file or JSON file.
        """
        environ = {name: value for name in _ENV if (value := ctx.env(name)) is not None}
        settings = site_settings(ctx)
        if ctx.recording is not None:
            cluster, nodes, partitions = self._replayed(ctx)
        elif environ.get("GPUHUB_SLURM_URL"):
            cluster, nodes, partitions = self._rest(ctx, environ)
        elif environ.get("GPUHUB_SLURM_NODES_JSON"):
            cluster, nodes, partitions = self._files(environ)
        else:
            raise CredentialsError(f"no Slurm cluster configured: {HELP}")
        yield from self._offers(ctx, cluster, nodes, partitions, settings)

    def _replayed(self, ctx: ProviderContext) -> tuple[str, list[Any], list[Any] | None]:
        assert ctx.recording is not None
        urls = [str(e.get("request", {}).get("url", "")) for e in ctx.recording.exchanges]
        nodes_url = next((u for u in urls if "/slurm/" in u and u.rstrip("/").endswith("/nodes")), None)
        if nodes_url is None:
            raise ProviderError("the recording holds no slurmrestd /nodes answer")
        base, _, rest = nodes_url.partition("/slurm/")
        version = rest.split("/", 1)[0]
        cluster = "slurm"
        listed = ctx.recording.directory / "cluster.json" if ctx.recording.directory is not None else None
        if listed is not None and listed.is_file():
            cluster = str(json.loads(listed.read_text(encoding="utf-8"))["name"])
        return cluster, *self._get(ctx, base, version, {})

    def _rest(self, ctx: ProviderContext, environ: Mapping[str, str]) -> tuple[str, list[Any], list[Any] | None]:
        version = environ.get("GPUHUB_SLURM_API_VERSION", API_VERSION)
        if version not in _VERSIONS:
            raise ProviderError(f"GPUHUB_SLURM_API_VERSION={version!r}: use one of {', '.join(_VERSIONS)}")
        token = ctx.secret("SLURM_JWT")
        headers: dict[str, str] = {}
        if environ.get("GPUHUB_SLURM_USER"):
            headers["X-SLURM-USER-NAME"] = environ["GPUHUB_SLURM_USER"]
        if token is not None:
            headers["X-SLURM-USER-TOKEN"] = token.get_secret_value()
        cluster = environ.get("GPUHUB_SLURM_CLUSTER_NAME", "slurm")
        return cluster, *self._get(ctx, environ["GPUHUB_SLURM_URL"].rstrip("/"), version, headers)

    def _get(self, ctx: ProviderContext, base: str, version: str,
             headers: dict[str, str]) -> tuple[list[Any], list[Any] | None]:
        nodes = _listed(ctx.get_json(f"{base}/slurm/{version}/nodes/", headers=headers), "nodes")
        partitions = _listed(ctx.get_json(f"{base}/slurm/{version}/partitions/", headers=headers), "partitions")
        return nodes, partitions

    def _files(self, environ: Mapping[str, str]) -> tuple[str, list[Any], list[Any] | None]:
        nodes = _listed(_read_json(Path(environ["GPUHUB_SLURM_NODES_JSON"])), "nodes")
        partitions_file = environ.get("GPUHUB_SLURM_PARTITIONS_JSON")
        partitions = _listed(_read_json(Path(partitions_file)), "partitions") if partitions_file else None
        return environ.get("GPUHUB_SLURM_CLUSTER_NAME", "slurm"), nodes, partitions

    # --- offers --------------------------------------------------------------------------------------------
    def _offers(self, ctx: ProviderContext, cluster: str, nodes: list[Any], partitions: list[Any] | None,
                settings: SiteSettings) -> Iterator[Offer]:
        up = _partition_states(ctx, partitions)
        shapes: dict[_Shape, list[NodeFacts]] = defaultdict(list)
        for node in nodes:
            with ctx.guard("node"):
                facts = node_facts(node)
                if not facts.configured:
                    continue  # a CPU-only node
                gres = "+".join(f"{kind or 'gpu'}x{count}" for kind, count in sorted(facts.configured.items()))
                for partition in facts.partitions or ("(none)",):
                    shapes[_Shape(partition, gres, facts.cpus, facts.memory_gib, facts.cpu_arch)].append(facts)
        if not nodes:
            ctx.warn(f"cluster {cluster}: slurmrestd listed no nodes")
        place = settings.place(cluster)
        region = site_region(self.name, cluster, place)
        missing: dict[str, int] = defaultdict(int)
        for shape, members in sorted(shapes.items(), key=lambda item: item[0].base):
            state = up.get(shape.partition) if up is not None else _Partition(True, None)
            if state is None:
                ctx.skip("node in a partition slurmrestd did not list", len(members))
                continue
            if not state.up:
                members = []  # the partition is DOWN, DRAIN or INACTIVE: nothing there can be had
            wait = place.provision_wait_s if place.provision_wait_s is not None else state.resume_timeout_s
            with ctx.guard("node shape"):
                yield from self._shape_offers(ctx, shape, members, region, place, settings, missing, wait)
        for gpu, count in sorted(missing.items()):
            ctx.skip(f"no internal rate for {gpu}", count)
            ctx.warn(settings.missing_rate_warning(gpu, count, "GPUHUB_SLURM_SETTINGS"))

    def _gpu(self, ctx: ProviderContext, gres_type: str, settings: SiteSettings,
             mig: MigProfile | None) -> Gpu | None:
        spelled = settings.gpu_names.get(gres_type or "gpu")
        if spelled is None and mig is not None:
            spelled = settings.gpu_names.get(mig.card or "") or mig.card
        if spelled is None and mig is None and gres_type:
            spelled = gres_type
        if spelled is None:
            ctx.skip(f"GRES type {gres_type or 'gpu (untyped)'} names no GPU model: map it under [gpu_names]")
            return None
        return ctx.gpu(spelled)

    def _shape_offers(self, ctx: ProviderContext, shape: _Shape, members: list[NodeFacts], region: Region,
                      place: ClusterPlace, settings: SiteSettings, missing: dict[str, int],
                      wait: int | None) -> Iterator[Offer]:
        units: dict[str, _Unit] = {}
        whole_free = whole_provisionable = 0
        sample = members[0] if members else None
        for node in members:
            for kind, count in node.configured.items():
                unit = units.setdefault(kind, _Unit(kind, count))
                unit.free += node.free(kind)
                unit.provisionable += node.provisionable(kind)
            if node.usable_now and all(node.free(k) == c for k, c in node.configured.items()):
                whole_free += 1
            whole_provisionable += node.powered_off
        if sample is None:  # a partition that is not up: the shape's offers say none, from its name alone
            for part in shape.gres.split("+"):
                kind, _, count = part.rpartition("x")
                kind = "" if kind == "gpu" else kind
                units[kind] = _Unit(kind, int(count))
        whole_kinds = [u for u in units.values() if mig_profile(u.gres_type) is None]
        node_gpus = sum(u.per_node for u in whole_kinds)
        note = f"{len(members)} node{'s' if len(members) != 1 else ''} of this shape in partition {shape.partition}"
        for unit in sorted(units.values(), key=lambda u: u.gres_type):
            mig = mig_profile(unit.gres_type)
            gpu = self._gpu(ctx, unit.gres_type, settings, mig)
            if gpu is None:
                continue
            common = {"gpu": gpu, "region": region, "place": place, "settings": settings, "missing": missing,
                      "shape": shape, "wait": wait, "node_gpus": node_gpus}
            if mig is not None:
                yield from self._offer(ctx, **common, instance_type=f"{shape.base}:mig-{mig.profile}",
                                       gpu_count=mig.compute_share, vcpus=None, memory_gib=None, free=unit.free,
                                       provisionable=unit.provisionable, slice_memory_gib=float(mig.memory_gb),
                                       note=f"MIG {mig.profile} slice (GRES gpu:{unit.gres_type}:1, "
                                            f"{mig.instances}/7 of the GPU's compute); {note}")
                continue
            if len(whole_kinds) == 1 and len(units) == 1 and unit.per_node > 1:
                yield from self._offer(ctx, **common, instance_type=shape.base, gpu_count=unit.per_node,
                                       vcpus=shape.cpus, memory_gib=shape.memory_gib, free=whole_free,
                                       provisionable=whole_provisionable, note=f"whole node; {note}",
                                       disk=_tmp_disk(members))
            share = 1 / node_gpus if node_gpus else 1.0
            suffix = ":1gpu" if len(whole_kinds) == 1 else f":1gpu-{unit.gres_type or 'gpu'}"
            yield from self._offer(ctx, **common, instance_type=f"{shape.base}{suffix}", gpu_count=1,
                                   vcpus=_part(shape.cpus, share), memory_gib=_part(shape.memory_gib, share),
                                   free=unit.free, provisionable=unit.provisionable,
                                   note=f"one GPU (GRES gpu:{unit.gres_type + ':' if unit.gres_type else ''}1); "
                                        f"{note}")

    def _offer(self, ctx: ProviderContext, *, shape: _Shape, gpu: Gpu, region: Region, place: ClusterPlace,
               settings: SiteSettings, missing: dict[str, int], wait: int | None, node_gpus: int, instance_type: str,
               gpu_count: float, vcpus: float | None, memory_gib: float | None, free: int, provisionable: int,
               note: str, slice_memory_gib: float | None = None,
               disk: dict[str, Any] | None = None) -> Iterator[Offer]:
        node_rate = settings.node_rates.get(shape.base)
        if node_rate is not None and node_gpus:
            amount = node_rate if instance_type == shape.base else (
                node_rate / node_gpus * Decimal(str(gpu_count))).quantize(Decimal("0.000000001")).normalize()
        else:
            amount = settings.rate_for(gpu.name, gpu_count)
        if amount is None:
            missing[gpu.name] += 1
            return
        instance = Instance(
            provider=self.name, instance_type=instance_type, gpu=gpu, gpu_count=gpu_count, fractional=gpu_count < 1,
            vcpus=vcpus, memory_gib=memory_gib, cpu_arch=shape.cpu_arch, bare_metal=place.bare_metal,
            slice_memory_gib=slice_memory_gib, note=note, **(disk or {}),
            control_source=f"bare_metal of [clusters.{region.code}] in {settings.path}"
            if place.bare_metal is not None and settings.path else None)
        price = Price(amount=amount, currency=settings.currency, purchase="on_demand")
        yield Offer(instance=instance, region=region, price=price, available=free > 0 or provisionable > 0,
                    available_count=free, provisionable_count=provisionable,
                    provision_wait_s=wait if provisionable else None, source=ctx.source)


TMP_DISK_SOURCE = ("Slurm node TmpDisk (slurmrestd temporary_disk, MiB): the smallest of the shape's {n} "
                   "node{s}; Slurm states no network bandwidth or fabric")
"""Where a whole-node offer's ``storage_gib`` comes from."""


def _tmp_disk(members: list[NodeFacts]) -> dict[str, Any]:
    """The :class:`gpuhub.plugin.Instance` disk fields of a whole node of the shape: ``storage_gib`` the smallest
    TmpDisk of its nodes (what any node of the shape has), with its source; empty when a node states none."""
    sizes = [m.tmp_disk_gib for m in members]
    if not sizes or any(size is None for size in sizes):
        return {}
    return {"storage_gib": min(size for size in sizes if size is not None),
            "network_source": TMP_DISK_SOURCE.format(n=len(sizes), s="s" if len(sizes) != 1 else "")}


def _part(value: float | None, share: float) -> float | None:
    return None if value is None else round(value * share, 1)


def _listed(body: Any, key: str) -> list[Any]:
    """The ``nodes`` / ``partitions`` list of a slurmrestd (or ``scontrol --json``) answer.

    Raises:
        ProviderError: slurmrestd's own errors, or not that shape.
    """
    if not isinstance(body, dict):
        raise ProviderError(f"the {key} answer is not a JSON object")
    errors = body.get("errors")
    if isinstance(errors, list) and errors:
        first = errors[0] if isinstance(errors[0], dict) else {}
        raise ProviderError(f"slurmrestd answered {key} with errors: "
                            f"{str(first.get('description') or first.get('error') or errors[0])[:200]}")
    items = body.get(key)
    if not isinstance(items, list):
        raise ProviderError(f"the {key} answer has no {key!r} list (not slurmrestd's shape)")
    return items


def _read_json(path: Path) -> Any:
    try:
        return read_json(path, limit=MAX_JSON_BYTES)
    except OSError as exc:
        raise ProviderError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ProviderError(f"{path}: not JSON ({exc})") from None


def _partition_states(ctx: ProviderContext, partitions: list[Any] | None) -> dict[str, _Partition] | None:
    """Partition name -> whether it is ``UP`` and its ``ResumeTimeout`` (``timeouts.resume``, seconds; None when
    unset or GLOBAL); None without a partitions answer (every node's partition then counts as up)."""
    if partitions is None:
        return None
    out: dict[str, _Partition] = {}
    for item in partitions:
        with ctx.guard("partition"):
            name = item["name"]
            states = (item.get("partition") or {}).get("state") or []
            if not isinstance(name, str) or not isinstance(states, list):
                raise ValueError("partition without a name or state list")
            resume = (item.get("timeouts") or {}).get("resume") or {}
            seconds = resume.get("number") if resume.get("set") and not resume.get("infinite") else None
            if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int)
                                        or not 0 <= seconds <= 65535):
                raise ValueError(f"timeouts.resume = {seconds!r}")
            out[name] = _Partition("UP" in states, seconds)
    return out
