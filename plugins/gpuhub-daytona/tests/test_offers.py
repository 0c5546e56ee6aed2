"""gpuhub-daytona against its source: facts to the cent from the reference catalog and from the bundled table, and
the table's traps (CPU-only rows, placeholders, GPU memory in the wrong unit)."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from gpuhub_daytona.provider import Daytona

from gpuhub.plugin import Offer, ProviderStatus, Registry, build_script, make_engine, network_facts, run_provider

PLUGIN = Path(__file__).resolve().parents[1]
Replayed = tuple[tuple[Offer, ...], ProviderStatus]

# (instance type, purchase) -> USD per sandbox-hour, as in daytona/vms.csv.
FACTS = {("1x-B300", "on_demand"): "9.1232", ("1x-B300", "spot"): "5.25", ("8x-H200", "on_demand"): "52.5056",
         ("4x-MI355X", "spot"): "18.44", ("2x-RTX5090", "on_demand"): "5.0064", ("3x-RTXPRO6000", "on_demand"):
         "15.1596"}


def _index(offers: tuple[Offer, ...]) -> dict[tuple[str, str], Offer]:
    return {(o.instance_type, o.price.purchase): o for o in offers}


def test_five_facts_from_the_reference_catalog(catalog: Path, replayed: Replayed) -> None:
    index = _index(replayed[0])
    with catalog.open(newline="") as fh:
        rows = {r["InstanceType"]: r for r in csv.DictReader(fh)}
    for (itype, purchase), price in FACTS.items():
        column = "SpotPrice" if purchase == "spot" else "Price"
        assert index[(itype, purchase)].price.amount == Decimal(rows[itype][column]) == Decimal(price)


def test_five_facts_from_the_bundled_table(replayed: Replayed) -> None:
    offers, status = replayed
    assert status.state == "ok" and status.mode == "static" and len(offers) == 112
    assert status.skipped_reasons == {"CPU-only sandbox (no GPU)": 8} and not status.unknown_gpus
    index = _index(offers)
    for key, price in FACTS.items():
        assert index[key].price.amount == Decimal(price) and index[key].price.currency == "USD"
    b300 = index[("1x-B300", "on_demand")]
    assert (b300.instance.vcpus, b300.instance.memory_gib, b300.region.code) == (8, 100, "earth")
    assert b300.instance.gpu is not None and b300.instance.gpu.name == "B300"
    mi355x = index[("4x-MI355X", "spot")].instance.gpu
    assert mi355x is not None and (mi355x.name, mi355x.vendor) == ("MI355X", "AMD")
    assert any("static table" in w for w in status.warnings)


def test_build_script_reproduces_the_bundled_table(catalog: Path) -> None:
    module = build_script(PLUGIN)
    bundled = json.loads((Daytona().fixtures_dir() / "price_table.json").read_text(encoding="utf-8"))
    assert module.build(catalog) == bundled


def _row(**changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"instance_type": "1x-H100", "gpu_type": "H100", "gpu_count": 1, "vcpus": 8,
                           "memory_gib": 100, "region": "earth", "gpu_memory_mib": 81920, "price": "5.9732",
                           "spot_price": "3.44"}
    row.update(changes)
    return row


def test_fault_bad_rows_are_skipped_and_counted(tmp_path: Path, registry: Registry) -> None:
    rows = [_row(), _row(instance_type="z", price="0", spot_price=None), _row(instance_type="c", gpu_type=None,
            gpu_count=0), _row(instance_type="h", gpu_count=1.5), "junk", _row(instance_type="g", price="n/a"),
            _row(instance_type="m", gpu_memory_mib=80, spot_price="0")]
    directory = tmp_path / "daytona"
    directory.mkdir()
    (directory / "price_table.json").write_text(json.dumps({"currency": "USD", "sandboxes": rows}))
    (directory / "manifest.json").write_text((Daytona().fixtures_dir() / "manifest.json").read_text())
    offers, status = run_provider(make_engine(registry), "daytona", fixtures_dir=tmp_path)
    assert status.state == "ok", status.line()
    assert sorted((o.instance_type, o.price.purchase) for o in offers) == [
        ("1x-H100", "on_demand"), ("1x-H100", "spot"), ("m", "on_demand")]
    assert status.skipped_records == 5, status.skipped_reasons
    assert status.skipped_reasons["placeholder price (zero or negative)"] == 1
    m = next(o for o in offers if o.instance_type == "m")  # 80 "MiB": GB in a MiB field (C37)
    assert m.instance.gpu is not None and m.instance.gpu.memory_gib == Decimal(80)
    assert any("C37" in w for w in status.warnings) and any("placeholder spot_price" in w for w in status.warnings)


def test_a_table_without_currency_is_refused(tmp_path: Path, registry: Registry) -> None:
    directory = tmp_path / "daytona"
    directory.mkdir()
    (directory / "price_table.json").write_text(json.dumps({"sandboxes": [_row()]}))
    (directory / "manifest.json").write_text((Daytona().fixtures_dir() / "manifest.json").read_text())
    offers, status = run_provider(make_engine(registry), "daytona", fixtures_dir=tmp_path)
    assert status.state == "failed" and "currency" in (status.reason or "") and offers == ()


def test_static_table_without_credentials(registry: Registry) -> None:
    provider = registry.providers["daytona"]
    assert provider.static and not provider.credentials


def test_network_and_storage_are_not_published(replayed: Any) -> None:
    """Issue 28: Daytona's sandbox catalog gives no network bandwidth, fabric or local disk (README):
    every offer leaves them unknown, with no source claimed."""
    offers = replayed[0]
    assert offers and [network_facts(o) for o in offers if network_facts(o)] == []
