"""One row per provider for the fault matrix, the fuzzers and the secret scan.

Adding a provider is adding one :class:`ProviderCase` to :data:`CASES`: its fake credentials, what an empty page
looks like in its API, which request the faults hit, and three JSON edits of its recorded pages (a next-page link
that loops back, a field renamed in every record, one record missing its price).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

Json = Any
Edit = Callable[[Json, str], Json]


@dataclass(frozen=True)
class ProviderCase:
    """How the reliability suite drives one provider against the fault server.

    Attributes:
        name: the provider's registered name.
        env: fake credentials that switch it to live mode (every value is a unique, greppable fake secret).
        fault_match: substring of ``path?query`` naming the request the faults hit: the second page of a walk
            (so a failure there is a walk that broke half-way), or the only request.
        empty_page: the body meaning "no offers" in this API, served for the first request.
        first_match: substring naming the walk's first request (where the empty page goes).
        loop: edit of the ``loop_match`` page making its next-page link point back to the first page; None when
            the API has no pagination.
        rename_all: edit renaming a field every record needs (the API changed shape), applied to every page.
        renamed_field: the field ``rename_all`` renames (the skip reasons must name it).
        drop_one: edit removing a required field from one record on the ``fault_match`` page.
        drop_one_type: the instance type of that record (its offers must be missing, nothing else).
        items: the records of one decoded page (for the fuzzers); set_items puts records back.
        streamed: the provider reads this page with ``ctx.stream`` (a connection lost mid-body is not retried).
        words: per-fault extra words the provider's failure reason must contain (override the defaults).
        xfail: per-fault defect descriptions (strict xfail: the test must fail until the plugin is fixed).
    """

    name: str
    env: Mapping[str, str]
    fault_match: str
    empty_page: bytes
    first_match: str
    rename_all: Edit
    renamed_field: str
    drop_one: Edit
    drop_one_type: str
    items: Callable[[Json], list[Any]]
    set_items: Callable[[Json, list[Any]], Json]
    loop: Edit | None = None
    loop_match: str | None = None
    streamed: bool = False
    words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    xfail: Mapping[str, str] = field(default_factory=dict)


# --- fakecloud (the core's example provider, tests/fakecloud.py) -------------------------------------------------
def _fake_items(page: Json) -> list[Any]:
    return list(page.get("offers", []))


def _fake_set(page: Json, items: list[Any]) -> Json:
    out = copy.deepcopy(page)
    out["offers"] = items
    return out


def _fake_rename(page: Json, url: str) -> Json:
    for item in page.get("offers", []):
        if "gpu_count" in item:
            item["gpus"] = item.pop("gpu_count")
    return page


def _fake_drop(page: Json, url: str) -> Json:
    for item in page.get("offers", []):
        if item.get("instance_type") == "a100x8-80":
            del item["regions"]
    return page


def _fake_loop(page: Json, url: str) -> Json:
    page["next_page"] = 1
    return page


FAKECLOUD = ProviderCase(
    name="fakecloud", env={"FAKECLOUD_TOKEN": "fake-fakecloud-bearer-7f3a9c1e"},
    fault_match="page=2", first_match="page=1", empty_page=b'{"offers": [], "next_page": null}',
    rename_all=_fake_rename, renamed_field="gpu_count", drop_one=_fake_drop, drop_one_type="a100x8-80",
    items=_fake_items, set_items=_fake_set, loop=_fake_loop, loop_match="page=2",
    words={"pagination_loop": ("pagination loop",)},
)


# --- lambda ----------------------------------------------------------------------------------------------------
def _lambda_entries(page: Json) -> Iterator[dict[str, Any]]:
    data = page.get("data", {})
    yield from (v.get("instance_type", {}) for v in data.values() if isinstance(v, dict))


def _lambda_items(page: Json) -> list[Any]:
    return list(page.get("data", {}).items())


def _lambda_set(page: Json, items: list[Any]) -> Json:
    out = copy.deepcopy(page)
    out["data"] = dict(items)
    return out


def _lambda_rename(page: Json, url: str) -> Json:
    for entry in _lambda_entries(page):
        if "price_cents_per_hour" in entry:
            entry["price_usd_cents"] = entry.pop("price_cents_per_hour")
    return page


def _lambda_drop(page: Json, url: str) -> Json:
    page["data"]["gpu_8x_v100"]["instance_type"].pop("price_cents_per_hour")
    return page


LAMBDA = ProviderCase(
    name="lambda", env={"LAMBDA_API_KEY": "fake-lambda-secret_9d2e7b41c0"},
    fault_match="/api/v1/instance-types", first_match="/api/v1/instance-types", empty_page=b'{"data": {}}',
    rename_all=_lambda_rename, renamed_field="price_cents_per_hour", drop_one=_lambda_drop,
    drop_one_type="gpu_8x_v100", items=_lambda_items, set_items=_lambda_set,
)


CASES: tuple[ProviderCase, ...] = (FAKECLOUD, LAMBDA)
"""Every provider row; the matrix, fuzzers and secret scan parametrize over these."""

BY_NAME = {case.name: case for case in CASES}
