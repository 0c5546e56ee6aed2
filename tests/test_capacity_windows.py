"""Issue 26: reservation windows (capacity blocks) are offered for the search's own time: a window that starts
before it is left out and counted, and ``estimate --compare`` never picks one. On a fixed clock."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from decimal import Decimal

import gpuhub
from gpuhub import Instance, Offer, Price, Provider, ProviderContext, Registry, hookimpl
from gpuhub.answer.compare import compare
from gpuhub.kit.testing import make_engine
from gpuhub.obtain import Obtainability, Reservation

UTC = dt.timezone.utc
CLOCK = dt.datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
PAST, NEXT, LATER = (dt.datetime(2025, 2, 15, 11, 30, tzinfo=UTC), dt.datetime(2026, 12, 2, 11, 30, tzinfo=UTC),
                     dt.datetime(2026, 12, 9, 11, 30, tzinfo=UTC))


class Blocks(Provider):
    """p4d.24xlarge in us-east-2: on demand at 21.96, and 24-hour blocks at 11.80 per hour (one started in Feb
    2025 at a cheaper 11.79, one tomorrow, one in a week)."""

    name = "blocks"
    kind = "hyperscaler"

    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        inst = Instance(provider="blocks", instance_type="p4d.24xlarge", gpu=ctx.gpu("A100"), gpu_count=8)
        region = ctx.region("us-east-2")
        yield Offer(instance=inst, region=region, source=ctx.source,
                    price=Price(amount=Decimal("21.96"), currency="USD", purchase="on_demand"))
        for start, rate in ((PAST, "11.79"), (NEXT, "11.80"), (LATER, "11.80")):
            total = Decimal(rate) * 24
            yield Offer(instance=inst, region=region, source=ctx.source,
                        price=Price(amount=Decimal(rate), currency="USD", purchase="capacity_block", upfront=total,
                                    term_hours=24),
                        obtain=Obtainability(reservation=Reservation(start=start, duration_hours=24, total=total)))


class _Plugin:
    @hookimpl
    def register_providers(self, register: Callable[[Provider], None]) -> None:
        register(Blocks())


def _search(start: dt.datetime) -> gpuhub.SearchResult:
    engine = make_engine(Registry(entry_points=[], extra_plugins=[("blocks", _Plugin())]))
    try:
        return gpuhub.search(engine=engine, fetch="live", limit=None, start=start)
    finally:
        engine.shutdown()


def _starts(result: gpuhub.SearchResult) -> list[dt.datetime]:
    return sorted(o.obtain.reservation.start for o in result if o.obtain and o.obtain.reservation
                  and o.obtain.reservation.start)


def test_no_block_starts_before_the_search_time() -> None:
    result = _search(CLOCK)
    assert _starts(result) == [NEXT, LATER] and result.removed_by["past_start"] == 1
    a_week_on = _search(NEXT + dt.timedelta(hours=1))
    assert _starts(a_week_on) == [LATER] and a_week_on.removed_by["past_start"] == 2


def test_compare_never_picks_the_past_block_although_it_was_cheaper() -> None:
    options = compare(list(_search(CLOCK)), 24)
    [block] = [o for o in options if o.purchase == "capacity_block"]
    assert block.offer.obtain and block.offer.obtain.reservation
    assert (block.offer.obtain.reservation.start, block.cost) == (NEXT, Decimal("283.20"))
