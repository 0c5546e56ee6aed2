"""Helpers of gpuhub-azure's tests: Retail Prices pages and an engine that serves them in live mode.

Imported by the test modules as ``azure_helpers`` (``conftest.py`` puts this directory on ``sys.path``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import gpuhub_azure.plugin
import httpx

from gpuhub.plugin import CountingTransport, Offer, ProviderStatus, Registry, make_engine, run_provider

REFERENCE = Path(__file__).resolve().parents[3].parent / "shared" / "reference"
AZURE_SAMPLES = REFERENCE / "provider-samples" / "azure"
NORMALIZED = AZURE_SAMPLES / "retail-prices.eu-regions.gpu-vm-consumption.NORMALIZED.2026-08.azure-pricing-radar.json"
RECORDED_REGIONS = ("westeurope,northeurope,swedencentral,francecentral,belgiumcentral,centralus,eastus,eastus2,"
                    "northcentralus,southcentralus,westus,westus2,westus3")

Served = tuple[tuple[Offer, ...], ProviderStatus, CountingTransport]
Handler = Callable[[httpx.Request, int], httpx.Response]


def azure_registry() -> Registry:
    """The built-in GPU table and this plugin only (other plugins in the tree cannot disturb these tests)."""
    return Registry(entry_points=[], extra_plugins=[("azure", gpuhub_azure.plugin)], environ={})


def envelope(items: list[dict[str, Any]], link: str | None = None, billing: str = "USD") -> dict[str, Any]:
    """A Retail Prices page as the API sends it."""
    return {"BillingCurrency": billing, "CustomerEntityId": "Default", "CustomerEntityType": "Retail",
            "Items": items, "NextPageLink": link, "Count": len(items)}


def item(arm: str, price: float, *, region: str = "westeurope", meter: str | None = None, sku: str | None = None,
         product: str = "Virtual Machines Test Series", kind: str = "Consumption", currency: str = "USD",
         **extra: Any) -> dict[str, Any]:
    """One Retail Prices item (the fields the parser reads), with test values."""
    short = arm.removeprefix("Standard_").replace("_", " ")
    row: dict[str, Any] = {
        "currencyCode": currency, "tierMinimumUnits": 0.0, "retailPrice": price, "unitPrice": price,
        "armRegionName": region, "meterName": meter or short, "productName": product, "skuName": sku or meter or short,
        "serviceName": "Virtual Machines", "unitOfMeasure": "1 Hour", "type": kind, "isPrimaryMeterRegion": True,
        "armSkuName": arm,
    }
    row.update(extra)
    return row


def query(request: httpx.Request) -> dict[str, str]:
    """The decoded query parameters of a request."""
    return dict(parse_qsl(urlsplit(str(request.url)).query, keep_blank_values=True))


def region_of(request: httpx.Request) -> str:
    """The region named in a Retail Prices request's ``$filter``."""
    return query(request)["$filter"].split("armRegionName eq '", 1)[1].split("'", 1)[0]


def pages_handler(pages: Mapping[str, list[Any]]) -> Handler:
    """Serve ``pages[region][i]`` for the i-th request of a region (by ``$skip`` order of arrival).

    A page is a dict (served as JSON) or an int (served as that HTTP status).
    """
    served: dict[str, int] = {}

    def handler(request: httpx.Request, n: int) -> httpx.Response:
        region = region_of(request)
        i = served.get(region, 0)
        served[region] = i + 1
        page = pages[region][min(i, len(pages[region]) - 1)]
        if isinstance(page, int):
            return httpx.Response(page, text="unavailable")
        return httpx.Response(200, json=page)

    return handler


def serve(handler: Handler, environ: Mapping[str, str] | None = None, regions: str = "westeurope") -> Served:
    """Run the azure provider in live mode against ``handler``; return offers, status and the transport."""
    transport = CountingTransport(handler)
    env = {"GPUHUB_AZURE_REGIONS": regions, **(environ or {})}
    offers, status = run_provider(make_engine(azure_registry(), transport=transport, environ=env), "azure",
                                  mode="live")
    return offers, status, transport


def find(offers: tuple[Offer, ...], instance_type: str, purchase: str = "on_demand",
         region: str = "westeurope") -> Offer:
    """The one offer of a size, purchase model and region (AssertionError when there is none or several)."""
    found = [o for o in offers if o.instance_type == instance_type and o.price.purchase == purchase
             and o.region.code == region]
    assert len(found) == 1, (instance_type, purchase, region, found)
    return found[0]
