"""The AWS provider: streams the public EC2 offer files, asks EC2 for spot prices per zone and instance specs.

The walk, per region (default: the regions of the bundled recording; ``GPUHUB_AWS_REGIONS`` overrides):

1. ``GET {pricing}/offers/v1.0/aws/AmazonEC2/current/<region>/index.json`` (public), streamed through
   :class:`~gpuhub_aws.parse.OfferFileParser` (China regions: the ``.com.cn`` host, prices in CNY);
2. once, ``DescribeInstanceTypes`` in the first region for the accelerator types found (specs; falls back to the
   bundled spec table when not authorized);
3. ``DescribeSpotPriceHistory`` for those types, ``Linux/UNIX``, ``StartTime`` = the offer file's
   ``publicationDate`` (so a recording replays byte-for-byte); the latest entry per (type, zone) is the price.

EC2 calls use the Query protocol (form-encoded POST, XML answers), SigV4-signed with botocore's signer (extra
``gpuhub-aws[live]``). Credentials: ``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY`` (+ ``AWS_SESSION_TOKEN``), or a
named profile (``AWS_PROFILE``) in the shared credentials/config files.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode, urlsplit

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
)
from gpuhub_aws.advisor import Advisor
from gpuhub_aws.capacity_blocks import (
    Answers,
    capacity_block_hours,
    capacity_block_offers,
    capacity_block_types,
    published_blocks,
    published_rates,
    read_capacity_blocks,
)
from gpuhub_aws.obtain import advisor_missing, attach_risk, load_advisor
from gpuhub_aws.parse import (
    InstanceSpec,
    OfferFileParser,
    OfferFileResult,
    RegionPrices,
    SpotItem,
    TermPrice,
    build_instance,
    bundled_specs,
    ec2_error,
    is_accelerated,
    latest_spot_prices,
    parse_describe_instance_types,
    parse_spot_history,
    spec_from_api,
)
from gpuhub_aws.placement import placement_scores, with_scores
from gpuhub_aws.quotas import QUOTA_TARGET, Quotas, list_quotas_body, parse_quotas, quota_error, with_quotas
from gpuhub_aws.side import SideSources, side_budget

__all__ = ["DEFAULT_REGIONS", "AwsProvider", "describe_instance_types_params", "spot_history_params", "stream"]

DEFAULT_REGIONS = (
    "us-east-1", "us-east-2", "us-west-1", "us-west-2", "ca-central-1",
    "eu-central-1", "eu-west-1", "eu-west-2", "eu-west-3", "eu-north-1", "eu-south-1", "eu-south-2",
    "ap-northeast-1", "ap-northeast-2", "ap-northeast-3", "ap-south-1", "ap-southeast-1", "ap-southeast-2",
    "ap-southeast-3", "ap-east-1", "me-central-1", "me-south-1", "af-south-1",
)
"""Regions fetched by default: those of the bundled recording (every region of the SkyPilot AWS catalog)."""

EC2_API_VERSION = "2016-11-15"
CHUNK_BYTES = 256 * 1024
MAX_PAGES = 100
SPEC_BATCH = 50
_REGION_RX = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d{1,2}$")
_FORM = "application/x-www-form-urlencoded; charset=utf-8"
T = TypeVar("T")
_RECORDING = Path(__file__).resolve().parent / "recording"


@dataclass(frozen=True)
class _Creds:
    access_key: str
    secret_key: str
    token: str | None = None


class AwsProvider(Provider):
    """AWS EC2 GPU and accelerator instances: on-demand, reserved (1y/3y, each payment option) and spot per zone.

    Prices are per instance-hour in USD (CNY in the China regions), billed per second with a 60-second minimum
    (Linux). Settings: ``GPUHUB_AWS_REGIONS`` (comma-separated region codes), ``GPUHUB_AWS_BASE_URL`` (offer-file
    host), ``GPUHUB_AWS_CN_BASE_URL`` (China offer-file host), ``GPUHUB_AWS_EC2_ENDPOINT`` (a URL template with
    ``{region}``), ``GPUHUB_AWS_PUBLIC_ONLY=1`` (live without credentials: offer files only, no spot),
    ``GPUHUB_AWS_SIDE_SOURCES_S`` (seconds the side sources may add to a live fetch, :mod:`gpuhub_aws.side`).
    """

    name = "aws"
    display_name = "Amazon Web Services (EC2)"
    kind = "hyperscaler"
    price_change_period_s = 86400.0  # spot prices move daily; list prices change a few times a year
    base_url = "https://pricing.us-east-1.amazonaws.com"
    cn_base_url = "https://pricing.cn-north-1.amazonaws.com.cn"
    credentials = (
        Credential(("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"),
                   "an AWS access key pair, plus AWS_SESSION_TOKEN for temporary credentials; "
                   "needs ec2:DescribeSpotPriceHistory and, optionally, ec2:DescribeInstanceTypes"),
        Credential(("AWS_PROFILE",), "a named profile in ~/.aws/credentials or ~/.aws/config"),
    )

    def fixtures_dir(self) -> Path:
        """The bundled recording (reconstructed offer-file excerpts, spot answers, instance specs)."""
        return _RECORDING

    # --- fetch ---------------------------------------------------------------------------------------------
    def fetch(self, ctx: ProviderContext) -> Iterator[Offer]:
        """Every accelerator offer in the configured regions (see the module docstring for the walk).

        Raises:
            CredentialsError: live/record mode without credentials (unless ``GPUHUB_AWS_PUBLIC_ONLY=1``), or
                credentials rejected.
            ProviderError: an offer file or EC2 page failed after retries, was truncated or malformed, or a
                pagination loop / page cap was hit.
        """
        regions = self._regions(ctx)
        budget = side_budget(ctx)  # a bad setting fails before any download
        creds = self._credentials(ctx)
        with_ec2 = ctx.mode == "replay" or creds is not None
        results: list[OfferFileResult] = []
        for region in regions:
            result = self._offer_file(ctx, region)
            for reason, n in result.malformed.items():
                for _ in range(n):
                    ctx.skip(f"offer file: {reason}")
            if not result.prices:
                ctx.warn(f"the offer file for {region} lists no accelerator instance types")
            results.append(result)
        specs: dict[str, InstanceSpec] = dict(bundled_specs())
        types = sorted({t for r in results for t in r.prices})
        if with_ec2 and types:
            specs.update(self._describe_instance_types(ctx, creds, regions[0], types))
        instances: dict[str, Instance | None] = {}
        for result in results:  # first: the side sources ask only about types that make offers
            self._instances(ctx, result, specs, instances)
        side = SideSources(ctx, budget)  # advisor, quotas, placement, capacity blocks: concurrent, time-bounded (.side)
        try:
            advisor, quotas, scores, blocks = self._side_sources(ctx, side, creds, regions, results, types,
                                                                 instances, with_ec2)
        finally:
            side.close()
        served: set[tuple[str, str]] = set()  # (region, type) with a capacity block offering still to come
        accelerators: dict[str, int] = {}  # non-GPU accelerator -> offers (shown only with --include-accelerators)
        for result in results:
            spot: dict[tuple[str, str], SpotItem] = {}
            if with_ec2 and result.prices:
                spot = self._spot(ctx, creds, result)
            for offer in with_scores(with_quotas(attach_risk(self._offers(ctx, result, instances, spot),
                                                             advisor), quotas), scores):
                gpu = offer.instance.gpu
                if gpu is not None and not ctx.gpus.is_gpu(gpu.name):
                    accelerators[gpu.name] = accelerators.get(gpu.name, 0) + 1
                yield offer
            if result.region in blocks:  # Capacity Blocks for ML
                yield from capacity_block_offers(ctx, result.region, blocks[result.region], instances, served)
        if accelerators:
            ctx.warn("offers of accelerators that are not GPUs, shown only with --include-accelerators: "
                     + ", ".join(f"{name} ({n})" for name, n in sorted(accelerators.items())))
        # Windows for the fetch's own time at the published rates, where no offering still to come was read.
        now = dt.datetime.now(dt.timezone.utc)
        covered = sorted({r.region for r in results if r.prices and not r.region.startswith("cn-")})
        self._block_only_instances(ctx, covered, specs, instances)
        for region in covered:
            yield from published_blocks(ctx, region, [], instances, now, served)

    def _side_sources(self, ctx: ProviderContext, side: SideSources, creds: _Creds | None, regions: tuple[str, ...],
                      results: list[OfferFileResult], types: list[str], instances: Mapping[str, Instance | None],
                      with_ec2: bool) -> tuple[Advisor | str | None, dict[str, Quotas | str],
                                               dict[tuple[str, str], int], dict[str, Answers | str]]:
        """Start every side source at once (:mod:`gpuhub_aws.side`), then take what answered within the budget:
        the advisor's spot risk, the quotas per region, placement scores and capacity block answers per region."""
        global_regions = bool(with_ec2 and types and any(not r.startswith("cn-") for r in regions))
        if global_regions:  # spot risk (gpuhub_aws.obtain); no China rows
            side.submit("advisor", load_advisor, ctx, deadline=side.deadline)
        quotas = self._quotas(ctx, creds, [r.region for r in results if r.prices], side)  # gpuhub_aws.quotas
        placement = bool(creds is not None and ctx.setting("PLACEMENT_SCORES") == "1" and types)
        if placement:  # gpuhub_aws.placement
            side.submit("placement", placement_scores, ctx, types, list(regions),
                        partial(self._ec2, ctx, creds, regions[0], deadline=side.deadline))
        asked = [r for r in results if with_ec2 and r.prices and not r.region.startswith("cn-")]
        hours = capacity_block_hours(ctx) if asked else 0
        for result in asked:  # gpuhub_aws.capacity_blocks
            side.submit(f"blocks {result.region}", read_capacity_blocks, ctx,
                        capacity_block_types(ctx, result.region, sorted(set(result.prices) | set(result.listed)),
                                             instances),
                        hours, partial(self._ec2, ctx, creds, result.region, deadline=side.deadline))
        advisor: Advisor | str | None = side.result("advisor", partial(advisor_missing, ctx)) if global_regions \
            else None
        for region, found in list(quotas.items()):
            if found == _ASKED:
                quotas[region] = side.result(f"quotas {region}", partial(_quota_missing, ctx, region))
        scores: dict[tuple[str, str], int] = {}
        if placement:
            scores = side.result("placement", partial(_placement_missing, ctx))
        blocks: dict[str, Answers | str] = {r.region: side.result(f"blocks {r.region}", _why) for r in asked}
        return advisor, quotas, scores, blocks

    def _instances(self, ctx: ProviderContext, result: OfferFileResult, specs: Mapping[str, InstanceSpec],
                   instances: dict[str, Instance | None]) -> None:
        """Build the instance of each type of ``result`` not built yet (None when it cannot be)."""
        attributes = {**{t: a for t, a in result.listed.items() if t not in result.prices},
                      **{t: p.attributes for t, p in result.prices.items()}}
        for itype, attrs in sorted(attributes.items()):
            if itype in instances:
                continue
            instances[itype] = None
            with ctx.guard("instance type"):
                instances[itype] = build_instance(specs.get(itype), attrs, itype, ctx.gpu, ctx.warn,
                                                  provider=self.name)
            if instances[itype] is None and itype not in specs:
                ctx.warn(f"no spec for {itype}: configure credentials for DescribeInstanceTypes or update "
                         "the bundled spec table")

    def _block_only_instances(self, ctx: ProviderContext, regions: list[str], specs: Mapping[str, InstanceSpec],
                              instances: dict[str, Instance | None]) -> None:
        """Instances for types sold only as Capacity Blocks in ``regions`` (p6-b300, trn2): no offer file lists
        them, so their facts come from the bundled spec table and their only price is the published block rate
        (``data/capacity_block_rates.csv``)."""
        wanted = sorted({t for t, r in published_rates() if r in regions and t not in instances and t in specs})
        for itype in wanted:
            instances[itype] = None
            with ctx.guard("instance type"):
                instances[itype] = build_instance(specs[itype], {}, itype, ctx.gpu, ctx.warn, provider=self.name)

    def _offers(self, ctx: ProviderContext, result: OfferFileResult, instances: Mapping[str, Instance | None],
                spot: Mapping[tuple[str, str], SpotItem]) -> Iterator[Offer]:
        spot_by_type: dict[str, list[SpotItem]] = {}
        for (itype, _), item in sorted(spot.items()):
            spot_by_type.setdefault(itype, []).append(item)
        listed_only = {t: RegionPrices(instance_type=t, region=result.region, attributes=a)
                       for t, a in result.listed.items() if t not in result.prices}
        for itype in sorted(listed_only):  # no source gives them an on-demand price: say so, offer spot only
            ctx.warn(f"{itype} in {result.region}: no on-demand price (listed as Capacity Blocks only)"
                     + ("; spot offers only" if spot_by_type.get(itype) else "; no spot price either: not offered"))
        for itype, prices in sorted({**result.prices, **listed_only}.items()):
            instance = instances.get(itype)  # built by _instances
            if instance is None:
                continue
            region = ctx.region(prices.region)
            terms = ([prices.on_demand] if prices.on_demand else []) + prices.reserved
            for term in terms:
                with ctx.guard("price"):
                    yield Offer(instance=instance, region=region, price=_price(term), source=ctx.source)
            currency = "CNY" if prices.region.startswith("cn-") else "USD"
            for item in spot_by_type.get(itype, []):
                with ctx.guard("spot price"):
                    if item.price <= 0:
                        raise ValueError("zero spot price")
                    price = Price(amount=item.price, currency=currency, purchase="spot", billing_increment_s=1,
                                  minimum_charge_s=60)
                    yield Offer(instance=instance, region=ctx.region(prices.region, item.zone), price=price,
                                source=ctx.source)

    # --- configuration ------------------------------------------------------------------------------------
    def _regions(self, ctx: ProviderContext) -> tuple[str, ...]:
        text = ctx.setting("REGIONS")
        if not text:
            return DEFAULT_REGIONS
        regions = tuple(dict.fromkeys(r.strip() for r in text.split(",") if r.strip()))
        bad = [r for r in regions if not _REGION_RX.match(r)]
        if bad or not regions:
            raise ProviderError(f"GPUHUB_AWS_REGIONS has invalid region codes {bad}; use e.g. us-east-1,eu-west-1")
        return regions

    def _credentials(self, ctx: ProviderContext) -> _Creds | None:
        if ctx.mode == "replay":
            return None
        key, secret = ctx.secret("AWS_ACCESS_KEY_ID"), ctx.secret("AWS_SECRET_ACCESS_KEY")
        if key is not None and secret is not None:
            token = ctx.secret("AWS_SESSION_TOKEN")
            return _Creds(key.get_secret_value(), secret.get_secret_value(),
                          token.get_secret_value() if token else None)
        profile = ctx.setting("PROFILE") or ctx.env("AWS_PROFILE")
        if profile:
            creds = _profile_credentials(profile, {name: ctx.env(name) or "" for name in _PROFILE_ENV})
            if creds is not None:
                ctx.secrets_seen.extend(v for v in (creds.access_key, creds.secret_key, creds.token) if v)
                return creds
        if ctx.setting("PUBLIC_ONLY") == "1":
            ctx.warn("no AWS credentials: on-demand and reserved prices only (spot needs credentials)")
            return None
        raise CredentialsError(f"AWS credentials missing: {self.credentials_help()}")

    # --- quotas (gpuhub_aws.quotas) -----------------------------------------------------------------------
    def _quotas(self, ctx: ProviderContext, creds: _Creds | None, regions: list[str],
                side: SideSources) -> dict[str, Quotas | str]:
        """Per region, why its vCPU quotas are unknown, or :data:`_ASKED` with a side-source job ``quotas
        <region>`` started that answers them (see :mod:`gpuhub_aws.quotas`)."""
        if ctx.setting("QUOTAS") == "0":
            return {}
        if ctx.mode != "replay" and creds is None:
            return {r: "quota: Service Quotas needs AWS credentials" for r in regions}
        recorded = {urlsplit(str(e.get("request", {}).get("url", ""))).netloc
                    for e in (ctx.recording.exchanges if ctx.recording is not None else [])}
        out: dict[str, Quotas | str] = {}
        for region in regions:
            if region.startswith("cn-"):
                out[region] = "quota: Service Quotas is not asked in the China regions"
                continue
            url = (ctx.setting("QUOTAS_ENDPOINT") or "https://servicequotas.{region}.amazonaws.com").replace(
                "{region}", region).rstrip("/") + "/"
            if ctx.mode == "replay" and urlsplit(url).netloc not in recorded:
                out[region] = f"quota: the recording holds no Service Quotas answer for {region} (needs credentials)"
                continue
            side.submit(f"quotas {region}", self._region_quotas, ctx, creds, region, url, side.deadline)
            out[region] = _ASKED
        return out

    def _region_quotas(self, ctx: ProviderContext, creds: _Creds | None, region: str, url: str,
                       deadline: float | None) -> Quotas | str:
        """The quotas of one region (every ``ListServiceQuotas`` page), or why they are unknown (also a warning)."""
        try:
            pages, token = [], None
            for _ in range(MAX_PAGES):
                body = list_quotas_body(token).encode()
                headers = {"Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": QUOTA_TARGET}
                if creds is not None:
                    headers = _sign(creds, region, url, body, headers, "servicequotas")
                page = ctx.request("POST", url, content=body, headers=headers, deadline=deadline).json()
                pages.append(page)
                token = page.get("NextToken") if isinstance(page, dict) else None
                if not token:
                    break
            return parse_quotas(region, pages, ctx.skip)
        except (ProviderError, ValueError) as exc:
            reason = quota_error(region, exc)
            ctx.warn(f"{reason}; quotas there are unknown")
            return reason

    # --- offer files --------------------------------------------------------------------------------------
    def _offer_url(self, ctx: ProviderContext, region: str) -> str:
        if region.startswith("cn-"):
            base = (ctx.setting("CN_BASE_URL") or self.cn_base_url).rstrip("/")
            return f"{base}/offers/v1.0/cn/AmazonEC2/current/{region}/index.json"
        return f"{ctx.base_url()}/offers/v1.0/aws/AmazonEC2/current/{region}/index.json"

    def _offer_file(self, ctx: ProviderContext, region: str) -> OfferFileResult:
        url = self._offer_url(ctx, region)

        def consume(response: httpx.Response) -> OfferFileResult:
            parser = OfferFileParser(region, is_accelerated)
            for chunk in response.iter_bytes(CHUNK_BYTES):
                parser.feed(chunk)
            return parser.finish()

        return stream(ctx, "GET", url, consume)

    # --- EC2 ----------------------------------------------------------------------------------------------
    def _ec2_endpoint(self, ctx: ProviderContext, region: str) -> str:
        template = ctx.setting("EC2_ENDPOINT")
        if template:
            return template.replace("{region}", region).rstrip("/") + "/"
        suffix = ".cn" if region.startswith("cn-") else ""
        return f"https://ec2.{region}.amazonaws.com{suffix}/"

    def _ec2(self, ctx: ProviderContext, creds: _Creds | None, region: str,
             params: list[tuple[str, str]], deadline: float | None = None) -> bytes:
        """One signed EC2 Query request; ``deadline`` bounds a side source's (see ``ProviderContext.request``)."""
        url = self._ec2_endpoint(ctx, region)
        body = urlencode(params).encode()
        headers = {"Content-Type": _FORM}
        if creds is not None:
            headers = _sign(creds, region, url, body, headers)
        return ctx.request("POST", url, content=body, headers=headers, deadline=deadline).content

    def _describe_instance_types(self, ctx: ProviderContext, creds: _Creds | None, region: str,
                                 types: list[str]) -> dict[str, InstanceSpec]:
        found: dict[str, InstanceSpec] = {}
        try:
            for start in range(0, len(types), SPEC_BATCH):

                def fetch_batch(batch: list[str]) -> list[InstanceSpec]:
                    def call(token: str | None) -> bytes:
                        return self._ec2(ctx, creds, region, describe_instance_types_params(batch, token))

                    specs: list[InstanceSpec] = []
                    for page in _pages(call, parse_describe_instance_types, "DescribeInstanceTypes"):
                        for item in page:
                            with ctx.guard("instance type spec"):
                                specs.append(spec_from_api(item))
                    return specs

                for spec in _without_rejected(ctx, region, "DescribeInstanceTypes", types[start:start + SPEC_BATCH],
                                              fetch_batch):
                    found[spec.instance_type] = spec
        except CredentialsError as exc:
            if exc.code != "403":
                raise
            ctx.warn("not authorized for ec2:DescribeInstanceTypes; using the bundled spec table")
            return {}
        return found

    def _spot(self, ctx: ProviderContext, creds: _Creds | None,
              result: OfferFileResult) -> dict[tuple[str, str], SpotItem]:
        region = result.region
        if not result.publication_date:
            raise ProviderError(f"the offer file for {region} has no publicationDate to start the spot history at")
        types = sorted(set(result.prices) | set(result.listed))  # + capacity-block-only types (p5e): spot
        start = result.publication_date

        def parse(body: bytes) -> tuple[list[SpotItem], str | None]:
            return parse_spot_history(body, ctx.skip)

        def fetch_batch(batch: list[str]) -> list[SpotItem]:
            def call(token: str | None) -> bytes:
                return self._ec2(ctx, creds, region, spot_history_params(batch, start, token))

            return [item for page in _pages(call, parse, "DescribeSpotPriceHistory") for item in page]

        items = _without_rejected(ctx, region, "DescribeSpotPriceHistory", types, fetch_batch)
        wanted = set(types)
        return {k: v for k, v in latest_spot_prices(items).items() if k[0] in wanted}


_ASKED = "asked"
"""A region's quotas are being asked by a side-source job."""


def _quota_missing(ctx: ProviderContext, region: str, why: str) -> str:
    reason = f"quota: Service Quotas in {region} {why}"
    ctx.warn(f"{reason}; quotas there are unknown")
    return reason


def _why(reason: str) -> str:
    return reason


def _placement_missing(ctx: ProviderContext, why: str) -> dict[tuple[str, str], int]:
    ctx.warn(f"spot placement scores unavailable ({why})")
    return {}


_REJECTED_NAMES = re.compile(r"[a-z][a-z0-9-]*\.[a-z0-9-]+")


def _without_rejected(ctx: ProviderContext, region: str, action: str, types: list[str],
                      fetch: Callable[[list[str]], list[T]]) -> list[T]:
    """``fetch(types)``; when EC2 rejects the whole request with ``InvalidInstanceType`` naming some of them (a
    type not offered in that region, known fault C31), retry without the named types and warn, so one type never
    costs the batch.

    Raises:
        ProviderError: any other error, or an ``InvalidInstanceType`` that names none of the requested types.
    """
    remaining = list(types)
    while remaining:
        try:
            return fetch(remaining)
        except ProviderError as exc:
            error = ec2_error((exc.body or "").encode()) if exc.status == 400 else None
            if error is None or error[0] != "InvalidInstanceType":
                raise
            rejected = [t for t in _REJECTED_NAMES.findall(error[1]) if t in remaining]
            if not rejected:
                raise
            remaining = [t for t in remaining if t not in rejected]
            ctx.warn(f"{region}: {action} rejected {', '.join(rejected)} (InvalidInstanceType: not offered there); "
                     f"asked again for the other {len(remaining)} types")
    return []


def describe_instance_types_params(types: list[str], token: str | None = None) -> list[tuple[str, str]]:
    """EC2 Query parameters of one ``DescribeInstanceTypes`` page for ``types`` (an ``instance-type`` filter)."""
    params = [("Action", "DescribeInstanceTypes"), ("Version", EC2_API_VERSION), ("Filter.1.Name", "instance-type")]
    params += [(f"Filter.1.Value.{i}", t) for i, t in enumerate(types, 1)]
    params.append(("MaxResults", "100"))
    return params + ([("NextToken", token)] if token else [])


def spot_history_params(types: list[str], start: str, token: str | None = None) -> list[tuple[str, str]]:
    """EC2 Query parameters of one ``DescribeSpotPriceHistory`` page: Linux/UNIX prices of ``types`` since
    ``start`` (ISO 8601), which also returns the price in force at ``start``."""
    params = [("Action", "DescribeSpotPriceHistory"), ("Version", EC2_API_VERSION),
              ("ProductDescription.1", "Linux/UNIX"), ("StartTime", start), ("MaxResults", "1000")]
    params += [(f"InstanceType.{i}", t) for i, t in enumerate(types, 1)]
    return params + ([("NextToken", token)] if token else [])


def _price(term: TermPrice) -> Price:
    return Price(amount=term.amount, currency=term.currency, purchase=term.purchase, upfront=term.upfront,
                 term_hours=term.term_hours, payment_option=term.payment_option,
                 billing_increment_s=1 if term.purchase == "on_demand" else None,
                 minimum_charge_s=60 if term.purchase == "on_demand" else None)


def _pages(call: Callable[[str | None], bytes], parse: Callable[[bytes], tuple[list[Any], str | None]],
           what: str) -> Iterator[list[Any]]:
    """Follow ``nextToken`` pages; a repeated token or more than :data:`MAX_PAGES` pages raises ProviderError."""
    token: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        items, token = parse(call(token))
        yield items
        if token is None:
            return
        if token in seen:
            raise ProviderError(f"{what}: pagination loop (nextToken repeated)")
        seen.add(token)
    raise ProviderError(f"{what}: more than {MAX_PAGES} pages; the answer would be incomplete")


def stream(ctx: ProviderContext, method: str, url: str, consume: Callable[[httpx.Response], T]) -> T:
    """Consume a body as it arrives (the offer files are hundreds of MB), through the core's restartable stream:
    a connection dropped mid-file restarts the file under the retry policy (see
    :meth:`gpuhub.ProviderContext.read_streamed`)."""
    return ctx.read_streamed(method, url, consume)


def _sign(creds: _Creds, region: str, url: str, body: bytes, headers: dict[str, str],
          service: str = "ec2") -> dict[str, str]:
    """SigV4 headers (``Authorization``, ``X-Amz-Date``, ``X-Amz-Security-Token``) from botocore's signer."""
    try:
        from botocore.auth import SigV4Auth  # type: ignore[import-untyped]
        from botocore.awsrequest import AWSRequest  # type: ignore[import-untyped]
        from botocore.credentials import Credentials  # type: ignore[import-untyped]
    except ImportError:
        raise ProviderError("signing EC2 requests needs botocore: pip install 'gpuhub-aws[live]'") from None
    request = AWSRequest(method="POST", url=url, data=body, headers=dict(headers))
    SigV4Auth(Credentials(creds.access_key, creds.secret_key, creds.token), service, region).add_auth(request)
    return {k: str(v) for k, v in request.headers.items()}


_PROFILE_ENV = ("AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE")


def _profile_credentials(profile: str, environ: Mapping[str, str]) -> _Creds | None:
    """Static keys of a named profile from the shared credentials file, then the config file (no other sources:
    no instance metadata, no SSO, no role assumption)."""
    try:
        from botocore.configloader import raw_config_parse  # type: ignore[import-untyped]
    except ImportError:
        raise ProviderError("reading AWS profiles needs botocore: pip install 'gpuhub-aws[live]'") from None
    home = os.path.expanduser
    files = ((environ.get("AWS_SHARED_CREDENTIALS_FILE") or home("~/.aws/credentials"), profile),
             (environ.get("AWS_CONFIG_FILE") or home("~/.aws/config"),
              profile if profile == "default" else f"profile {profile}"))
    for path, section in files:
        if not os.path.isfile(path):
            continue
        data = raw_config_parse(path).get(section) or {}
        if data.get("aws_access_key_id") and data.get("aws_secret_access_key"):
            return _Creds(data["aws_access_key_id"], data["aws_secret_access_key"], data.get("aws_session_token"))
    return None
