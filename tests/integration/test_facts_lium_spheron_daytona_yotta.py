"""Issue 31 with every plugin installed: Lium, Spheron, Daytona and Yotta answer searches through the public
``gpuhub.search`` with prices to the cent from the SkyPilot catalog rows they were built from (each fact is checked
against the reference file when ../shared is present, and always against the expected price)."""

from __future__ import annotations

import csv
from decimal import Decimal
from typing import Any

import pytest

from .conftest import SHARED

# provider -> (GPU asked for, instance type, region, purchase, USD per instance-hour, catalog key, catalog column)
FACTS: dict[str, list[tuple[str, str, str, str, str, dict[str, str], str]]] = {
    "lium": [
        ("B200", "B200_8x_240c_1338g", "FI", "on_demand", "52.2544", {"InstanceType": "B200_8x", "Region": "FI"}, ""),
        ("B300", "B300-SXM6-AC_8x_256c_3024g", "US", "on_demand", "63.76", {"InstanceType": "B300_8x", "Region": "US"},
         ""),
        ("H100", "H100-80GB-HBM3_8x_192c_1007g", "RU", "on_demand", "14.0",
         {"InstanceType": "H100-SXM_8x", "Region": "RU"}, ""),
        ("RTX5090", "RTX-5090_1x_32c_62g", "UA", "on_demand", "0.5", {"InstanceType": "RTX5090_1x", "Region": "UA"},
         ""),
        ("RTXPRO6000-WS", "RTX-PRO-6000-Blackwell-Workstation-Edition_1x_64c_251g", "RO", "on_demand", "1.45",
         {"InstanceType": "RTXPRO6000-WK_1x", "Region": "RO"}, ""),
    ],
    "spheron": [
        ("H100", "1H100.80S.32V_FIN-03_500", "Finland 3", "spot", "0.8015",
         {"InstanceType": "1H100.80S.32V_FIN-03_500"}, "SpotPrice"),
        ("H100", "n3-H100x4-bigroot__CANADA-1", "CANADA-1", "on_demand", "8.0327",
         {"InstanceType": "n3-H100x4-bigroot__CANADA-1"}, ""),
        ("L40S", "gpu_8x_l40s_us-central-2", "us-central-2", "on_demand", "5.76",
         {"InstanceType": "gpu_8x_l40s_us-central-2"}, ""),
        ("A16", "A16x2_668d6762247d03149a4c946b_chicago-usa-1", "chicago-usa-1", "on_demand", "1.3464",
         {"InstanceType": "A16x2_668d6762247d03149a4c946b_chicago-usa-1"}, ""),
        ("A100-80GB", "n3-A100x1-spot__CANADA-1", "CANADA-1", "spot", "1.1476",
         {"InstanceType": "n3-A100x1-spot__CANADA-1"}, "SpotPrice"),
    ],
    "daytona": [
        ("B300", "1x-B300", "earth", "on_demand", "9.1232", {"InstanceType": "1x-B300"}, ""),
        ("B300", "1x-B300", "earth", "spot", "5.25", {"InstanceType": "1x-B300"}, "SpotPrice"),
        ("H200", "8x-H200", "earth", "on_demand", "52.5056", {"InstanceType": "8x-H200"}, ""),
        ("MI355X", "4x-MI355X", "earth", "spot", "18.44", {"InstanceType": "4x-MI355X"}, "SpotPrice"),
        ("RTXPRO6000", "3x-RTXPRO6000", "earth", "on_demand", "15.1596", {"InstanceType": "3x-RTXPRO6000"}, ""),
    ],
    "yotta": [
        ("RTX5090", f"{n}x{v}v{r}g_NVIDIA_GeForce_RTX_5090_32G_SECURE", region, "on_demand", price,
         {"InstanceType": f"{n}x{v}v{r}g_NVIDIA_GeForce_RTX_5090_32G_SECURE", "Region": region}, "")
        for n, v, r, region, price in ((1, 14, 119, "us-east-2", "0.65"), (2, 28, 238, "us-east-2", "1.3"),
                                       (8, 112, 952, "us-east-2", "5.2"), (4, 120, 460, "us-central-2", "2.6"),
                                       (8, 240, 920, "us-central-2", "5.2"))
    ],
}


def _catalog_price(provider: str, key: dict[str, str], column: str) -> Decimal | None:
    path = SHARED / "skypilot-catalog" / provider / "vms.csv"
    if not path.is_file():
        return None
    with path.open(newline="") as fh:
        [row] = [r for r in csv.DictReader(fh) if all(r[k] == v for k, v in key.items())]
    return Decimal(row[column or "Price"])


@pytest.mark.parametrize("provider", sorted(FACTS))
def test_five_facts_to_the_cent_with_every_plugin_installed(python_search: Any, provider: str) -> None:
    for gpu, itype, region, purchase, price, key, column in FACTS[provider]:
        result = python_search(gpu=gpu, provider=provider, limit=None)
        [offer] = [o for o in result if o.instance_type == itype and o.region.code == region
                   and o.price.purchase == purchase]
        assert offer.price.amount == Decimal(price), (provider, itype)
        assert offer.instance.gpu is not None and offer.instance.gpu.name == gpu
        reference = _catalog_price(provider, key, column)
        assert reference is None or reference == offer.price.amount, (provider, itype, reference)


def test_spheron_finds_verdas_machine_under_its_seller(python_search: Any) -> None:
    result = python_search(gpu="H100", provider="verda", limit=None)
    resold = [o for o in result if o.provider == "spheron"]
    assert resold and {o.seller for o in resold} == {"verda"}
    assert {o.instance_type for o in resold} >= {"1H100.80S.32V_FIN-03_500"}
