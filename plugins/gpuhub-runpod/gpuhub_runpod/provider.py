"""The RunPod provider: GPU pods from RunPod's GraphQL API, Secure and Community Cloud as separate offers.

Requests (all ``POST {base_url}/graphql``, JSON ``{"query", "variables"}``):

1. :data:`CATALOG_QUERY`: the data centres (``dataCenters { id listed }``), the Community Cloud countries
   (``countryCodes``) and every GPU type with its per-GPU prices (``securePrice``, ``communityPrice``), memory
   (``memoryInGb``), largest pod (``maxGpuCount``) and the clouds it is sold in (``secureCloud``,
   ``communityCloud``);
2. :data:`PRICE_QUERY`, once per GPU count (1 .. the largest ``maxGpuCount``) and cloud type: each type's
   ``lowestPrice`` for a pod of that many GPUs: ``minimumBidPrice`` and ``uninterruptablePrice`` (USD per
   **GPU**-hour), ``minVcpu``, ``minMemory`` (GB) and ``stockStatus``.

Offers (known fault C34): per GPU type, GPU count and cloud type one on-demand offer at count x the cloud's own
per-GPU price (``securePrice`` or ``communityPrice``; the instance type says which cloud, ``..._SECURE`` /
``..._COMMUNITY``), and one interruptible (``spot``) offer at count x ``minimumBidPrice``, the bid stated per GPU in
``price.basis``. A type whose ``stockStatus`` is null for that count gives no offer. Regions are countries: Secure
Cloud offers are placed in every country with a listed data centre (per-GPU prices are the same in every data
centre), Community Cloud offers in every country code; RunPod's stock status is one figure per type and count
across its data centres, so it is stated in the instance note and ``available`` stays unknown per country.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import lru_cache
from importlib import resources
from typing import Any, ClassVar

from gpuhub.plugin import (
    Credential,
    Instance,
    Offer,
    Price,
    Provider,
    ProviderContext,
    ProviderError,
    ProviderKind,
    RegionFacts,
    checked_gpu,
    decimal_amount,
    json_headers,
)

__all__ = ["CATALOG_QUERY", "PRICE_QUERY", "RunPodProvider", "graphql_body", "region_facts", "secure_countries"]

GRAPHQL_PATH = "/graphql"
CATALOG_QUERY = ("query GpuTypes { countryCodes dataCenters { id listed } gpuTypes { id displayName manufacturer "
                 "memoryInGb maxGpuCount secureCloud communityCloud securePrice communityPrice } }")
PRICE_QUERY = ("query GpuTypes($lowestPriceInput: GpuLowestPriceInput) { gpuTypes { id "
               "lowestPrice(input: $lowestPriceInput) { minimumBidPrice uninterruptablePrice minVcpu minMemory "
               "stockStatus } } }")
MAX_GPU_COUNT = 16
"""The most GPUs per pod asked for (a bound on the walk: a ``maxGpuCount`` above it is cut and said)."""
CLOUDS = (("SECURE", True), ("COMMUNITY", False))


def graphql_body(query: str, variables: dict[str, Any] | None = None) -> str:
    """The exact JSON text of one GraphQL request (compact, keys sorted: a recording matches it byte for byte)."""
    payload: dict[str, Any] = {"query": query}
    if variables is not None:
        payload["variables"] = variables
    return json.dumps(payload, separators=(",", ":"), sort_keys=True)


@lru_cache(maxsize=1)
def _places() -> dict[str, Any]:
    text = resources.files("gpuhub_runpod").joinpath("data/regions.json").read_text(encoding="utf-8")
    table: dict[str, Any] = json.loads(text)
    return table


def region_facts() -> list[RegionFacts]:
    """RunPod's regions are countries (ISO codes, as ``countryCodes`` and the SkyPilot catalog's Region column):
    each with its continent (``data/regions.json``)."""
    return [RegionFacts(provider="runpod", region=cc, country=cc, continent=continent)
            for cc, continent in _places()["continents"].items()]


def secure_countries(data_centres: list[str]) -> list[str]:
    """The countries of RunPod's listed data centres, in order (a data centre the table does not know counts as
    its own region, under its id)."""
    table: dict[str, list[str]] = _places()["data_centres"]
    return list(dict.fromkeys(cc for dc in data_centres for cc in table.get(dc, [dc])))


def _slug(text: str) -> str:
    return "-".join(text.split())


class RunPodProvider(Provider):
    """RunPod (GPU marketplace and cloud): pods per GPU type and count, Secure and Community Cloud, on-demand and
    interruptible, USD. Live with ``RUNPOD_API_KEY`` (Bearer); the GPU catalog answers without a key too."""

    name: ClassVar[str] = "runpod"
    display_name: ClassVar[str] = "RunPod"
    kind: ClassVar[ProviderKind] = "specialist"
    price_change_period_s: ClassVar[float] = 86400.0
    """How often prices change, seconds: RunPod's per-GPU list prices move by the day."""
    base_url: ClassVar[str] = "https://api.runpod.io"
    credentials: ClassVar[tuple[Credential, ...]] = (
        Credential(("RUNPOD_API_KEY",), "a RunPod API key (Settings, API Keys), sent as a Bearer token"),)

    def _post(self, ctx: ProviderContext, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        key = ctx.secret("RUNPOD_API_KEY")
        headers = json_headers(key, sends_json=True)
        response = ctx.request("POST", f"{ctx.base_url()}{GRAPHQL_PATH}", content=graphql_body(query, variables),
                               headers=headers)
        try:
            body = response.json()
        except ValueError:
            kind = response.headers.get("content-type", "unknown content type")
            raise ProviderError(f"RunPod's GraphQL endpoint did not return JSON ({kind})") from None
        if not isinstance(body, dict):
            raise ProviderError("RunPod's GraphQL answer is not an object")
        errors = body.get("errors")
        if errors:
            first = errors[0] if isinstance(errors, list) and errors else errors
            message = first.get("message") if isinstance(first, dict) else first
            raise ProviderError(f"RunPod GraphQL error: {str(message)[:200]}")
        data = body.get("data")
        if not isinstance(data, dict) or not isinstance(data.get("gpuTypes"), list):
            raise ProviderError("RunPod's GraphQL answer has no data.gpuTypes list")
        return data

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Yield the on-demand and interruptible offers of every GPU type, count and cloud type.

        Raises:
            ProviderError: an error answer, a GraphQL error, or an answer without ``data.gpuTypes`` (a walk that
                fails half-way fails as a whole).
        """
        if ctx.mode != "replay" and ctx.secret("RUNPOD_API_KEY") is None:
            ctx.warn("RUNPOD_API_KEY is not set: asking RunPod's public GPU catalog without a key")
        catalog = self._post(ctx, CATALOG_QUERY)
        types = [t for t in catalog["gpuTypes"] if isinstance(t, dict) and isinstance(t.get("id"), str)]
        if len(types) < len(catalog["gpuTypes"]):
            ctx.skip("GPU type without an id", len(catalog["gpuTypes"]) - len(types))
        places = {
            "SECURE": secure_countries([str(dc["id"]) for dc in catalog.get("dataCenters") or []
                                        if isinstance(dc, dict) and dc.get("id") and dc.get("listed") is not False]),
            "COMMUNITY": [str(cc) for cc in catalog.get("countryCodes") or [] if isinstance(cc, str) and cc],
        }
        if not types:
            return
        largest = max((int(t.get("maxGpuCount") or 0) for t in types), default=0)
        if largest > MAX_GPU_COUNT:
            ctx.warn(f"a GPU type allows {largest} GPUs per pod; pods of more than {MAX_GPU_COUNT} GPUs are not "
                     "asked for (possibly truncated)")
            largest = MAX_GPU_COUNT
        known = {t["id"] for t in types}
        for cloud, secure in CLOUDS:
            sold = [t for t in types if t.get("secureCloud" if secure else "communityCloud")]
            if not sold:
                continue
            if not places[cloud]:
                ctx.warn(f"RunPod named no {'data centres' if secure else 'Community Cloud countries'}: no "
                         f"{cloud.lower()} offers")
                continue
            by_id = {t["id"]: t for t in sold}
            for count in range(1, largest + 1):
                wanted = [t for t in sold if int(t.get("maxGpuCount") or 0) >= count]
                if not wanted:
                    continue
                answer = self._post(ctx, PRICE_QUERY, {"lowestPriceInput": {"gpuCount": count, "secureCloud": secure}})
                seen: set[str] = set()
                for item in answer["gpuTypes"]:
                    gpu_type = by_id.get(item.get("id")) if isinstance(item, dict) else None
                    if gpu_type is None:
                        if not isinstance(item, dict) or item.get("id") not in known:
                            ctx.skip("price record of no known GPU type (no or unknown id)")
                        continue
                    if int(gpu_type.get("maxGpuCount") or 0) < count or gpu_type["id"] in seen:
                        continue
                    seen.add(gpu_type["id"])
                    with ctx.guard("GPU type"):
                        yield from self._offers(ctx, gpu_type, item.get("lowestPrice"), count, cloud,
                                                places[cloud])
                missing = sum(1 for t in wanted if t["id"] not in seen)
                if missing:
                    ctx.skip("GPU type missing from the price answer", missing)

    def _offers(self, ctx: ProviderContext, gpu_type: dict[str, Any], lowest: Any, count: int, cloud: str,
                places: list[str]) -> list[Offer]:
        if not isinstance(lowest, dict) or lowest.get("stockStatus") is None:
            ctx.skip("no stock status for this GPU count (not offered now)")
            return []
        field = "securePrice" if cloud == "SECURE" else "communityPrice"
        per_gpu = decimal_amount(gpu_type.get(field), field)
        if per_gpu is None or per_gpu <= 0:
            ctx.skip(f"no {field} (placeholder or missing)")
            return []
        raw = str(gpu_type.get("displayName") or gpu_type["id"])
        gpu, problem = checked_gpu(ctx, raw, gpu_type.get("memoryInGb"), count, "GB per GPU")
        if problem:
            ctx.warn(f"{gpu_type['id']}: memoryInGb {gpu_type.get('memoryInGb')!r} {problem}")
        stock = str(lowest["stockStatus"])
        instance = Instance(
            provider=self.name, instance_type=f"{count}x_{_slug(str(gpu_type['id']))}_{cloud}", gpu=gpu,
            gpu_count=count, vcpus=lowest.get("minVcpu"), memory_gib=lowest.get("minMemory"),
            note=f"RunPod {cloud.title()} Cloud; stock {stock} (one figure across RunPod's "
                 f"{'data centres' if cloud == 'SECURE' else 'countries'}, not per country)")
        prices = [Price(amount=per_gpu * count, currency="USD", purchase="on_demand",
                        basis=f"{per_gpu} USD per GPU-hour x {count} ({cloud.lower()} cloud)")]
        bid = decimal_amount(lowest.get("minimumBidPrice"), "minimum bid")
        if bid is not None and bid > 0:
            prices.append(Price(amount=bid * count, currency="USD", purchase="spot",
                                basis=f"minimum bid {bid} USD per GPU-hour x {count} (RunPod bids per GPU)"))
        else:
            ctx.skip("no minimumBidPrice (no interruptible offer)")
        return [Offer(instance=instance, region=ctx.region(place), price=price, source=ctx.source)
                for place in places for price in prices]
