"""The Lambda Cloud provider: one ``GET /api/v1/instance-types`` call, turned into one offer per type and region.

Lambda publishes one global on-demand price per instance type (US cents per instance-hour) and, per type, the
regions with capacity right now. gpuhub offers each type in every region it is sold in (the regions of the
SkyPilot catalog, ``data/regions.json``, plus any region the answer names); an offer is ``available=True`` where
Lambda reports capacity and ``False`` elsewhere, so a type sold out everywhere stays visible. A reconstructed
recording holds no capacity snapshot, so its offers say ``available=None``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import lru_cache
from importlib import resources
from typing import Any, ClassVar

import httpx

from gpuhub.plugin import (
    Credential,
    CredentialsError,
    Instance,
    Offer,
    Price,
    Provider,
    ProviderContext,
    ProviderError,
    ProviderKind,
    json_headers,
)
from gpuhub_lambda.obtain import mark_unknown_capacity
from gpuhub_lambda.parse import (
    ARM_GPUS,
    LambdaInstanceType,
    api_error,
    instance_type_entries,
    parse_instance_type,
)
from gpuhub_lambda.storage import page_storage

__all__ = ["LambdaProvider", "sold_regions"]

INSTANCE_TYPES_PATH = "/api/v1/instance-types"
KEY_HELP = ("create an API key in the Lambda Cloud dashboard (API keys page) and export it, "
            "e.g. `export LAMBDA_API_KEY=...`")
STORAGE_SOURCE = ("Lambda Cloud API instance-types: specs.storage_gib (the instance's local storage, GiB); the API "
                  "names no network bandwidth or fabric")
"""Where an offer's storage figure comes from. Lambda's InfiniBand is sold with its 1-Click Clusters, not with
these on-demand instance types, so no fabric is claimed for them."""
_MEMORY_TOLERANCE = 0.15  # a described memory more than 15 % off the table's card is a mismatch worth a warning


@lru_cache(maxsize=1)
def _region_table() -> dict[str, Any]:
    text = resources.files("gpuhub_lambda").joinpath("data/regions.json").read_text(encoding="utf-8")
    table: dict[str, Any] = json.loads(text)
    return table


def sold_regions(instance_type: str) -> tuple[str, ...]:
    """Regions where Lambda sells ``instance_type`` (source: SkyPilot catalog v8 ``lambda/vms.csv``).

    A type the catalog does not list (new since the catalog) is taken to be sold in every catalog region.
    """
    table = _region_table()
    return tuple(table["instance_types"].get(instance_type) or table["regions"])


def _storage_fields(item: LambdaInstanceType) -> dict[str, Any]:
    """The offer's local storage: the answer's ``specs.storage_gib`` (kind not said), else the instances page's
    SSD size for the same configuration (:func:`gpuhub_lambda.storage.page_storage`), else nothing."""
    if item.storage_gib is not None:
        return {"storage_gib": item.storage_gib, "network_source": STORAGE_SOURCE}
    page = page_storage(item.name, item.vcpus, item.memory_gib)
    if page is None:
        return {}
    return {"storage_gib": page.storage_gib, "storage_kind": page.kind, "network_source": page.network_source}


class LambdaProvider(Provider):
    """Lambda Cloud (GPU specialist): on-demand prices in USD per instance-hour, global, with live capacity.

    Live: ``GET {base_url}/api/v1/instance-types`` with ``Authorization: Bearer $LAMBDA_API_KEY``; at most one
    request per second (Lambda's published limit). Without a key the bundled recording replays.
    """

    name: ClassVar[str] = "lambda"
    display_name: ClassVar[str] = "Lambda Cloud"
    kind: ClassVar[ProviderKind] = "specialist"
    price_change_period_s: ClassVar[float] = 7 * 86400.0  # on-demand list prices, changed every few weeks
    base_url: ClassVar[str] = "https://cloud.lambdalabs.com"
    credentials: ClassVar[tuple[Credential, ...]] = (
        Credential(("LAMBDA_API_KEY",), "a Lambda Cloud API key, sent as a Bearer token"),)
    min_request_interval_s: ClassVar[float] = 1.0

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Yield one on-demand offer per instance type and region.

        Raises:
            CredentialsError: no ``LAMBDA_API_KEY`` (live), or Lambda rejected it (names Lambda's error code).
            ProviderError: any other error answer (names Lambda's code) or an answer of an unexpected shape.
        """
        key = ctx.require_secret("LAMBDA_API_KEY")
        headers = json_headers(key)
        body = ctx.get_json(f"{ctx.base_url()}{INSTANCE_TYPES_PATH}", headers=headers)
        error = api_error(body)
        if error is not None:
            raise ProviderError(f"Lambda answered with error {error.describe()}", code=error.code)
        try:
            entries = instance_type_entries(body)
        except ValueError as exc:
            raise ProviderError(f"unexpected /instance-types answer: {exc}") from None
        capacity_known = ctx.source.kind != "reconstructed"
        if not capacity_known:
            ctx.warn("availability unknown: the recording is reconstructed from published prices, "
                     "not a capacity snapshot")
        for key_name, entry in entries:
            with ctx.guard("instance type"):
                parsed = parse_instance_type(str(key_name), entry)
                yield from mark_unknown_capacity(self._offers(ctx, parsed, capacity_known))  # gpuhub_lambda.obtain

    def error_from_response(self, response: httpx.Response) -> ProviderError | None:
        """Lambda's ``{"error": {"code", "message", "suggestion"}}`` as the provider failure, naming its code (the
        core calls this for every error answer, after retries for 429/5xx)."""
        error = api_error(response.content)
        if error is None:
            return None
        if response.status_code in (401, 403):
            return CredentialsError(f"Lambda rejected the API key ({error.describe()}); {KEY_HELP}", code=error.code)
        return ProviderError(f"HTTP {response.status_code} from Lambda: error {error.describe()}", code=error.code,
                             retryable=response.status_code >= 500 or response.status_code == 429)

    def _offers(self, ctx: ProviderContext, item: LambdaInstanceType, capacity_known: bool) -> list[Offer]:
        if item.gpu_count == 0:
            ctx.skip("CPU-only instance type (no GPU)")
            return []
        if item.price_usd_per_hour == 0:
            ctx.skip("zero price (placeholder)")
            return []
        gpu = ctx.gpu(item.gpu_label, item.gpu_memory_gb)
        if item.gpu_memory_gb is None:
            ctx.warn(f"{item.name}: GPU memory not stated in {item.gpu_label!r}; the GPU table's card is assumed")
        elif gpu.known and gpu.memory_gib is not None and \
                abs(float(gpu.memory_gib) - item.gpu_memory_gb) > _MEMORY_TOLERANCE * float(gpu.memory_gib):
            ctx.warn(f"{item.name}: {item.gpu_label!r} states {item.gpu_memory_gb:g} GB per GPU, "
                     f"the GPU table's {gpu.name} has {gpu.memory_gib} GiB")
        arm = gpu.name in ARM_GPUS or any(t in item.name.lower() for t in ("gh200", "gb200", "arm"))
        instance = Instance(
            provider=self.name, instance_type=item.name, gpu=gpu, gpu_count=item.gpu_count, fractional=False,
            vcpus=item.vcpus, memory_gib=item.memory_gib, **_storage_fields(item),
            cpu_arch="arm64" if arm else "x86_64")
        price = Price(amount=item.price_usd_per_hour, currency="USD", purchase="on_demand")
        regions = tuple(dict.fromkeys((*sold_regions(item.name), *item.capacity_regions)))
        capacity = set(item.capacity_regions)
        return [Offer(instance=instance, region=ctx.region(code), price=price,
                      available=(code in capacity) if capacity_known else None, source=ctx.source)
                for code in regions]

